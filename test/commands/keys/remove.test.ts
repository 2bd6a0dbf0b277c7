// `svc keys remove`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok, refused } = parsing('keys remove');

describe('svc keys remove: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('keys', 'remove', 'ci')).toEqual({ name: 'ci' });
    expect(await refused('keys', 'remove')).toContain("missing required argument 'name'");
  });
});
