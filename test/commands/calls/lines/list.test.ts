// `svc calls lines list`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../../helpers/parse.js';

const { ok } = parsing('calls lines list');

describe('svc calls lines list: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('calls', 'lines', 'list', '--all')).toEqual({ all: true });
  });
});
