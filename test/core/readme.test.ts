// The README's command blocks marked ```sh runnable``` are run, in order and in one config
// folder, against the emulator (issue 32: "Try it against the emulator" failed at its third
// step and nothing noticed). Each line is one `svc …` command: `svc emulator` is the test's
// own emulator (its address in SVC_BASE_URL), the sign-in is answered by a scripted admin,
// and `svc keys add` is given the seeded test key the emulator prints. Every line exits 0.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aptMachine, aptProblem, standInDeb } from '../helpers/apt.js';
import { root } from '../helpers/spawn.js';
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

/** The lines of the README's block marked ```sh NAME```. */
function blockLines(markdown: string, name: string): string[] {
  const block = new RegExp(`^\`\`\`sh ${name}\n([\\s\\S]*?)^\`\`\`$`, 'm').exec(markdown)?.[1] ?? '';
  return block.split('\n').filter((line) => line.trim() !== '');
}

const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const releasedDeb = join(root, 'release', `svc_${version}_amd64.deb`);
const problem = aptProblem(['apt-get', 'gpg', 'dpkg-deb', 'curl']);

const required = process.env.SVC_REQUIRE_REAL === '1';
const which = existsSync(releasedDeb) ? `npm run dist's .deb` : 'a stand-in .deb (no npm run dist yet)';
describe.skipIf(problem !== null && !required)(`the README's apt lines${problem && !required ? ` (skipped: ${problem})` : ''}`, () => {
  it(`add a freshly built repository (scripts/apt-repo.mjs, ${which}) and install svc from it, on a throwaway root`, () => {
    expect(problem).toBeNull();
    const lines = blockLines(README, 'apt-repository');
    expect(lines).toHaveLength(3);
    const scratch = mkdtempSync(join(tmpdir(), 'svc-readme-apt-'));
    try {
      const machine = aptMachine(scratch);
      const repo = join(scratch, 'repo');
      const deb = existsSync(releasedDeb) ? releasedDeb : standInDeb(scratch, version);
      const keyring = `${machine.dir}/etc/apt/keyrings/svc-archive-keyring.gpg`;
      const built = spawnSync(process.execPath, [join(root, 'scripts/apt-repo.mjs'), '--repo', repo, '--url', `file:${repo}`, '--keyring-path', keyring, deb], {
        encoding: 'utf8',
        env: { ...process.env, SVC_SIGNING_KEY: '' },
      });
      expect(built.status, built.stderr).toBe(0);
      expect(built.stderr).toContain('signed with a throwaway key made for this build');
      // As typed, but: no sudo (the test's root is its own), the published address a file: one, /etc/apt/ the root's.
      for (const line of lines) {
        const adapted = line
          .replace(/\bsudo /g, '')
          .replaceAll('https://svc-cli.dev/apt', `file://${repo}`)
          .replaceAll('/etc/apt/', `${machine.dir}/etc/apt/`);
        const ran = spawnSync('sh', ['-c', adapted], { env: machine.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
        expect(ran.status, `${line}\n${ran.stdout}${ran.stderr}`).toBe(0);
        expect(ran.stderr, line).not.toMatch(/^[WE]:/m);
      }
      expect(spawnSync(machine.svc, ['--version'], { encoding: 'utf8' }).stdout).toBe(`${version}\n`);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 60_000);
});
