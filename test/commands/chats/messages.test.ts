// `svc chats messages`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok } = parsing('chats messages');

describe('svc chats messages: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('chats', 'messages', 'chat_1', '--all')).toEqual({ id: 'chat_1', all: true });
  });
});
