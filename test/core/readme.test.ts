// The README's command blocks marked ```sh runnable``` are run, in order and in one config
// folder, against the emulator (issue 32: "Try it against the emulator" failed at its third
// step and nothing noticed). Each line is one `svc …` command: `svc emulator` is the test's
// own emulator (its address in SVC_BASE_URL), the sign-in is answered by a scripted admin,
// and `svc keys add` is given the seeded test key the emulator prints. Every line exits 0.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { envFor, scriptedBrowser } from '../auth/support.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The command lines of the runnable blocks, comments dropped, in README order. */
export function runnableLines(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^```sh runnable\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  return blocks.flatMap((block) =>
    block
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter((line) => line !== ''),
  );
}

/** Shell words: spaces split, single or double quotes group (all the README's lines use). */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
});
afterAll(async () => {
  await emulator?.close();
});

describe('the README runs as written', () => {
  const lines = runnableLines(README);

  it('finds the runnable blocks (the "Try it" steps among them)', () => {
    expect(lines.slice(0, 4)).toEqual(['svc emulator', 'svc login', 'svc keys add', 'svc calls start --languages en,es --test']);
  });

  it('every line of them succeeds against the emulator', async () => {
    const configDir = tempConfigDir();
    const secrets = new MemorySecretStore();
    const failures: string[] = [];
    for (const line of lines) {
      const [svc, ...argv] = words(line);
      expect(svc, line).toBe('svc');
      if (argv[0] === 'emulator') continue; // the emulator of this test
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
