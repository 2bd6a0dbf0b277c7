// `svc calls links create`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../../helpers/parse.js';

const { ok, refused } = parsing('calls links create');

describe('svc calls links create: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('calls', 'links', 'create', '--call', 'call_1', '--language', 'fr', '--expires-in', '1h30m')).toEqual({
      callId: 'call_1',
      language: 'fr',
      expiresInSeconds: 5400,
    });
    expect(await refused('calls', 'links', 'create', '--expires-in', '60')).toContain('90s, 15m, 1h');
  });
});
