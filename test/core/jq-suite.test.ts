// jq's own test file (test/fixtures/jq/jq.test: jq 1.7.1's, the jq svc bundles) run through
// svc's --jq as a command runs it (src/io/jq-filter.ts: the check, the plain-path answer, jq),
// over each case's input written as a command writes its answer. For every case:
// - jq, run alone (the bundled jq-wasm's own command line, `jq -r PROGRAM`), gives the case's
//   expected values, compared as jq's own test runner compares them (src/jq_test.c);
// - svc prints jq's bytes, nothing trimmed, writes jq's words on stderr and ends with jq's
//   exit status, whoever answered (a plain path is answered without jq);
// - a program that must not compile is refused by svc's check, with jq's message;
// - where Debian's jq 1.6 (/usr/bin/jq) prints the same, byte for byte, so does svc.
// The cases jq-wasm cannot pass are listed with their reasons (SKIPPED); nothing else is left out.
import { describe, expect, it } from 'vitest';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { checkFilter, plainPath } from '../../src/io/jq-filter.js';
import { JqFailedError, UsageError } from '../../src/errors.js';

interface Case {
  line: number;
  program: string;
  /** For a program that must not compile: jq's message, or undefined when jq's runner ignores it. */
  fails?: { message: string | undefined };
  input: string;
  expected: string[];
}

/** The cases of jq.test, read as src/jq_test.c reads them. */
function readCases(text: string): Case[] {
  const lines = text.split('\n');
  const cases: Case[] = [];
  const skip = (line: string) => line.trim() === '' || line.startsWith('#');
  let at = 0;
  let fails: Case['fails'];
  while (at < lines.length) {
    const line = lines[at++]!;
    if (skip(line)) continue;
    if (line.startsWith('%%FAIL')) {
      fails = { message: line.includes('IGNORE MSG') ? undefined : '' };
      continue;
    }
    const start = at;
    if (fails) {
      const message = lines[at++]!;
      cases.push({ line: start, program: line, fails: { message: fails.message === undefined ? undefined : message }, input: '', expected: [] });
      fails = undefined;
      continue;
    }
    const input = lines[at++]!;
    const expected: string[] = [];
    while (at < lines.length && !skip(lines[at]!)) expected.push(lines[at++]!);
    cases.push({ line: start, program: line, input, expected });
  }
  return cases;
}

const CASES = readCases(readFileSync(new URL('../fixtures/jq/jq.test', import.meta.url), 'utf8'));

/** Cases jq-wasm's build cannot pass, by their program's line in jq.test, with why. */
const MODULES = "imports jq's test modules, which jq's runner finds with `-L tests/modules`: svc's --jq takes no -L (nor has jq's test folder)";
const SKIPPED: Record<number, string> = {
  1584: MODULES,
  1588: MODULES,
  1592: MODULES,
  1596: MODULES,
  1601: MODULES,
  1605: MODULES,
  1609: MODULES,
  1613: MODULES,
  1641: `${MODULES}: modulemeta reads them`,
  1645: `${MODULES}: modulemeta reads them`,
  1649: `${MODULES}: modulemeta reads them`,
  1661: MODULES,
};

interface Ran {
  stdout: string;
  stderr: string;
  status: number;
}

/** The case through svc's --jq: checked, then filtering the input as a command's answer (a JSON text and its newline). */
async function throughSvc(program: string, input: string): Promise<Ran | { refused: string }> {
  let checked;
  try {
    checked = await checkFilter(program, {});
  } catch (error) {
    if (error instanceof UsageError) return { refused: error.message };
    throw error;
  }
  let stdout = '';
  let stderr = '';
  const filtered = checked.output({ isTTY: false, write: (text) => void (stdout += text) }, { isTTY: false, write: (text) => void (stderr += text) });
  filtered.write(`${input}\n`);
  try {
    await filtered.settled();
    return { stdout, stderr, status: 0 };
  } catch (error) {
    if (error instanceof JqFailedError) return { stdout, stderr, status: error.status };
    throw error;
  }
}

const jq = await ((await import('jq-wasm')) as unknown as { start(env: object): Promise<{ run(input: string, args: string[]): Promise<Ran> }> }).start({});

/** jq's equality (jv_equal): numbers by value, objects whatever their keys' order. */
function jvEqual(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => jvEqual(item, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && jvEqual((a as never)[key], (b as never)[key]));
  }
  return a === b;
}

/** What jq alone gives: its results as values (`-c`, one a line), as jq's runner takes them. */
async function valuesOf(program: string, input: string): Promise<unknown[]> {
  const ran = await jq.run(`${input}\n`, ['-c', program]);
  return ran.stdout === ''
    ? []
    : ran.stdout
        .replace(/\n$/, '')
        .split('\n')
        .map((line) => JSON.parse(line) as unknown);
}

describe("jq's own test file, through svc's --jq", () => {
  it('reads every case of the file', () => {
    expect(CASES.length).toBeGreaterThan(440);
    expect(CASES.filter((c) => c.fails).length).toBeGreaterThan(10);
    // (Some are plain paths, which svc answers without jq when it can.)
    expect(CASES.filter((c) => !c.fails && plainPath(c.program)).length).toBeGreaterThan(3);
  });

  it("every case jq passes, svc passes: jq's values, jq's bytes, jq's words and exit status", async () => {
    const failures: string[] = [];
    for (const c of CASES) {
      if (c.fails || SKIPPED[c.line]) continue;
      const name = `line ${c.line}: ${c.program}`;
      const expected = c.expected.map((line) => JSON.parse(line) as unknown);
      const values = await valuesOf(c.program, c.input);
      // jq's runner: the expected results, in order (an error after them ends the program).
      if (!(values.length === expected.length && values.every((value, i) => jvEqual(value, expected[i])))) {
        failures.push(`${name}: jq gives ${JSON.stringify(values)}`);
        continue;
      }
      const alone = await jq.run(`${c.input}\n`, ['-r', c.program]);
      const svc = await throughSvc(c.program, c.input);
      if ('refused' in svc) failures.push(`${name}: svc refused it: ${svc.refused}`);
      else if (svc.stdout !== alone.stdout || svc.stderr !== alone.stderr || svc.status !== alone.status)
        failures.push(`${name}: svc ${JSON.stringify(svc)}, jq ${JSON.stringify(alone)}`);
    }
    expect(failures).toEqual([]);
  });

  it("every program that must not compile is refused before anything runs, with jq's message", async () => {
    const failures: string[] = [];
    for (const c of CASES.filter((c) => c.fails)) {
      if (SKIPPED[c.line]) continue;
      const svc = await throughSvc(c.program, 'null');
      if (!('refused' in svc)) failures.push(`line ${c.line}: ${c.program}: svc ran it`);
      else if (c.fails!.message !== undefined && !c.fails!.message.includes(svc.refused.replace(/^--jq: the filter does not compile: /, '')))
        failures.push(`line ${c.line}: ${c.program}: svc said ${svc.refused}, jq ${c.fails!.message}`);
    }
    expect(failures).toEqual([]);
  });

  it('lists each skipped case with its reason, and each is a case of the file', () => {
    for (const [line, reason] of Object.entries(SKIPPED)) {
      expect(
        CASES.some((c) => c.line === Number(line)),
        line,
      ).toBe(true);
      expect(reason.length, line).toBeGreaterThan(10);
    }
  });

  it.skipIf(!existsSync('/usr/bin/jq'))(
    "where Debian's jq 1.6 prints what jq 1.7.1 prints, byte for byte and exit for exit, svc does too",
    async () => {
      expect(execFileSync('/usr/bin/jq', ['--version'], { encoding: 'utf8' })).toMatch(/^jq-1\.6/);
      const cases = CASES.filter((c) => !c.fails && !SKIPPED[c.line]);
      // jq 1.6, a process per case, a few at a time (its `index("")` never ends: the time limit ends it, and it agrees on nothing).
      const debian = new Map<Case, { stdout: string; status: number | null }>();
      const next = cases.values();
      const worker = async () => {
        for (const c of next) {
          debian.set(
            c,
            await new Promise((resolve) => {
              const child = execFile('/usr/bin/jq', ['-r', c.program], { encoding: 'utf8', timeout: 5_000 }, (error, stdout) =>
                resolve({ stdout, status: error ? ((error as { code?: unknown }).code as number | null) : 0 }),
              );
              // jq 1.6 may end before it reads (a program it refuses): its closed pipe is no failure here.
              child.stdin!.on('error', () => {});
              child.stdin!.end(`${c.input}\n`);
            }),
          );
        }
      };
      await Promise.all([worker(), worker(), worker()]);
      let agreed = 0;
      const failures: string[] = [];
      for (const c of cases) {
        const old = debian.get(c)!;
        const alone = await jq.run(`${c.input}\n`, ['-r', c.program]);
        if (old.stdout !== alone.stdout || old.status !== alone.status) continue;
        agreed++;
        const svc = await throughSvc(c.program, c.input);
        if ('refused' in svc || svc.stdout !== old.stdout || svc.status !== old.status)
          failures.push(`line ${c.line}: ${c.program}: svc ${JSON.stringify(svc)}`);
      }
      expect(failures).toEqual([]);
      expect(agreed).toBeGreaterThan(200);
    },
    120_000,
  );
});
