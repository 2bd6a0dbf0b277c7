// `svc calls list`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok, refused } = parsing('calls list');

describe('svc calls list: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('calls', 'list')).toEqual({ all: false });
    expect(await ok('calls', 'list', '--status', 'ended', '--limit', '5')).toEqual({ all: false, status: 'ended', limit: 5 });
    expect(await refused('calls', 'list', '--status', 'open')).toContain('--status must be one of active, ended');
    expect(await refused('calls', 'list', '--limit', '500')).toContain('1 to 100');
    expect(await refused('calls', 'list', '--limit', '5', '--all')).toContain('not both');
  });
});
