// `svc account balance`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok } = parsing('account balance');

describe('svc account balance: parse', () => {
  it('takes no arguments', async () => {
    expect(await ok('account', 'balance')).toEqual({});
  });
});
