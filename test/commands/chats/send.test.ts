// `svc chats send`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok } = parsing('chats send');

describe('svc chats send: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('chats', 'send', 'chat_1', 'Hello', 'there')).toEqual({ id: 'chat_1', text: 'Hello there' });
    expect(await ok('chats', 'send', 'chat_1')).toEqual({ id: 'chat_1' });
    expect(await ok('chats', 'send', 'chat_1', 'hi', '--dry-run')).toEqual({ id: 'chat_1', text: 'hi', dryRun: true });
    expect(await ok('chats', 'send', 'chat_1', '--language', 'fr', 'salut')).toEqual({ id: 'chat_1', text: 'salut', language: 'fr' });
  });
});
