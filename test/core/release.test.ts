// A release a maintainer can run: every script under scripts/ answers --help; `npm run dist`
// stops before it builds, with one line naming the fix, for a changelog that does not name
// package.json's version or is not in Debian's format exactly, for man pages of another
// version, for no SVC_SIGNING_KEY, for a signing key that cannot sign without a prompt, has
// expired or expires within 90 days, or that docs/install.md's download check does not name; a built
// binary that does not answer --version is not signed. RELEASING.md's blocks run word for word:
// the key made by its first block (the passphrase typed through the loopback pinentry), the
// release block with it, and the publish block from a new shell, into a repository that key
// published, where the publish line alone, a throwaway key and another key are refused. The
// whole build takes minutes and is scripts/test-standalone.sh's: here `npm run dist` runs in a
// copy of the clone without scripts/build.mjs, so a check that let it through would fail these
// tests, not build.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blockLines } from '../helpers/doc-blocks.js';
import { standInDeb } from '../helpers/apt.js';
import { builtFor, signRelease } from '../helpers/release.js';
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

/**
 * A copy of the clone that `npm run dist` runs in, at `version`, without scripts/build.mjs: its
 * dist/ is the build's with man pages naming `version` (as the build writes them), its docs/install.md's download check names
 * `fingerprint` (the release key's, as RELEASING.md says to put it), and `changelogEntry` is
 * put at the top of its changelog.
 */
function clone(
  version = pkg.version,
  { fingerprint, changelogEntry, manVersion = version }: { fingerprint?: string; changelogEntry?: string; manVersion?: string } = {},
): string {
  const dir = mkdtempSync(join(scratch, 'clone-'));
  mkdirSync(join(dir, 'scripts'));
  for (const entry of ['bin', 'fixtures', 'node_modules', 'package-lock.json', 'LICENSE']) symlinkSync(join(root, entry), join(dir, entry));
  cpSync(join(root, 'packaging'), join(dir, 'packaging'), { recursive: true });
  for (const script of ['dist.mjs', 'nodes.mjs', 'apt-repo.mjs', 'help.mjs']) cpSync(join(root, 'scripts', script), join(dir, 'scripts', script));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')), version }));
  const changelog = join(dir, 'packaging/debian/changelog');
  if (changelogEntry) writeFileSync(changelog, `${changelogEntry}\n${readFileSync(changelog, 'utf8')}`);
  const date = changelogEntry ? /  \w{3}, (\d{1,2} \w{3} \d{4})/.exec(changelogEntry)?.[1] : undefined;
  builtFor(dir, manVersion, date && manVersion === version ? new Date(`${date} UTC`).toISOString().slice(0, 10) : undefined);
  const install = readFileSync(join(root, 'docs/install.md'), 'utf8');
  mkdirSync(join(dir, 'docs'));
  writeFileSync(join(dir, 'docs/install.md'), fingerprint ? install.replace(/(VALIDSIG \.\* )[0-9A-Z-]+\$/, `$1${fingerprint}$`) : install);
  return dir;
}

/** A changelog entry for `version` whose trailer line is ` -- <maintainer><trailer>`. */
const entry = (version: string, trailer: string) =>
  `svc (${version}) unstable; urgency=medium\n\n  * The next release.\n\n -- svc maintainers <maintainers@svc-cli.dev>${trailer}\n`;

/**
 * A HOME of its own holding ~/.svc-release-gnupg with an Ed25519 key protected by `passphrase`
 * (made through the loopback pinentry), made at `at` (seconds) and expiring after `expires`.
 */
function maintainerHome(
  passphrase: string,
  { at, expires = '3y' }: { at?: number; expires?: string } = {},
): { home: string; gnupg: string; fingerprint: string } {
  const home = mkdtempSync(join(scratch, 'home-'));
  const gnupg = join(home, '.svc-release-gnupg');
  mkdirSync(gnupg, { mode: 0o700 });
  homes.push(gnupg);
  const gpg = (...args: string[]) => spawnSync('gpg', ['--batch', '--no-tty', ...args], { env: { ...process.env, GNUPGHOME: gnupg }, encoding: 'utf8' });
  const made = gpg(
    ...(at === undefined ? [] : ['--faked-system-time', `${at}!`]),
    '--pinentry-mode',
    'loopback',
    '--passphrase',
    passphrase,
    '--quick-gen-key',
    'svc archive (test) <test@svc-cli.dev>',
    'ed25519',
    'sign',
    expires,
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
  for (const name of ['GNUPGHOME', 'GPG_TTY', 'SVC_SIGNING_KEY', 'SVC_SIGNING_PASSPHRASE_FILE', 'SVC_THROWAWAY_KEY', 'SOURCE_DATE_EPOCH'])
    if (!(name in extra)) delete env[name];
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
  it("a changelog trailer not in Debian's format (one space, dd/mm/yyyy, 'someday', a wrong weekday): one line naming the format, and nothing built", () => {
    const next = pkg.version.replace(/(\d+)$/, (n) => String(Number(n) + 1));
    const bad = [' Mon, 07 Dec 2026 09:00:00 +0000', '  07/12/2026', '  someday', '  Tue, 07 Dec 2026 09:00:00 +0000'];
    for (const trailer of bad) {
      const dir = clone(next, { changelogEntry: entry(next, trailer) });
      const ran = npmRunDist(dir, shellEnv(mkdtempSync(join(scratch, 'home-'))));
      expect(ran.status, trailer).not.toBe(0);
      expect(ran.stderr.split('\n').filter(Boolean), ran.stderr).toHaveLength(1);
      expect(ran.stderr).toMatch(
        trailer.startsWith('  Tue')
          ? /^dist: packaging\/debian\/changelog's top entry \(svc [^)]+\) is dated "Tue, 07 Dec 2026 09:00:00 \+0000", which is not a real date and weekday: write it as date -R prints it\n$/
          : /^dist: packaging\/debian\/changelog's top entry \(svc [^)]+\) ends with ".+", not Debian's " -- Name <email>  Day, DD Mon YYYY HH:MM:SS \+ZZZZ" \(two spaces before the date, as date -R prints it\)\n$/,
      );
      expectNothingBuilt(dir);
    }
  }, 60_000);

  it('a dist/ built for the previous version, packaged alone: one line naming npm run build, and nothing built', () => {
    const next = pkg.version.replace(/(\d+)$/, (n) => String(Number(n) + 1));
    const dir = clone(next, { changelogEntry: entry(next, '  Mon, 07 Dec 2026 09:00:00 +0000'), manVersion: pkg.version });
    // The packaging step alone (npm run dist builds first, so its pages always name this version).
    const ran = spawnSync(process.execPath, ['scripts/dist.mjs', '--arch', 'x64', '--no-deb'], {
      cwd: dir,
      env: { ...shellEnv(mkdtempSync(join(scratch, 'home-'))), SVC_THROWAWAY_KEY: '1' },
      encoding: 'utf8',
    });
    expect(ran.status).not.toBe(0);
    expect(ran.stderr).toMatch(
      new RegExp(
        `^dist: dist/man/svc[a-z-]*\\.1 says "[0-9-]+" "svc ${pkg.version.replace(/\./g, '\\.')}", not "2026-12-07" "svc ${next.replace(/\./g, '\\.')}" \\(\\d+ of its pages\\): dist/ is an earlier build; run npm run build\n$`,
      ),
    );
    expectNothingBuilt(dir);
  });

  it('no SVC_SIGNING_KEY (a new shell): one line saying what to export, and nothing built', () => {
    const dir = clone();
    const ran = npmRunDist(dir, shellEnv(mkdtempSync(join(scratch, 'home-'))));
    expect(ran.status).not.toBe(0);
    expect(ran.stderr).toBe(
      "dist: SVC_SIGNING_KEY is not set, and nothing is signed without the release key: export GNUPGHOME=~/.svc-release-gnupg and SVC_SIGNING_KEY=<the key's fingerprint> (RELEASING.md's release block), or SVC_THROWAWAY_KEY=1 for a test build signed by a throwaway key\n",
    );
    expectNothingBuilt(dir);
  });

  it('a key that expired is named expired, not a passphrase problem; one that expires within 90 days is refused; both name the renewal command', () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[{ at?: number; expires: string }, RegExp]> = [
      [
        { at: now - 400 * 86_400, expires: '1y' },
        /^dist: the signing key ([0-9A-F]{40}) expired on \d{4}-\d\d-\d\d: renew it with gpg --quick-set-expire \1 2y, then publish the renewed key \(RELEASING\.md, "Renewing the key"\)\n$/,
      ],
      [
        { expires: '30d' },
        /^dist: the signing key ([0-9A-F]{40}) expires on \d{4}-\d\d-\d\d, in 30 days \(under 90\): renew it first with gpg --quick-set-expire \1 2y, then publish/,
      ],
    ];
    for (const [key, expected] of cases) {
      const { home, gnupg, fingerprint } = maintainerHome('correct horse', key);
      writeFileSync(join(home, 'pass'), 'correct horse\n', { mode: 0o600 });
      const dir = clone(pkg.version, { fingerprint });
      const ran = npmRunDist(dir, shellEnv(home, { GNUPGHOME: gnupg, SVC_SIGNING_KEY: fingerprint, SVC_SIGNING_PASSPHRASE_FILE: join(home, 'pass') }));
      expect(ran.status).not.toBe(0);
      expect(ran.stderr).toMatch(expected);
      expectNothingBuilt(dir);
    }
  }, 60_000);

  it("a key docs/install.md's download check does not name: one line, and nothing built", () => {
    const { home, gnupg, fingerprint } = maintainerHome('correct horse');
    writeFileSync(join(home, 'pass'), 'correct horse\n', { mode: 0o600 });
    const dir = clone();
    const ran = npmRunDist(dir, shellEnv(home, { GNUPGHOME: gnupg, SVC_SIGNING_KEY: fingerprint, SVC_SIGNING_PASSPHRASE_FILE: join(home, 'pass') }));
    expect(ran.status).not.toBe(0);
    expect(ran.stderr).toMatch(
      new RegExp(
        `^dist: docs\\/install\\.md's download check names the release key \\S+, not ${fingerprint}: put the release key's fingerprint there \\(RELEASING\\.md, "Once: the release key"\\)\n$`,
      ),
    );
    expectNothingBuilt(dir);
  }, 60_000);

  it('a built binary that does not answer --version with the version is not signed (arm64 runs under qemu)', () => {
    const bin = mkdtempSync(join(scratch, 'bin-'));
    const script = (name: string, says: string) => {
      writeFileSync(join(bin, name), `#!/bin/sh\necho ${says}\n`, { mode: 0o755 });
      return join(bin, name);
    };
    const check = (arch: string, binary: string) =>
      spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { checkBinary } from ${JSON.stringify(join(root, 'scripts/dist.mjs'))};
           try { checkBinary(process.argv[1], process.argv[2], '9.9.9'); } catch (e) { process.stderr.write(e.message); process.exit(1); }`,
          arch,
          binary,
        ],
        { encoding: 'utf8' },
      );
    expect(check('x64', script('right', '9.9.9')).status).toBe(0);
    const wrong = check('x64', script('wrong', '0.1.0'));
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toMatch(/^the built .+wrong answered --version with "0\.1\.0\\n" \(exit 0\), not 9\.9\.9: nothing signed$/);
    // The arm64 check goes through qemu-user, which refuses a file that is not an arm64 program.
    const arm = check('arm64', script('not-arm', '9.9.9'));
    expect(arm.status).toBe(1);
    expect(arm.stderr).toMatch(/\(under qemu-aarch64-static\)/);
  });
});

/**
 * A folder for PATH holding a `gpg` that gives `passphrase` through the loopback pinentry: the
 * maintainer typing it at gpg's prompt, which a test has no terminal for.
 */
function typingPassphrase(passphrase: string): string {
  const typing = mkdtempSync(join(scratch, 'typing-'));
  const realGpg = spawnSync('sh', ['-c', 'command -v gpg'], { encoding: 'utf8' }).stdout.trim();
  writeFileSync(join(typing, 'gpg'), `#!/bin/sh\nexec ${realGpg} --batch --pinentry-mode loopback --passphrase '${passphrase}' "$@"\n`, { mode: 0o755 });
  return typing;
}

const dpkgProblem = spawnSync('dpkg-deb', ['--version']).error ? 'dpkg-deb is not installed (Debian package dpkg)' : null;

/** Runs RELEASING.md's block `name` in `dir` as typed (one shell, so its exports carry), `npm run dist` as `substitute` says. */
function runBlock(name: string, dir: string, env: NodeJS.ProcessEnv, substitute: (line: string) => string = (line) => line) {
  const lines = blockLines(RELEASING, name).map(substitute);
  expect(lines.length).toBeGreaterThan(0);
  return spawnSync('sh', ['-c', `set -e\n${lines.join('\n')}`], { cwd: dir, env, encoding: 'utf8' });
}

describe.skipIf(gpgProblem !== null || !linuxX64)(`RELEASING.md, word for word${gpgProblem ? ` (skipped: ${gpgProblem})` : ''}`, () => {
  it('cuts a release as written: the key made by its first block, the release block through the loopback pinentry, and the publish block from a new shell', () => {
    expect(dpkgProblem).toBeNull();
    const home = mkdtempSync(join(scratch, 'home-'));
    const gnupg = join(home, '.svc-release-gnupg');
    homes.push(gnupg);
    const typing = typingPassphrase('correct horse');
    const made = runBlock('release-key', home, { ...shellEnv(home), PATH: `${typing}:${process.env.PATH ?? ''}` });
    expect(made.status, made.stderr).toBe(0);
    expect(statSync(gnupg).mode & 0o777).toBe(0o700);
    const fingerprint = made.stdout.trim().split('\n').at(-1)!;
    expect(fingerprint).toMatch(/^[0-9A-F]{40}$/);
    spawnSync('gpgconf', ['--kill', 'gpg-agent'], { env: { ...process.env, GNUPGHOME: gnupg } });
    writeFileSync(join(home, '.svc-release-passphrase'), 'correct horse\n', { mode: 0o600 });

    const dir = clone(pkg.version, { fingerprint });
    const checked = runBlock('release', dir, shellEnv(home), (line) => line.replace(/^npm run dist$/, 'node scripts/dist.mjs --preflight'));
    expect(checked.stderr).toBe('');
    expect(checked.status).toBe(0);
    expect(blockLines(RELEASING, 'release')).toContain('npm run dist');
    // The line npm run dist ends with, for the release notes: the fingerprint README.md prints, from a second source.
    const notes = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { releaseNotesLine } from ${JSON.stringify(join(dir, 'scripts/dist.mjs'))}; process.stdout.write(releaseNotesLine());`,
      ],
      { env: { ...shellEnv(home), SVC_SIGNING_KEY: fingerprint }, encoding: 'utf8' },
    );
    expect(notes.stdout).toBe(`For the release notes: svc ${pkg.version} is signed by the release key ${fingerprint}\n`);

    // What the build would have made, and the repository as the previous release published it, signed by this key.
    const folder = join(dir, 'release', pkg.version);
    mkdirSync(folder, { recursive: true });
    const deb = standInDeb(folder, pkg.version);
    const previous = standInDeb(mkdtempSync(join(scratch, 'previous-')), '0.0.1');
    const keyEnv = shellEnv(home, { GNUPGHOME: gnupg, SVC_SIGNING_KEY: fingerprint, SVC_SIGNING_PASSPHRASE_FILE: join(home, '.svc-release-passphrase') });
    const published = join(dir, 'published-apt');
    const first = spawnSync(process.execPath, [join(dir, 'scripts/apt-repo.mjs'), '--repo', published, previous], { cwd: dir, env: keyEnv, encoding: 'utf8' });
    expect(first.status, first.stderr).toBe(0);
    const inRelease = join(published, 'dists/stable/InRelease');
    const before = readFileSync(inRelease);
    spawnSync('gpgconf', ['--kill', 'gpg-agent'], { env: { ...process.env, GNUPGHOME: gnupg } });

    // The publish line alone from a new shell, as RELEASING.md had it: refused in one line, the repository unchanged.
    const publishLine = blockLines(RELEASING, 'publish').at(-1)!;
    const bare = spawnSync('sh', ['-c', publishLine], { cwd: dir, env: shellEnv(home), encoding: 'utf8' });
    expect(bare.status).toBe(1);
    expect(bare.stderr).toMatch(/^apt-repo: SVC_SIGNING_KEY is not set, and nothing is signed without the release key: export GNUPGHOME=[^\n]+\n$/);
    expect(readFileSync(inRelease).equals(before)).toBe(true);

    // Another key (a throwaway one, or a colleague's GNUPGHOME): refused, whatever the environment.
    const colleague = maintainerHome('');
    const others = [
      shellEnv(home, { SVC_THROWAWAY_KEY: '1' }),
      shellEnv(colleague.home, { GNUPGHOME: colleague.gnupg, SVC_SIGNING_KEY: colleague.fingerprint }),
    ];
    const refusals = [
      /^apt-repo: SVC_SIGNING_KEY is not set, and .+published-apt\/svc-archive-keyring\.gpg is the key installed machines trust, never a throwaway one: export GNUPGHOME=[^\n]+\n$/,
      /^apt-repo: the signing key [0-9A-F]{40} is not in .+published-apt\/svc-archive-keyring\.gpg \([0-9A-F]{40}\), which installed machines trust: sign with the release key [^\n]+\n$/,
    ];
    for (const [i, env] of others.entries()) {
      const other = spawnSync(process.execPath, [join(dir, 'scripts/apt-repo.mjs'), '--repo', published, deb], { cwd: dir, env, encoding: 'utf8' });
      expect(other.status).toBe(1);
      expect(other.stderr).toMatch(refusals[i]!);
      expect(readFileSync(inRelease).equals(before)).toBe(true);
    }

    // The block itself, in a new shell: it sets the key, and the passphrase comes from the file.
    const publishedNow = runBlock('publish', dir, shellEnv(home));
    expect(publishedNow.stderr).toBe('');
    expect(publishedNow.status).toBe(0);
    const packages = readFileSync(join(published, 'dists/stable/main/binary-amd64/Packages'), 'utf8');
    expect(packages).toContain('Version: 0.0.1\n');
    expect(packages).toContain(`Version: ${pkg.version}\n`);
    const verified = spawnSync('gpgv', ['--keyring', join(published, 'svc-archive-keyring.gpg'), inRelease], {
      encoding: 'utf8',
      env: { ...process.env, GNUPGHOME: mkdtempSync(join(scratch, 'gnupg-')) },
    });
    expect(verified.status, verified.stderr).toBe(0);
    expect(verified.stderr).toContain(`using EDDSA key ${fingerprint}`);
  }, 120_000);

  it('renews a key as written: refused 30 days before it expires, renewed by the renew-key block, then published into the same repository with the new date, its keyring signed so the old one checks it', () => {
    expect(dpkgProblem).toBeNull();
    const { home, gnupg, fingerprint } = maintainerHome('correct horse');
    const passphrase = join(home, '.svc-release-passphrase');
    writeFileSync(passphrase, 'correct horse\n', { mode: 0o600 });
    const typing = typingPassphrase('correct horse');
    const gpg = (...args: string[]) => spawnSync(join(typing, 'gpg'), args, { env: { ...process.env, GNUPGHOME: gnupg }, encoding: 'utf8' });
    const dir = clone(pkg.version, { fingerprint });
    const repo = join(dir, 'published-apt');
    const keyEnv = shellEnv(home, { GNUPGHOME: gnupg, SVC_SIGNING_KEY: fingerprint, SVC_SIGNING_PASSPHRASE_FILE: passphrase });
    const publish = (version: string) =>
      spawnSync(process.execPath, [join(dir, 'scripts/apt-repo.mjs'), '--repo', repo, standInDeb(mkdtempSync(join(scratch, 'deb-')), version)], {
        cwd: dir,
        env: keyEnv,
        encoding: 'utf8',
      });
    expect(publish('0.0.1').status).toBe(0);
    const expiry = (keyring: string) =>
      Number(
        /^pub:(?:[^:]*:){5}(\d+):/m.exec(
          spawnSync('gpg', ['--batch', '--with-colons', '--show-keys', keyring], {
            env: { ...process.env, GNUPGHOME: mkdtempSync(join(scratch, 'gnupg-')) },
            encoding: 'utf8',
          }).stdout,
        )?.[1],
      );
    // Time passes: 30 days are left (the key's date brought forward stands in for the years).
    expect(gpg('--quick-set-expire', fingerprint, '30d').status).toBe(0);
    const refused = publish('0.0.2');
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^apt-repo: the signing key ${fingerprint} expires on [0-9-]+, in 30 days \\(under 90\\): renew it first with gpg --quick-set-expire ${fingerprint} 2y`,
      ),
    );
    const machineKeyring = join(scratch, `machine-${fingerprint}.gpg`);
    writeFileSync(machineKeyring, spawnSync('gpg', ['--batch', '--export', fingerprint], { env: { ...process.env, GNUPGHOME: gnupg } }).stdout);

    const renewed = runBlock('renew-key', home, { ...shellEnv(home), PATH: `${typing}:${process.env.PATH ?? ''}` }, (line) =>
      line.replace('<fingerprint>', fingerprint),
    );
    expect(renewed.status, renewed.stderr).toBe(0);
    spawnSync('gpgconf', ['--kill', 'gpg-agent'], { env: { ...process.env, GNUPGHOME: gnupg } });
    const republished = publish('0.0.2');
    expect(republished.status, republished.stderr).toBe(0);
    const keyring = join(repo, 'svc-archive-keyring.gpg');
    const inTwoYears = Date.now() / 1000 + 2 * 365 * 86_400;
    expect(Math.abs(expiry(keyring) - inTwoYears)).toBeLessThan(3 * 86_400);
    expect(expiry(machineKeyring)).toBeLessThan(Date.now() / 1000 + 31 * 86_400);
    // The keyring a machine holds checks the renewed one's signature (what README's refresh line asks of it).
    const checked = spawnSync('gpgv', ['--status-fd', '1', '--keyring', machineKeyring, `${keyring}.asc`, keyring], {
      env: { ...process.env, GNUPGHOME: mkdtempSync(join(scratch, 'gnupg-')) },
      encoding: 'utf8',
    });
    expect(checked.stdout).toMatch(new RegExp(`^\\[GNUPG:\\] VALIDSIG .* ${fingerprint}$`, 'm'));
  }, 120_000);

  it('rotates a key as written: the rotate-key block certifies the new key with the old, and the repository the old key published takes both', () => {
    expect(dpkgProblem).toBeNull();
    const { home, gnupg, fingerprint: old } = maintainerHome('correct horse');
    const passphrase = join(home, '.svc-release-passphrase');
    writeFileSync(passphrase, 'correct horse\n', { mode: 0o600 });
    const dir = clone(pkg.version, { fingerprint: old });
    const repo = join(dir, 'published-apt');
    const deb = standInDeb(mkdtempSync(join(scratch, 'deb-')), '0.0.1');
    const first = spawnSync(process.execPath, [join(dir, 'scripts/apt-repo.mjs'), '--repo', repo, deb], {
      cwd: dir,
      env: shellEnv(home, { GNUPGHOME: gnupg, SVC_SIGNING_KEY: old, SVC_SIGNING_PASSPHRASE_FILE: passphrase }),
      encoding: 'utf8',
    });
    expect(first.status, first.stderr).toBe(0);
    // The block, then (in the same shell, as it says) the publish step's line with the SVC_SIGNING_KEY it set.
    const lines = [
      ...blockLines(RELEASING, 'rotate-key'),
      `export PATH='${process.env.PATH ?? ''}'`, // no one typing from here: the passphrase comes from the file
      'gpgconf --kill gpg-agent',
      'export SVC_SIGNING_PASSPHRASE_FILE=~/.svc-release-passphrase',
      `node scripts/apt-repo.mjs --repo ./published-apt ${deb}`,
      'echo "$SVC_SIGNING_KEY"',
    ];
    const typing = typingPassphrase('correct horse');
    spawnSync('gpgconf', ['--kill', 'gpg-agent'], { env: { ...process.env, GNUPGHOME: gnupg } });
    const rotated = spawnSync('sh', ['-c', `set -e\n${lines.join('\n')}`], {
      cwd: dir,
      env: { ...shellEnv(home), PATH: `${typing}:${process.env.PATH ?? ''}` },
      encoding: 'utf8',
    });
    expect(rotated.status, rotated.stderr).toBe(0);
    const [first_, next] = rotated.stdout.trim().split('\n').at(-1)!.split(' ');
    expect(first_).toBe(old);
    expect(next).toMatch(/^[0-9A-F]{40}$/);
    expect(next).not.toBe(old);
    const listed = spawnSync('gpg', ['--batch', '--with-colons', '--show-keys', join(repo, 'svc-archive-keyring.gpg')], {
      env: { ...process.env, GNUPGHOME: mkdtempSync(join(scratch, 'gnupg-')) },
      encoding: 'utf8',
    }).stdout;
    expect(listed).toContain(old);
    expect(listed).toContain(next);
    // Machines holding the old key alone check the new keyring (README's refresh line) and the repository.
    const oldKeyring = join(scratch, `old-${old}.gpg`);
    writeFileSync(oldKeyring, spawnSync('gpg', ['--batch', '--export', old], { env: { ...process.env, GNUPGHOME: gnupg } }).stdout);
    const gpgv = (...files: string[]) =>
      spawnSync('gpgv', ['--status-fd', '1', '--keyring', oldKeyring, ...files], {
        env: { ...process.env, GNUPGHOME: mkdtempSync(join(scratch, 'gnupg-')) },
        encoding: 'utf8',
      }).stdout;
    expect(gpgv(join(repo, 'svc-archive-keyring.gpg.asc'), join(repo, 'svc-archive-keyring.gpg'))).toMatch(
      new RegExp(`^\\[GNUPG:\\] VALIDSIG .* ${old}$`, 'm'),
    );
    expect(gpgv(join(repo, 'dists/stable/InRelease'))).toMatch(new RegExp(`^\\[GNUPG:\\] VALIDSIG .* ${old}$`, 'm'));
  }, 120_000);

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
