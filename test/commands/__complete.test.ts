// `svc __complete`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../helpers/parse.js';

const { ok } = parsing('__complete');

describe('svc __complete: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('__complete', 'profiles')).toEqual({ what: 'profiles' });
  });
});
