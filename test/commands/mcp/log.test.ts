// `svc mcp log`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok, refused } = parsing('mcp log');

describe('svc mcp log: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('mcp', 'log', '--limit', '5')).toEqual({ limit: 5 });
    expect(await refused('mcp', 'log', '--limit', '0')).toContain('--limit "0" must be a whole number of at least 1');
    // mcp's own flags before `log` are read by mcp (commander's way), so log runs, with its own flags.
    expect(await ok('mcp', 'log', '--verify')).toEqual({ verify: true });
    // ...but a flag of the server is no flag of its log: refused, not ignored.
    for (const line of [
      ['mcp', '--max-spend', '5', 'log', '--verify'],
      ['mcp', 'log', '--max-spend', '5', '--allow-write', '--verify'],
      ['mcp', '--allow-write', 'log'],
      ['mcp', 'log', '--confirm-over=1'],
    ])
      expect(await refused(...line), line.join(' ')).toMatch(
        /--(max-spend|allow-write|confirm-over)( and --[a-z-]+)* (is a flag|are flags) of `svc mcp` itself, not of `svc mcp log`/,
      );
    expect(await refused('mcp', 'log', '--max-spend', '5', '--allow-write')).toMatch(
      /--allow-write and --max-spend are flags of `svc mcp` itself|--max-spend and --allow-write are flags of `svc mcp` itself/,
    );
  });
});
