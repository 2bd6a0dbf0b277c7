// `svc help`: its parse rules (never run itself: `svc help A B` is read as `svc A B --help`).
import { describe, expect, it } from 'vitest';
import { parseCli, refused } from '../helpers/parse.js';

describe('svc help: parse', () => {
  it('`help` before flags with values: the values are no command words', async () => {
    // (The help is printed on stdout, which parseCli's runtime refuses: the error is that, not an unknown command.)
    for (const line of [
      ['help', '--profile', 'work', 'calls'],
      ['calls', 'help', '--base-url', 'http://x', 'list'],
      ['help', '--profile=work', 'calls', 'list'],
    ])
      expect((await parseCli(line)).stderr, line.join(' ')).not.toMatch(/unknown command/);
    expect(await refused('help', '--profile', 'work', 'calls', 'nope')).toContain("unknown command 'nope'");
  });
});
