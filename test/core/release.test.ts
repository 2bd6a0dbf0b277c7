// A release a maintainer can run (issue 50): every script under scripts/ answers --help;
// `npm run dist` stops before it builds, with one line naming the fix, for a changelog that
// does not name package.json's version and for a signing key that cannot sign without a
// prompt; RELEASING.md's blocks run word for word with a passphrase-protected key in a
// throwaway GNUPGHOME through gpg's loopback pinentry. The whole build takes minutes and is
// scripts/test-standalone.sh's: here `npm run dist` runs in a copy of the clone without
// scripts/build.mjs, so a check that let it through would fail these tests, not build.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blockLines } from '../helpers/doc-blocks.js';
import { signRelease } from '../helpers/release.js';
import { root } from '../helpers/spawn.js';

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const RELEASING = readFileSync(join(root, 'RELEASING.md'), 'utf8');
const scratch = mkdtempSync(join(tmpdir(), 'svc-release-'));
const homes: string[] = [];
afterAll(() => {
  for (const home of homes) spawnSync('gpgconf', ['--kill', 'gpg-agent'], { env: { ...process.env, GNUPGHOME: home } });
  rmSync(scratch, { recursive: true, force: true });
});
const gpgProblem = spawnSync('gpg', ['--version']).error ? 'gpg is not installed' : null;
const linuxX64 = process.platform === 'linux' && process.arch === 'x64';

/** A copy of the clone that `npm run dist` runs in, at `version`, without scripts/build.mjs. */
function clone(version = pkg.version): string {
  const dir = mkdtempSync(join(scratch, 'clone-'));
  mkdirSync(join(dir, 'scripts'));
  for (const entry of ['bin', 'dist', 'completions', 'fixtures', 'man', 'node_modules', 'package-lock.json', 'LICENSE'])
    symlinkSync(join(root, entry), join(dir, entry));
  cpSync(join(root, 'packaging'), join(dir, 'packaging'), { recursive: true });
  for (const script of ['dist.mjs', 'nodes.mjs', 'apt-repo.mjs', 'help.mjs']) cpSync(join(root, 'scripts', script), join(dir, 'scripts', script));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')), version }));
  return dir;
}

/** A HOME of its own holding ~/.svc-release-gnupg with an Ed25519 key protected by `passphrase` (made through the loopback pinentry). */
function maintainerHome(passphrase: string): { home: string; gnupg: string; fingerprint: string } {
  const home = mkdtempSync(join(scratch, 'home-'));
  const gnupg = join(home, '.svc-release-gnupg');
  mkdirSync(gnupg, { mode: 0o700 });
  homes.push(gnupg);
  const gpg = (...args: string[]) => spawnSync('gpg', ['--batch', '--no-tty', ...args], { env: { ...process.env, GNUPGHOME: gnupg }, encoding: 'utf8' });
  const made = gpg(
    '--pinentry-mode',
    'loopback',
    '--passphrase',
    passphrase,
    '--quick-gen-key',
    'svc archive (test) <test@svc-cli.dev>',
    'ed25519',
    'sign',
    '3y',
  );
  expect(made.status, made.stderr).toBe(0);
  const fingerprint = /^fpr:+([0-9A-F]{40}):/m.exec(gpg('--with-colons', '--list-secret-keys').stdout)![1]!;
  // A fresh agent: nothing cached from making the key.
  spawnSync('gpgconf', ['--kill', 'gpg-agent'], { env: { ...process.env, GNUPGHOME: gnupg } });
  return { home, gnupg, fingerprint };
}

/** The environment of a maintainer's shell: their HOME, no terminal, none of this run's signing settings. */
function shellEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  // npm's own "New major version" notice (a fresh HOME turns it on) is npm's, not dist's.
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, npm_config_update_notifier: 'false', ...extra };
  for (const name of ['GNUPGHOME', 'GPG_TTY', 'SVC_SIGNING_KEY', 'SVC_SIGNING_PASSPHRASE_FILE', 'SOURCE_DATE_EPOCH']) if (!(name in extra)) delete env[name];
  return env;
}

function npmRunDist(dir: string, env: NodeJS.ProcessEnv): { status: number | null; stderr: string } {
  const ran = spawnSync('npm', ['run', 'dist'], { cwd: dir, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { status: ran.status, stderr: ran.stderr };
}

/** Nothing was built: no release folder, no build stage; and the key check wrote nothing (it once replaced /dev/null). */
function expectNothingBuilt(dir: string): void {
  expect(existsSync(join(dir, 'release'))).toBe(false);
  expect(existsSync(join(dir, '.tmp'))).toBe(false);
  expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
}

describe('every script under scripts/', () => {
  const scripts = readdirSync(join(root, 'scripts')).filter((name) => /\.(mjs|sh)$/.test(name));
  it.each(scripts)('%s --help prints what it does and how it is run, and does nothing else', (name) => {
    const [command, args] = name.endsWith('.sh')
      ? ['bash', [join(root, 'scripts', name), '--help']]
      : [process.execPath, [join(root, 'scripts', name), '--help']];
    const ran = spawnSync(command, args, { cwd: scratch, encoding: 'utf8', env: { ...process.env, SVC_IN_DBUS: '1' } });
    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(0);
    expect(ran.stdout.split('\n').length).toBeGreaterThan(1);
    expect(ran.stdout).not.toMatch(/^\s+at /m);
  });

  it('apt-repo.mjs and dist.mjs refuse an unknown option in one line, never a stack trace', () => {
    for (const script of ['apt-repo.mjs', 'dist.mjs']) {
      const ran = spawnSync(process.execPath, [join(root, 'scripts', script), '--frobnicate'], { cwd: scratch, encoding: 'utf8' });
      expect(ran.status).toBe(1);
      expect(ran.stderr).toMatch(/^[a-z-]+: unknown option --frobnicate \(node scripts\/[a-z-]+\.mjs --help\)\n$/);
    }
  });
});

describe.skipIf(gpgProblem !== null || !linuxX64)(`npm run dist checks before it builds${gpgProblem ? ` (skipped: ${gpgProblem})` : ''}`, () => {
  it('a version raised in package.json alone: one line naming the changelog entry to add, and nothing built', () => {
    const next = pkg.version.replace(/(\d+)$/, (n) => String(Number(n) + 1));
    const dir = clone(next);
    const ran = npmRunDist(dir, shellEnv(mkdtempSync(join(scratch, 'home-'))));
    expect(ran.status).not.toBe(0);
    expect(ran.stderr).toBe(
      `dist: packaging/debian/changelog's top entry is ${pkg.version}, package.json says ${next}: add a "svc (${next})" entry at its top (dch -v ${next}, or by hand)\n`,
    );
    expectNothingBuilt(dir);
  });

  it('a key with a passphrase and no way to ask for it: one line naming SVC_SIGNING_PASSPHRASE_FILE and GPG_TTY, at once, and nothing built', () => {
    const { home, gnupg, fingerprint } = maintainerHome('correct horse');
    const dir = clone();
    const ran = npmRunDist(dir, shellEnv(home, { GNUPGHOME: gnupg, SVC_SIGNING_KEY: fingerprint }));
    expect(ran.status).not.toBe(0);
    expect(ran.stderr.split('\n').filter(Boolean), ran.stderr).toHaveLength(1);
    expect(ran.stderr).toMatch(
      new RegExp(
        `^dist: the signing key ${fingerprint} needs its passphrase and nothing here can ask for it \\(gpg: .+\\): set SVC_SIGNING_PASSPHRASE_FILE to a file holding it \\(gpg's loopback pinentry\\), or run in a terminal with GPG_TTY=\\$\\(tty\\) exported\\n$`,
      ),
    );
    expectNothingBuilt(dir);
  }, 60_000);

  it('the wrong passphrase in the file, a key not in GNUPGHOME, a missing passphrase file: one line each, naming the fix', () => {
    const { home, gnupg, fingerprint } = maintainerHome('correct horse');
    const wrong = join(home, 'wrong');
    writeFileSync(wrong, 'battery staple\n', { mode: 0o600 });
    const cases: Array<[Record<string, string>, RegExp]> = [
      [
        { SVC_SIGNING_PASSPHRASE_FILE: wrong },
        /^dist: the signing key [0-9A-F]{40} did not sign with the passphrase in SVC_SIGNING_PASSPHRASE_FILE=.+: put the key's passphrase in that file\n$/,
      ],
      [{ SVC_SIGNING_PASSPHRASE_FILE: join(home, 'nowhere') }, /^dist: SVC_SIGNING_PASSPHRASE_FILE names .+nowhere, which does not exist\n$/],
      [
        { SVC_SIGNING_KEY: 'F'.repeat(40) },
        /^dist: SVC_SIGNING_KEY names F{40}, which is not a secret key in GNUPGHOME=.+: set GNUPGHOME to the folder holding the release key, or import it there\n$/,
      ],
      [{ SVC_SIGNING_KEY: 'my-key' }, /^dist: SVC_SIGNING_KEY holds "my-key", not a 40-digit key fingerprint\n$/],
    ];
    for (const [extra, expected] of cases) {
      const dir = clone();
      const ran = npmRunDist(dir, shellEnv(home, { GNUPGHOME: gnupg, SVC_SIGNING_KEY: fingerprint, ...extra }));
      expect(ran.status).not.toBe(0);
      expect(ran.stderr).toMatch(expected);
      expectNothingBuilt(dir);
    }
  }, 120_000);
});

/** Runs RELEASING.md's block `name` in `dir` as typed (one shell, so its exports carry), `npm run dist` as `substitute` says. */
function runBlock(name: string, dir: string, env: NodeJS.ProcessEnv, substitute: (line: string) => string = (line) => line) {
  const lines = blockLines(RELEASING, name).map(substitute);
  expect(lines.length).toBeGreaterThan(0);
  return spawnSync('sh', ['-c', `set -e\n${lines.join('\n')}`], { cwd: dir, env, encoding: 'utf8' });
}

describe.skipIf(gpgProblem !== null || !linuxX64)(`RELEASING.md, word for word${gpgProblem ? ` (skipped: ${gpgProblem})` : ''}`, () => {
  it("the release block with a passphrase-protected key through the loopback pinentry passes dist's checks (the build itself stopped after them)", () => {
    const { home } = maintainerHome('correct horse');
    writeFileSync(join(home, '.svc-release-passphrase'), 'correct horse\n', { mode: 0o600 });
    const dir = clone();
    const checked = runBlock('release', dir, shellEnv(home), (line) => line.replace(/^npm run dist$/, 'node scripts/dist.mjs --preflight'));
    expect(checked.stderr).toBe('');
    expect(checked.status).toBe(0);
    expect(blockLines(RELEASING, 'release')).toContain('npm run dist');
  }, 60_000);

  it('the release-check block verifies a release signed as npm run dist signs one, and fails a changed file', () => {
    const { home, gnupg, fingerprint } = maintainerHome('correct horse');
    const passphrase = join(home, '.svc-release-passphrase');
    writeFileSync(passphrase, 'correct horse\n', { mode: 0o600 });
    const dir = clone();
    const folder = join(dir, 'release', pkg.version);
    mkdirSync(folder, { recursive: true });
    for (const file of [`svc-${pkg.version}-linux-x64`, `svc_${pkg.version}_amd64.deb`]) writeFileSync(join(folder, file), `the bytes of ${file}\n`);
    const signingEnv = shellEnv(home, { GNUPGHOME: gnupg, SVC_SIGNING_KEY: fingerprint, SVC_SIGNING_PASSPHRASE_FILE: passphrase });
    const signed = signRelease(folder, signingEnv);
    expect(signed.status, signed.stderr).toBe(0);
    expect(readFileSync(join(folder, 'SHA256SUMS'), 'utf8').trim().split('\n')).toHaveLength(2);
    const userEnv = shellEnv(home);
    const checked = runBlock('release-check', dir, userEnv);
    expect(checked.status, checked.stderr).toBe(0);
    expect(checked.stderr).toMatch(/Good signature from "svc archive \(test\)/);
    writeFileSync(join(folder, `svc_${pkg.version}_amd64.deb`), 'changed\n');
    expect(runBlock('release-check', dir, userEnv).status).not.toBe(0);
  }, 60_000);
});
