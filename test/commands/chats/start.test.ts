// `svc chats start`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok, refused } = parsing('chats start');

describe('svc chats start: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('chats', 'start', '--language', 'fr', '--subject', 'Order 42')).toEqual({ language: 'fr', subject: 'Order 42' });
    expect(await refused('chats', 'start')).toContain("required option '--language <lang>' not specified");
  });
});
