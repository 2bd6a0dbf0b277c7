// `svc auth switch`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok, refused } = parsing('auth switch');

describe('svc auth switch: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('auth', 'switch', 'work')).toEqual({ profile: 'work' });
    expect(await refused('auth', 'switch')).toContain("missing required argument 'profile'");
  });
});
