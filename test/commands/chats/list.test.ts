// `svc chats list`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok, refused } = parsing('chats list');

describe('svc chats list: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('chats', 'list', '--status', 'closed')).toEqual({ all: false, status: 'closed' });
    expect(await refused('chats', 'list', '--status', 'ended')).toContain('--status must be one of open, closed');
  });
});
