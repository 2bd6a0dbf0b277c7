// `svc version`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../helpers/parse.js';

const { ok } = parsing('version');

describe('svc version: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('version')).toEqual({});
  });
});
