// `svc keys list`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok } = parsing('keys list');

describe('svc keys list: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('keys', 'list')).toEqual({});
  });
});
