// `svc calls links list`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../../helpers/parse.js';

const { ok } = parsing('calls links list');

describe('svc calls links list: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('calls', 'links', 'list', '--limit', '3')).toEqual({ all: false, limit: 3 });
  });
});
