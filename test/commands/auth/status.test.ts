// `svc auth status`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok } = parsing('auth status');

describe('svc auth status: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('auth', 'status')).toEqual({ offline: false });
    expect(await ok('auth', 'status', '--offline')).toEqual({ offline: true });
  });
});
