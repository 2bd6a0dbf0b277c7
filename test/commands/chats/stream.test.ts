// `svc chats stream`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok } = parsing('chats stream');

describe('svc chats stream: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('chats', 'stream', 'chat_1')).toEqual({ id: 'chat_1' });
    expect(await ok('chats', 'stream', 'chat_1', '--fail-on-gap')).toEqual({ id: 'chat_1', failOnGap: true });
  });
});
