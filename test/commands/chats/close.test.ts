// `svc chats close`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok, refused } = parsing('chats close');

describe('svc chats close: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('chats', 'close', 'chat_1')).toEqual({ id: 'chat_1' });
    expect(await refused('chats', 'close', 'call_1')).toContain('not a chat id');
  });
});
