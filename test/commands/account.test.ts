// `svc account`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../helpers/parse.js';

const { ok, refused } = parsing('account');

describe('svc account: parse', () => {
  it('takes no arguments', async () => {
    expect(await ok('account')).toEqual({});
    expect(await refused('account', '--nope')).toContain("unknown option '--nope'");
  });
});
