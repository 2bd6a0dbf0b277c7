// `svc translate` fed by stdin as an attacker would feed it, the bundled program spawned
// against the emulator: an endless stdin is refused having read only the limit's worth, a
// line that never ends stops --lines, and --lines splits at "\n" alone, so its output
// matches the input line for line (README "Translate").
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { spawnCollect, svcPath, svcShellWords } from '../helpers/spawn.js';

let emulator: RunningEmulator;
let configDir: string;

beforeAll(async () => {
  emulator = await startTestEmulator();
  configDir = mkdtempSync(join(tmpdir(), 'svc-translate-stdin-'));
});

afterAll(async () => {
  await emulator?.close();
  rmSync(configDir, { recursive: true, force: true });
});

/**
 * `feed | svc args…` in a shell, svc's exit status on stderr's last line. A reader that keeps
 * what it reads must not fill the machine: the heap is held small, and `timeout` kills svc
 * (status 137, a failure here) should it never end.
 */
async function piped(feed: string, args: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const ran = await spawnCollect('bash', ['-c', `${feed} | timeout -s KILL 20 ${svcShellWords()} ${args}; echo "svc-exit=\${PIPESTATUS[-1]}" >&2`], {
    env: {
      PATH: svcPath(),
      HOME: configDir,
      SVC_CONFIG_DIR: join(configDir, 'config'),
      SVC_BASE_URL: emulator.url,
      SVC_API_KEY: emulator.seed.keys.test,
      NODE_OPTIONS: '--max-old-space-size=96',
    },
  });
  const [, stderr = ran.stderr, code = '-1'] = ran.stderr.match(/^([\s\S]*)svc-exit=(\d+)\n$/) ?? [];
  return { code: Number(code), stdout: ran.stdout, stderr };
}

// (Each case's bound is past `timeout`'s, so a svc that never ends fails on its status.)
describe('translate reading an untrusted stdin', { timeout: 30_000 }, () => {
  it('an endless stdin is refused as over the limit, with the way forward, and svc ends', async () => {
    const ran = await piped(`yes 'hello there'`, 'translate --to de');
    expect(ran.code, ran.stderr).toBe(2);
    expect(ran.stderr).toContain('more than 5,000 characters long; the limit is 5,000');
    expect(ran.stderr).toContain('svc translate --lines --to de');
    expect(ran.stdout).toBe('');
  });

  it('an endless stdin of one line with no newline is refused saying to split it', async () => {
    const ran = await piped(`yes 'hello there' | tr -d '\\n'`, 'translate --to de');
    expect(ran.code, ran.stderr).toBe(2);
    expect(ran.stderr).toContain('the limit is 5,000');
    expect(ran.stderr).toMatch(/split it into parts of at most 5,000 characters/);
  });

  it('chats send, which reads its text as translate does, refuses an endless stdin the same way, sending nothing', async () => {
    const ran = await piped(`yes 'hello there'`, 'chats send chat_Q3vX8kTz1mLp9RbW2cYd');
    expect(ran.code, ran.stderr).toBe(2);
    expect(ran.stderr).toContain('the message text is more than 5,000 characters long; the limit is 5,000');
  });

  it('a text just within the limit, in four-byte characters and a CRLF, is still translated whole', async () => {
    // This test's own Node writes the text: the standalone suite's PATH has no node.
    const ran = await piped(`'${process.execPath}' -e "process.stdout.write('\\u{1F600}'.repeat(5000) + '\\r\\n')"`, 'translate --to de --json');
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout).characters).toBe(5000);
  });

  it('--lines: a line that never ends stops svc (exit 2) after the lines before it', async () => {
    const ran = await piped(`{ printf 'one\\ntwo\\n'; yes 'hello there' | tr -d '\\n'; }`, 'translate --to de --lines');
    expect(ran.code, ran.stderr).toBe(2);
    expect(ran.stdout).toBe('[de] one\n[de] two\n');
    expect(ran.stderr).toContain('line 3');
    expect(ran.stderr).toContain('the limit is 5,000');
  });

  it('--lines splits at "\\n" alone: a lone "\\r" stays in its line, one before "\\n" is dropped', async () => {
    const ran = await piped(`printf 'a\\tb\\nc\\rd\\n\\ne\\r\\n'`, 'translate --to de --lines --json');
    expect(ran.code, ran.stderr).toBe(0);
    const texts = ran.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line).text);
    expect(texts).toEqual(['[de] a\tb', '[de] c\rd', '', '[de] e']);
  });
});
