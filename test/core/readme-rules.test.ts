// The README states three rules once (issue 44): the exit codes, the keychain bound and the
// mode rule. Each is checked against the code it describes here; what they promise is tested
// through the real path elsewhere (test/core/stuck-keychain.test.ts, test/core/mode-rule.test.ts).
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { EXIT } from '../../src/errors.js';
import { KEYCHAIN_TIMEOUT_MS } from '../../src/credentials/store.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe("the README's rules", () => {
  it('the exit-code table has one row per code svc exits with, and no other', () => {
    const table = README.slice(README.indexOf('## Exit codes'));
    const codes = [...table.slice(0, table.indexOf('\n## ')).matchAll(/^\| (\d+) +\|/gm)].map((match) => Number(match[1]));
    expect(codes).toEqual(Object.values(EXIT));
  });

  it('states the keychain bound once, as the code has it', () => {
    const stated = [...README.matchAll(/Every keychain call is limited to (\d+) s/g)];
    expect(stated).toHaveLength(1);
    expect(Number(stated[0]![1]) * 1000).toBe(KEYCHAIN_TIMEOUT_MS);
  });

  it('states the mode rule once', () => {
    expect(README.split('**The mode rule.**')).toHaveLength(2);
    expect(README).toContain('changes only with `svc mode test|live`');
  });
});
