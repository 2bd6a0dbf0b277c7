// The help topics (docs/topics/*.md, `svc help <topic>`, svc-<topic>(7)): what they state is
// held to the code. Their runnable blocks run against the emulator as the README's do; every
// other `svc …` line of their shell blocks names a command and flags svc has; the environment
// topic names every SVC_ variable the sources read; the exit-code table is src/errors.ts's and
// src/error-codes.ts's. (The generated files' drift: test/core/man.test.ts.)
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { ERROR_CODES } from '../../src/error-codes.js';
import { EXIT } from '../../src/errors.js';
import { KEYCHAIN_TIMEOUT_MS } from '../../src/credentials/store.js';
import { TOPICS } from '../../src/help-topics/topics.js';
import { envFor, scriptedBrowser } from '../auth/support.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { runnableLines, svcLineProblems, words } from '../helpers/doc-blocks.js';
import { root } from '../helpers/spawn.js';

const dir = join(root, 'docs/topics');
const topic = (name: string) => readFileSync(join(dir, `${name}.md`), 'utf8');
const names = readdirSync(dir)
  .filter((file) => file.endsWith('.md'))
  .map((file) => file.slice(0, -3))
  .sort();

describe('svc help <topic>', () => {
  it('has the topics a newcomer looks for, each listed for help and completion', () => {
    for (const wanted of ['environment', 'exit-codes', 'formatting', 'modes', 'secrets', 'mcp', 'emulator', 'proxies', 'troubleshooting'])
      expect(names).toContain(wanted);
    expect(TOPICS.map((t) => t.name)).toEqual(names);
    const bash = readFileSync(join(root, 'dist/completions/svc.bash'), 'utf8');
    expect(bash).toContain(`'help|#arg') echo '${names.join(' ')}' ;;`);
  });

  it('prints the topic wrapped to the terminal, 80 columns at most', async () => {
    const wide = await runCli(['help', 'modes'], { columns: 200 });
    expect(wide.exitCode).toBe(0);
    expect(wide.stdout).toMatch(/^svc help modes: test and live mode/);
    expect(wide.stdout).toContain('An OAuth sign-in (svc login) is always live');
    const prose = (text: string) => text.split('\n').filter((line) => !line.startsWith('    '));
    expect(Math.max(...prose(wide.stdout).map((line) => line.length))).toBeLessThanOrEqual(80);
    const narrow = await runCli(['help', 'environment'], { columns: 50 });
    for (const line of prose(narrow.stdout)) if (line.trim().includes(' ')) expect(line.length, line).toBeLessThanOrEqual(50);
    expect(narrow.stdout).toContain('SVC_HTTP_TIMEOUT');
  });

  it('a word that is a command and a topic prints the topic; the command keeps its --help', async () => {
    expect((await runCli(['help', 'mcp'])).stdout).toMatch(/^svc help mcp: /);
    expect((await runCli(['mcp', '--help'])).stdout).toMatch(/^Usage: svc mcp/);
    expect((await runCli(['help', 'calls', 'list'])).stdout).toMatch(/^Usage: svc calls list/);
    const unknown = await runCli(['help', 'enviroment']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('run `svc --help` for the commands and the help topics');
  });
});

describe('what the topics state', () => {
  it('environment names every SVC_ variable the sources read', () => {
    const sources = readdirSync(join(root, 'src'), { recursive: true })
      .map(String)
      .filter((file) => /\.tsx?$/.test(file) && !file.startsWith('help-topics/'))
      .map((file) => readFileSync(join(root, 'src', file), 'utf8'))
      .join('\n');
    // __SVC_VERSION__ and __SVC_INSTALL__ are the build's constants, not variables.
    const read = new Set([...sources.matchAll(/(?<![_A-Z])SVC_[A-Z0-9_]*[A-Z0-9](?!_)/g)].map((m) => m[0]));
    expect(read.size).toBeGreaterThan(8);
    const table = topic('environment');
    for (const name of read) expect(table, name).toMatch(new RegExp(`^\\| \`${name}\``, 'm'));
  });

  it('exit-codes has one row per code svc exits with, each naming its error codes and their statuses', () => {
    const text = topic('exit-codes');
    const rows = text.split('\n').filter((line) => /^\| \d+ /.test(line));
    expect(rows.map((row) => Number(/^\| (\d+)/.exec(row)![1]))).toEqual(Object.values(EXIT));
    for (const [code, { exit, statuses }] of Object.entries(ERROR_CODES)) {
      const row = rows.find((line) => line.startsWith(`| ${exit} `));
      expect(row, `exit ${exit}`).toContain(`\`${code}\``);
      for (const status of statuses) expect(row, `${code}'s ${status}`).toContain(String(status));
    }
  });

  it('modes states the mode rule once, and formatting names livemode', () => {
    expect(topic('modes').split('**The mode rule.**')).toHaveLength(2);
    expect(topic('modes')).toContain('changes only with `svc mode test|live`');
    expect(topic('formatting')).toMatch(/^\| `livemode` \|/m);
  });

  it('secrets states the keychain bound once, as the code has it', () => {
    const stated = [
      ...names
        .map(topic)
        .join('\n')
        .matchAll(/Every keychain call is limited to (\d+) s/g),
    ];
    expect(stated).toHaveLength(1);
    expect(Number(stated[0]![1]) * 1000).toBe(KEYCHAIN_TIMEOUT_MS);
  });

  it("no code line is wider than 72 columns (the man page's indent and a terminal's 80)", () => {
    for (const name of names) {
      const code = [...topic(name).matchAll(/^```[^\n]*\n([\s\S]*?)^```$/gm)].flatMap((m) => m[1]!.split('\n'));
      expect(
        code.filter((line) => line.length > 72),
        name,
      ).toEqual([]);
    }
  });

  it('no topic cites an issue or a test file', () => {
    for (const name of names) expect(topic(name), name).not.toMatch(/\bissue \d+|\btest\/\w/);
  });
});

describe('the topics run as written', () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
  });
  afterAll(async () => {
    await emulator?.close();
  });

  it('every `svc …` line of their shell blocks names a command and flags svc has', () => {
    expect(names.flatMap((name) => svcLineProblems(topic(name)).map((problem) => `${name}: ${problem}`))).toEqual([]);
  });

  it.each(names.filter((name) => runnableLines(topic(name)).length))('%s: every runnable line succeeds against the emulator', async (name) => {
    const configDir = tempConfigDir();
    const secrets = new MemorySecretStore();
    const failures: string[] = [];
    for (const line of runnableLines(topic(name))) {
      const [svc, ...argv] = words(line);
      expect(svc, line).toBe('svc');
      if (argv[0] === 'emulator') continue;
      const r = await runCli(argv, {
        configDir,
        secrets,
        env: envFor(emulator),
        browser: scriptedBrowser(emulator),
        stdin: argv[0] === 'keys' && argv[1] === 'add' ? `${emulator.seed.keys.test}\n` : '',
      });
      if (r.exitCode !== 0) failures.push(`${line}: exit ${r.exitCode}: ${r.stderr.trim()}`);
    }
    expect(failures).toEqual([]);
  });
});
