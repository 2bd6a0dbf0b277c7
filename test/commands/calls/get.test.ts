// `svc calls get`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok, refused } = parsing('calls get');

describe('svc calls get: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('calls', 'get', 'call_1')).toEqual({ id: 'call_1' });
    expect(await refused('calls', 'get')).toContain("missing required argument 'id'");
  });
});
