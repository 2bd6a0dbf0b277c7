// `svc chats voice`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok, refused } = parsing('chats voice');

describe('svc chats voice: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('chats', 'voice', 'chat_1', 'package.json')).toEqual({ id: 'chat_1', file: 'package.json' });
    expect(await refused('chats', 'voice', 'chat_1', 'note.ogg')).toContain('note.ogg does not exist');
    expect(await ok('chats', 'voice', 'chat_1', '-')).toEqual({ id: 'chat_1', file: '-' });
    expect(await refused('chats', 'voice', 'chat_1')).toContain("missing required argument 'file'");
  });
});
