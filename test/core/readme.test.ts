// The README's command blocks marked ```sh runnable``` are run, in order and in one config
// folder, against the emulator (issue 32: "Try it against the emulator" failed at its third
// step and nothing noticed). Each line is one `svc …` command: `svc emulator` is the test's
// own emulator (its address in SVC_BASE_URL), the sign-in is answered by a scripted admin,
// and `svc keys add` is given the seeded test key the emulator prints. Every line exits 0.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aptMachine, aptProblem, standInDeb } from '../helpers/apt.js';
import { blockLines } from '../helpers/doc-blocks.js';
import { signRelease } from '../helpers/release.js';
import { root, spawnCollect } from '../helpers/spawn.js';
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

const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const releasedDeb = join(root, 'release', version, `svc_${version}_amd64.deb`);
const problem = aptProblem(['apt-get', 'gpg', 'dpkg-deb', 'wget']);
const required = process.env.SVC_REQUIRE_REAL === '1';
const which = existsSync(releasedDeb) ? `npm run dist's .deb` : 'a stand-in .deb (no npm run dist yet)';

/** Serves the files under `dir` over http on 127.0.0.1 (the published https address's stand-in). */
async function fileServer(dir: string): Promise<{ url: string; close: () => void }> {
  const server = createServer((req, res) => {
    const path = resolve(dir, `.${decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)}`);
    if (!path.startsWith(`${dir}/`) || !existsSync(path) || !statSync(path).isFile()) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-length': statSync(path).size }).end(readFileSync(path));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => (server.closeAllConnections(), server.close()) };
}

/**
 * Runs `lines` as an admin types them, under umask 077, on a throwaway machine whose apt checks
 * signatures as `_apt` and which has no etc/apt/keyrings/ yet (Debian 11, Ubuntu 20.04). The
 * only changes: the published address is the test's server, /etc/apt/ is the machine's, and
 * `sudo` is a stand-in that runs the command (the test is root, and sudo keeps a 077 umask).
 * Resolves to the first line that failed (with its output), or null once svc is installed.
 */
async function runAptBlock(lines: string[]): Promise<string | null> {
  const scratch = mkdtempSync(join(tmpdir(), 'svc-readme-apt-'));
  chmodSync(scratch, 0o755); // the repository is read by _apt, as a web server's files are
  const repo = join(scratch, 'repo');
  const served = await fileServer(repo);
  try {
    const machine = aptMachine(scratch, { sandboxed: true, keyrings: false });
    const deb = existsSync(releasedDeb) ? releasedDeb : standInDeb(scratch, version);
    const keyring = `${machine.dir}/etc/apt/keyrings/svc-archive-keyring.gpg`;
    const built = spawnSync(process.execPath, [join(root, 'scripts/apt-repo.mjs'), '--repo', repo, '--url', served.url, '--keyring-path', keyring, deb], {
      encoding: 'utf8',
      env: { ...process.env, SVC_SIGNING_KEY: '' },
    });
    expect(built.status, built.stderr).toBe(0);
    chmodSync(repo, 0o755);
    const tools = join(scratch, 'bin');
    mkdirSync(tools);
    writeFileSync(join(tools, 'sudo'), '#!/bin/sh\nexec "$@"\n', { mode: 0o755 });
    const env = { ...machine.env, PATH: `${tools}:${process.env.PATH ?? ''}` };
    for (const line of lines) {
      const adapted = line.replaceAll('https://svc-cli.dev/apt', served.url).replaceAll('/etc/apt/', `${machine.dir}/etc/apt/`);
      const ran = await spawnCollect('sh', ['-c', `umask 077\n${adapted}`], { env });
      if (ran.code !== 0 || /^[WE]:/m.test(ran.stdout + ran.stderr)) return `${line}\n${ran.stdout}${ran.stderr}`;
    }
    const installed = spawnSync(machine.svc, ['--version'], { encoding: 'utf8' });
    return installed.stdout === `${version}\n` ? null : `svc --version: ${installed.stdout}${installed.stderr}`;
  } finally {
    served.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

describe.skipIf(problem !== null && !required)(`the README's apt lines${problem && !required ? ` (skipped: ${problem})` : ''}`, () => {
  it(`run word for word under umask 077, with no /etc/apt/keyrings, apt checking as _apt: svc installs from a fresh repository (${which})`, async () => {
    expect(problem).toBeNull();
    const lines = blockLines(README, 'apt-repository');
    expect(lines.join('\n')).toContain('apt-get install svc');
    expect(await runAptBlock(lines)).toBeNull();
  }, 120_000);

  it('would fail as the lines were before issue 50: a keyring curl wrote under umask 077 is not read by _apt, and without /etc/apt/keyrings curl cannot write it', async () => {
    expect(problem).toBeNull();
    const before = [
      'sudo curl -fsSLo /etc/apt/keyrings/svc-archive-keyring.gpg https://svc-cli.dev/apt/svc-archive-keyring.gpg',
      'sudo curl -fsSLo /etc/apt/sources.list.d/svc.sources https://svc-cli.dev/apt/svc.sources',
      'sudo apt-get update && sudo apt-get install svc',
    ];
    expect(await runAptBlock(before)).toMatch(/curl: \(23\)/);
    expect(await runAptBlock(['sudo mkdir -p /etc/apt/keyrings', ...before])).toMatch(/NO_PUBKEY|not signed/);
  }, 120_000);
});

describe.skipIf(spawnSync('gpg', ['--version']).error !== undefined || spawnSync('wget', ['--version']).error !== undefined)(
  "the README's lines that verify a download",
  () => {
    it('check SHA256SUMS.asc against the repository keyring, then the files against SHA256SUMS; a changed file, changed sums or another key fail', async () => {
      const lines = blockLines(README, 'verify-sums');
      expect(lines.join('\n')).toMatch(/gpg [^\n]*--verify SHA256SUMS\.asc SHA256SUMS\n[^]*sha256sum -c/);
      const scratch = mkdtempSync(join(tmpdir(), 'svc-readme-sums-'));
      const site = join(scratch, 'site');
      const served = await fileServer(site);
      try {
        /** A download folder signed by a throwaway key of its own; its keyring is what the site publishes. */
        const release = (name: string) => {
          const folder = join(scratch, name);
          mkdirSync(folder);
          for (const file of [`svc-${version}-linux-x64`, `svc-${version}-linux-x64.tar.gz`]) writeFileSync(join(folder, file), `the bytes of ${file}\n`);
          const signed = signRelease(folder, { ...process.env, SVC_SIGNING_KEY: '' });
          expect(signed.status, signed.stderr).toBe(0);
          return folder;
        };
        const user: NodeJS.ProcessEnv = { ...process.env, HOME: mkdtempSync(join(scratch, 'home-')) };
        delete user.GNUPGHOME;
        const run = async (folder: string) => {
          rmSync(join(folder, 'svc-archive-keyring.gpg'), { force: true });
          for (const line of lines) {
            const ran = await spawnCollect('sh', ['-c', line.replaceAll('https://svc-cli.dev/apt', served.url)], { env: user, cwd: folder });
            if (ran.code !== 0) return `${line}\n${ran.stdout}${ran.stderr}`;
          }
          return null;
        };
        const good = release('good');
        mkdirSync(site);
        cpSync(join(good, 'svc-archive-keyring.gpg'), join(site, 'svc-archive-keyring.gpg'));
        expect(await run(good)).toBeNull();

        const changedFile = join(scratch, 'changed-file');
        cpSync(good, changedFile, { recursive: true });
        writeFileSync(join(changedFile, `svc-${version}-linux-x64`), 'not the bytes that were signed\n');
        expect(await run(changedFile)).toMatch(/^sha256sum -c[^]*FAILED/);

        const changedSums = join(scratch, 'changed-sums');
        cpSync(good, changedSums, { recursive: true });
        writeFileSync(
          join(changedSums, 'SHA256SUMS'),
          readFileSync(join(good, 'SHA256SUMS'), 'utf8').replace(/^[0-9a-f]/, (c) => (c === '0' ? '1' : '0')),
        );
        expect(await run(changedSums)).toMatch(/^gpg [^]*BAD signature/);

        const otherKey = release('other-key');
        expect(await run(otherKey)).toMatch(/^gpg [^]*(No public key|public key not found)/);
      } finally {
        served.close();
        rmSync(scratch, { recursive: true, force: true });
      }
    }, 120_000);
  },
);
