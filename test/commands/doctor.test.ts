// `svc doctor`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../helpers/parse.js';

const { ok, refused } = parsing('doctor');

describe('svc doctor: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('doctor')).toEqual({});
    expect(await refused('doctor', 'now')).toContain('too many arguments');
  });
});
