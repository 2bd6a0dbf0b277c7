// `svc completion`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../helpers/parse.js';

const { ok, refused } = parsing('completion');

describe('svc completion: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('completion', 'zsh')).toEqual({ shell: 'zsh' });
    expect(await refused('completion', 'tcsh')).toContain('SHELL must be one of bash, zsh, fish, powershell, not "tcsh"');
    expect(await ok('completion', 'powershell')).toEqual({ shell: 'powershell' });
  });
});
