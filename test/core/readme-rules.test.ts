// The README is the front door: short enough to read in ten minutes, every code line
// within an 80-column terminal, every `svc` line a command svc has, and no history or test
// paths in user text. The rules it once stated whole (exit codes, the keychain bound, the
// mode rule) are the help topics' now, checked against the code in test/core/topics.test.ts.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { svcLineProblems } from '../helpers/doc-blocks.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('the README', () => {
  it('is at most 300 lines', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(300);
  });

  it('keeps every line of its code blocks within 80 columns', () => {
    const code = [...README.matchAll(/^```[^\n]*\n([\s\S]*?)^```$/gm)].flatMap((m) => m[1]!.split('\n'));
    expect(code.length).toBeGreaterThan(20);
    expect(code.filter((line) => [...line].length > 80)).toEqual([]);
  });

  it('cites no issue and no test file', () => {
    expect(README).not.toMatch(/\bissue \d+|\btest\/\w/);
  });

  it('names only commands and flags svc has in its shell blocks', () => {
    expect(svcLineProblems(README)).toEqual([]);
  });

  it('points to every help topic it lists, and lists every topic', () => {
    const listed = [...README.matchAll(/^\| `([a-z-]+)` \|/gm)].map((m) => m[1]).sort();
    const topics = readFileSync(new URL('../../src/help-topics/topics.ts', import.meta.url), 'utf8');
    const names = [...topics.matchAll(/name: '([a-z-]+)'/g)].map((m) => m[1]).sort();
    expect(listed).toEqual(names);
  });
});
