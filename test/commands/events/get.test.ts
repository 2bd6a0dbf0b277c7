// `svc events get`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok, refused } = parsing('events get');

describe('svc events get: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('events', 'get', 'evt_1')).toEqual({ id: 'evt_1' });
    expect(await refused('events', 'get')).toContain("missing required argument 'id'");
  });
});
