// `svc mcp`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../helpers/parse.js';

const { ok, refused } = parsing('mcp');

describe('svc mcp: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('mcp')).toEqual({ allowWrite: false });
    expect(await ok('mcp', '--allow-write', '--live', '--max-spend', '0.10')).toEqual({ allowWrite: true, maxSpend: 100_000 });
    expect(await refused('mcp', '--max-spend', 'lots')).toContain('--max-spend "lots" is not an amount of dollars');
  });
});
