// `svc logout`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../helpers/parse.js';

const { ok, refused } = parsing('logout');

describe('svc logout: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('logout')).toEqual({ all: false, local: false });
    expect(await ok('logout', '--all')).toEqual({ all: true, local: false });
    expect(await ok('logout', '--local')).toEqual({ all: false, local: true });
    expect(await refused('logout', 'work')).toContain('too many arguments');
  });
});
