// The README's command blocks marked ```sh runnable``` are run, in order and in one config
// folder, against the emulator (issue 32: "Try it against the emulator" failed at its third
// step and nothing noticed). Each line is one `svc …` command: `svc emulator` is the test's
// own emulator (its address in SVC_BASE_URL), the sign-in is answered by a scripted admin,
// and `svc keys add` is given the seeded test key the emulator prints. Every line exits 0.
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aptMachine, aptProblem, standInDeb } from '../helpers/apt.js';
import { blockLines, runnableLines, words } from '../helpers/doc-blocks.js';
import { signRelease } from '../helpers/release.js';
import { root, spawnCollect } from '../helpers/spawn.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { envFor, scriptedBrowser } from '../auth/support.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
/** The admins' install page, whose apt and download-check blocks run here as written. */
const INSTALL = readFileSync(new URL('../../docs/install.md', import.meta.url), 'utf8');

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
    expect(lines.slice(0, 4)).toEqual(['svc emulator', 'svc login', 'svc keys add', 'svc mode test']);
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
      env: { ...process.env, SVC_SIGNING_KEY: '', SVC_THROWAWAY_KEY: '1' },
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
    const lines = blockLines(INSTALL, 'apt-repository');
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

/** gpg in the GNUPGHOME `home`, never the machine's. */
const gpgIn = (home: string, ...args: string[]) =>
  spawnSync('gpg', ['--batch', '--no-tty', '--quiet', ...args], { env: { ...process.env, GNUPGHOME: home }, encoding: 'utf8' });

/** The GNUPGHOMEs made here: their gpg-agents are stopped before a test removes its folder. */
const gnupgHomes: string[] = [];
function removeWithAgents(scratch: string): void {
  for (const home of gnupgHomes.filter((h) => h.startsWith(scratch)))
    spawnSync('gpgconf', ['--kill', 'gpg-agent'], { env: { ...process.env, GNUPGHOME: home } });
  rmSync(scratch, { recursive: true, force: true });
}

/** A passphrase-less Ed25519 key made at `at` (seconds) in a GNUPGHOME of its own: its home and fingerprint. */
function keyAt(parent: string, at: number, expires = 'never'): { home: string; fingerprint: string } {
  const home = mkdtempSync(join(parent, 'gnupg-'));
  gnupgHomes.push(home);
  const made = gpgIn(
    home,
    '--faked-system-time',
    `${at}!`,
    '--passphrase',
    '',
    '--quick-gen-key',
    'svc archive (test) <test@svc-cli.dev>',
    'ed25519',
    'sign',
    expires,
  );
  expect(made.status, made.stderr).toBe(0);
  return { home, fingerprint: /^fpr:+([0-9A-F]{40}):/m.exec(gpgIn(home, '--with-colons', '--list-secret-keys').stdout)![1]! };
}

/** apt-repo.mjs's publish() with the key given as it stands (no checks: the key may have expired since), at `epoch`. */
function publishSignedBy(repo: string, debs: string[], key: { home: string; fingerprint: string }, epoch: number, url: string, keyringPath: string): void {
  const code = `
    import { publish } from ${JSON.stringify(join(root, 'scripts/apt-repo.mjs'))};
    const [repo, home, fingerprint, epoch, url, keyringPath, ...debs] = process.argv.slice(1);
    publish({ repo, debs, epoch: Number(epoch), url, keyringPath, keys: { home, fingerprints: [fingerprint], passphrase: [], cleanup() {} } });
  `;
  const ran = spawnSync(process.execPath, ['--input-type=module', '-e', code, repo, key.home, key.fingerprint, String(epoch), url, keyringPath, ...debs], {
    encoding: 'utf8',
  });
  expect(ran.status, ran.stderr).toBe(0);
}

/** Runs a README block's lines as one script as root types them (`sudo` a stand-in), /etc/apt/ the machine's, the published address `url`. */
async function asAdmin(lines: string[], machine: { dir: string; env: NodeJS.ProcessEnv }, url: string) {
  const tools = mkdtempSync(join(machine.dir, 'bin-'));
  writeFileSync(join(tools, 'sudo'), '#!/bin/sh\nexec "$@"\n', { mode: 0o755 });
  const script = lines.join('\n').replaceAll('https://svc-cli.dev/apt', url).replaceAll('/etc/apt/', `${machine.dir}/etc/apt/`);
  const ran = await spawnCollect('sh', ['-c', script], {
    env: { ...machine.env, HOME: mkdtempSync(join(machine.dir, 'home-')), PATH: `${tools}:${process.env.PATH ?? ''}` },
  });
  return { code: ran.code, out: `${ran.stdout}${ran.stderr}` };
}

describe.skipIf(problem !== null && !required)(`the README's update and keyring refresh lines${problem && !required ? ` (skipped: ${problem})` : ''}`, () => {
  it('the update line fails loudly (exit 100, EXPKEYSIG) once the key in /etc/apt/keyrings has expired, where plain apt-get update exits 0 and upgrades nothing', async () => {
    expect(problem).toBeNull();
    const lines = blockLines(INSTALL, 'apt-upgrade');
    expect(lines.join('\n')).toContain('apt-get upgrade');
    const scratch = mkdtempSync(join(tmpdir(), 'svc-readme-expired-'));
    try {
      // The key was made 400 days ago, its expiry set to a year: it expired 35 days ago.
      const made = Math.floor(Date.now() / 1000) - 400 * 86_400;
      const key = keyAt(scratch, made);
      const exported = () => spawnSync('gpg', ['--batch', '--export', key.fingerprint], { env: { ...process.env, GNUPGHOME: key.home } }).stdout;
      const valid = exported();
      expect(gpgIn(key.home, '--faked-system-time', `${made + 60}!`, '--quick-set-expire', key.fingerprint, '1y').status).toBe(0);
      const expired = exported();
      const machine = aptMachine(scratch);
      const keyring = join(machine.dir, 'etc/apt/keyrings/svc-archive-keyring.gpg');
      const repo = join(scratch, 'repo');
      publishSignedBy(repo, [standInDeb(scratch, '0.0.1')], key, made + 86_400, `file:${repo}`, keyring);
      cpSync(join(repo, 'svc.sources'), join(machine.dir, 'etc/apt/sources.list.d/svc.sources'));
      // Installed while the key was valid.
      writeFileSync(keyring, valid);
      const first = machine.apt('update');
      expect(first.status, first.out).toBe(0);
      expect(machine.apt('install', '-y', 'svc').status).toBe(0);
      // A year on: the keyring's key has expired, and the next release is published.
      writeFileSync(keyring, expired);
      publishSignedBy(repo, [join(scratch, 'svc_0.0.1_amd64.deb'), standInDeb(scratch, '0.0.2')], key, made + 2 * 86_400, `file:${repo}`, keyring);
      const quiet = machine.apt('update');
      expect(quiet.status).toBe(0); // apt's default: a warning, and the old lists
      expect(quiet.out).toContain('EXPKEYSIG');
      const loud = await asAdmin(lines, machine, `file:${repo}`);
      expect(loud.code).toBe(100);
      expect(loud.out).toContain('EXPKEYSIG');
      expect(spawnSync(machine.svc, { encoding: 'utf8' }).stdout).toBe('0.0.1\n');
    } finally {
      removeWithAgents(scratch);
    }
  }, 120_000);

  it("the keyring refresh line installs a rotation's keyring signed by the key the machine trusts, and refuses an attacker's, leaving the keyring as it was", async () => {
    expect(problem).toBeNull();
    const lines = blockLines(INSTALL, 'apt-keyring-refresh');
    const scratch = mkdtempSync(join(tmpdir(), 'svc-readme-rotation-'));
    chmodSync(scratch, 0o755);
    const site = join(scratch, 'site');
    const served = await fileServer(site);
    try {
      const now = Math.floor(Date.now() / 1000);
      const old = keyAt(scratch, now - 86_400, '3y');
      const next = keyAt(scratch, now - 3_600, '3y');
      const secret = spawnSync('gpg', ['--batch', '--export-secret-keys', next.fingerprint], { env: { ...process.env, GNUPGHOME: next.home } }).stdout;
      expect(spawnSync('gpg', ['--batch', '--import'], { env: { ...process.env, GNUPGHOME: old.home }, input: secret }).status).toBe(0);
      const deb = standInDeb(scratch, '0.0.1');
      const aptRepo = (keys: string, ...extra: string[]) =>
        spawnSync(process.execPath, [join(root, 'scripts/apt-repo.mjs'), '--repo', site, ...extra, deb], {
          encoding: 'utf8',
          env: { ...process.env, GNUPGHOME: old.home, SVC_SIGNING_KEY: keys, SOURCE_DATE_EPOCH: String(now) },
        });
      expect(aptRepo(old.fingerprint).status).toBe(0);
      const machine = aptMachine(scratch);
      const keyring = join(machine.dir, 'etc/apt/keyrings/svc-archive-keyring.gpg');
      cpSync(join(site, 'svc-archive-keyring.gpg'), keyring);

      // An attacker's keyring, signed by the attacker's key: refused, the machine's keyring unchanged.
      const attacker = keyAt(scratch, now - 60, '3y');
      const trusted = readFileSync(keyring);
      const real = readFileSync(join(site, 'svc-archive-keyring.gpg'));
      const realSignature = readFileSync(join(site, 'svc-archive-keyring.gpg.asc'));
      writeFileSync(
        join(site, 'svc-archive-keyring.gpg'),
        spawnSync('gpg', ['--batch', '--export', attacker.fingerprint], { env: { ...process.env, GNUPGHOME: attacker.home } }).stdout,
      );
      rmSync(join(site, 'svc-archive-keyring.gpg.asc'));
      expect(
        gpgIn(
          attacker.home,
          '--local-user',
          attacker.fingerprint,
          '--armor',
          '--detach-sign',
          '--output',
          join(site, 'svc-archive-keyring.gpg.asc'),
          join(site, 'svc-archive-keyring.gpg'),
        ).status,
      ).toBe(0);
      const refused = await asAdmin(lines, machine, served.url);
      expect(refused.code).not.toBe(0);
      expect(readFileSync(keyring).equals(trusted)).toBe(true);
      writeFileSync(join(site, 'svc-archive-keyring.gpg'), real);
      writeFileSync(join(site, 'svc-archive-keyring.gpg.asc'), realSignature);

      // The rotation: publishing refuses the new key until the old one certifies it; then the refresh takes both keys.
      const uncertified = aptRepo(`${old.fingerprint} ${next.fingerprint}`);
      expect(uncertified.status).toBe(1);
      expect(uncertified.stderr).toMatch(/is not certified by the published key [^]*--quick-sign-key/);
      expect(gpgIn(old.home, '--local-user', old.fingerprint, '--quick-sign-key', next.fingerprint).status).toBe(0);
      expect(aptRepo(`${old.fingerprint} ${next.fingerprint}`).status).toBe(0);
      const refreshed = await asAdmin(lines, machine, served.url);
      expect(refreshed.code, refreshed.out).toBe(0);
      const listed = spawnSync('gpg', ['--batch', '--with-colons', '--show-keys', keyring], {
        encoding: 'utf8',
        env: { ...process.env, GNUPGHOME: mkdtempSync(join(scratch, 'gnupg-')) },
      }).stdout;
      expect(listed).toContain(old.fingerprint);
      expect(listed).toContain(next.fingerprint);
      // The new key alone from now on: the refreshed machine updates.
      expect(aptRepo(next.fingerprint, '--url', `file:${site}`, '--keyring-path', keyring).status).toBe(0);
      cpSync(join(site, 'svc.sources'), join(machine.dir, 'etc/apt/sources.list.d/svc.sources'));
      const updated = machine.apt('update');
      expect(updated.status, updated.out).toBe(0);
      expect(updated.out).not.toMatch(/^[WE]:/m);
    } finally {
      served.close();
      removeWithAgents(scratch);
    }
  }, 120_000);
});

describe.skipIf(spawnSync('gpg', ['--version']).error !== undefined || spawnSync('wget', ['--version']).error !== undefined)(
  "the README's command that verifies a download",
  () => {
    it('is one command: it exits 0 for a release signed by the key it names, and non-zero for a changed file, forged sums, another key, or a changed key fetched again', async () => {
      const block = blockLines(INSTALL, 'verify-sums').join('\n');
      expect(block).toMatch(/wget -nv -O svc-archive-keyring\.gpg [^\n]*&&\n[^]*--verify SHA256SUMS\.asc SHA256SUMS [^\n]*&&\n[^]*sha256sum -c/);
      const printed = /VALIDSIG \.\* ([0-9A-Z-]+)\$/.exec(block)![1]!;
      const scratch = mkdtempSync(join(tmpdir(), 'svc-readme-sums-'));
      const site = join(scratch, 'site');
      mkdirSync(site);
      const served = await fileServer(site);
      try {
        const fingerprintOf = (keyring: string) =>
          /^pub:[^]*?^fpr:+([0-9A-F]{40}):/m.exec(
            spawnSync('gpg', ['--batch', '--with-colons', '--show-keys', keyring], {
              encoding: 'utf8',
              env: { ...process.env, GNUPGHOME: mkdtempSync(join(scratch, 'gnupg-')) },
            }).stdout,
          )![1]!;
        /** A download folder signed by a throwaway key of its own; its keyring is what the site publishes. */
        const release = (name: string) => {
          const folder = join(scratch, name);
          mkdirSync(folder);
          for (const file of [`svc-${version}-linux-x64`, `svc-${version}-linux-x64.tar.gz`]) writeFileSync(join(folder, file), `the bytes of ${file}\n`);
          const signed = signRelease(folder, { ...process.env, SVC_SIGNING_KEY: '', SVC_THROWAWAY_KEY: '1' });
          expect(signed.status, signed.stderr).toBe(0);
          return folder;
        };
        const good = release('good');
        const releaseKey = fingerprintOf(join(good, 'svc-archive-keyring.gpg'));
        const publish = (folder: string) => cpSync(join(folder, 'svc-archive-keyring.gpg'), join(site, 'svc-archive-keyring.gpg'));
        const user: NodeJS.ProcessEnv = { ...process.env, HOME: mkdtempSync(join(scratch, 'home-')) };
        delete user.GNUPGHOME;
        /** The block as one script, as a user's script runs it: its exit status and what it printed. */
        const run = async (folder: string) => {
          const script = block.replaceAll('https://svc-cli.dev/apt', served.url).replace(printed, releaseKey);
          const ran = await spawnCollect('sh', ['-c', script], { env: user, cwd: folder });
          return { code: ran.code, out: `${ran.stdout}${ran.stderr}` };
        };
        publish(good);
        rmSync(join(good, 'svc-archive-keyring.gpg'));
        const passed = await run(good);
        expect(passed.code, passed.out).toBe(0);
        expect(passed.out).toContain(`svc-${version}-linux-x64: OK`);
        expect(passed.out).toContain('Good signature');

        const changedFile = join(scratch, 'changed-file');
        cpSync(good, changedFile, { recursive: true });
        writeFileSync(join(changedFile, `svc-${version}-linux-x64`), 'not the bytes that were signed\n');
        expect(await run(changedFile)).toMatchObject({ code: 1, out: expect.stringContaining('FAILED') });

        // A forged SHA256SUMS whose lines match the files: the script once ran sha256sum -c after BAD signature and exited 0.
        const forged = join(scratch, 'forged-sums');
        cpSync(good, forged, { recursive: true });
        writeFileSync(join(forged, `svc-${version}-linux-x64`), "an attacker's binary\n");
        spawnSync('sh', ['-c', `sha256sum svc-${version}-linux-x64 svc-${version}-linux-x64.tar.gz > SHA256SUMS`], { cwd: forged });
        const refused = await run(forged);
        expect(refused.code).not.toBe(0);
        expect(refused.out).toContain('BAD signature');
        expect(refused.out).not.toContain(': OK');

        // Signed by another key, which the site also serves: a good signature, but not by the key the README names.
        const otherKey = release('other-key');
        publish(otherKey);
        rmSync(join(otherKey, 'svc-archive-keyring.gpg'));
        const other = await run(otherKey);
        expect(other.code).not.toBe(0);
        expect(other.out).not.toContain(': OK');

        // Fetched again into the folder that holds the first key: the new file replaces it (no svc-archive-keyring.gpg.1), and is the one checked.
        const again = await run(good);
        expect(again.code).not.toBe(0);
        expect(readdirSync(good).filter((f) => f.startsWith('svc-archive-keyring'))).toEqual(['svc-archive-keyring.gpg']);
      } finally {
        served.close();
        rmSync(scratch, { recursive: true, force: true });
      }
    }, 120_000);
  },
);
