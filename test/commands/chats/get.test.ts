// `svc chats get`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok } = parsing('chats get');

describe('svc chats get: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('chats', 'get', 'chat_1')).toEqual({ id: 'chat_1' });
  });
});
