// `svc mode`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../helpers/parse.js';

const { ok, refused } = parsing('mode');

describe('svc mode: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('mode')).toEqual({});
    expect(await ok('mode', 'live')).toEqual({ set: 'live' });
    expect(await refused('mode', 'prod')).toContain('MODE must be one of test, live, not "prod"');
  });
});
