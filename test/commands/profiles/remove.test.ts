// `svc profiles remove`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok, refused } = parsing('profiles remove');

describe('svc profiles remove: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('profiles', 'remove', 'old', '--revoke')).toEqual({ name: 'old', revoke: true });
    expect(await refused('profiles', 'remove')).toContain("missing required argument 'name'");
  });
});
