// `svc auth token`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok, refused } = parsing('auth token');

describe('svc auth token: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('auth', 'token')).toEqual({});
    expect(await refused('auth', 'token', 'extra')).toContain('too many arguments');
  });
});
