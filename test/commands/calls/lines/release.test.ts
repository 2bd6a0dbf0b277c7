// `svc calls lines release`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../../helpers/parse.js';

const { ok, refused } = parsing('calls lines release');

describe('svc calls lines release: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('calls', 'lines', 'release', 'line_1')).toEqual({ id: 'line_1' });
    expect(await refused('calls', 'lines', 'release', 'call_1')).toContain('line_Q3vX8kTz1mLp9RbW2cYd');
  });
});
