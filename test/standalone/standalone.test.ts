// svc without Node (`npm run dist`, scripts/dist.mjs): the linux-x64 single executable run
// with no `node` on its PATH, the linux-arm64 one under qemu-user, and the .deb installed
// and removed with dpkg. scripts/test-standalone.sh runs this file (under a D-Bus session
// with gnome-keyring), then the spawned-binary and terminal suites against the binary.
// Each part skips with a visible reason when its programs are absent; SVC_REQUIRE_REAL=1
// (CI) turns that into a failure.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtFor } from '../helpers/release.js';
import { root, spawnCollect, spawnEmulator, type Spawned, type SpawnedEmulator } from '../helpers/spawn.js';

/** The builds here are tests': signed by a throwaway key, which dist refuses unless told. */
const testBuildEnv: NodeJS.ProcessEnv = { ...process.env, SVC_THROWAWAY_KEY: '1' };

const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const release = join(root, 'release', version);
const x64 = join(release, `svc-${version}-linux-x64`);
const arm64 = join(release, `svc-${version}-linux-arm64`);
const deb = join(release, `svc_${version}_amd64.deb`);
const tarball = `${x64}.tar.gz`;
const required = process.env.SVC_REQUIRE_REAL === '1';
const scratch = mkdtempSync(join(tmpdir(), 'svc-standalone-'));

/** The newest change of what the binaries are built from (the bundle, the launcher, the loader). */
function newestSource(): number {
  const files = ['dist', 'bin', 'packaging'].flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name)),
  );
  return Math.max(...files.map((f) => statSync(f).mtimeMs), statSync(join(root, 'scripts/dist.mjs')).mtimeMs);
}

/** Builds the artefacts unless release/ already holds them for this bundle (scripts/test-standalone.sh builds first). */
function ensureReleased(): void {
  if (!existsSync(join(root, 'dist')) || !readdirSync(join(root, 'dist')).length) {
    const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`build failed: ${built.stderr}`);
  }
  const sums = join(release, 'SHA256SUMS');
  const fresh = [x64, arm64, deb, tarball, sums].every(existsSync) && statSync(sums).mtimeMs > newestSource();
  if (fresh) return;
  const made = spawnSync(process.execPath, ['scripts/dist.mjs'], { cwd: root, encoding: 'utf8', env: testBuildEnv });
  if (made.status !== 0) throw new Error(`npm run dist failed: ${made.stderr}`);
}

/** A PATH with every program of this machine's but node, npm, npx and corepack: a server without Node. */
function pathWithoutNode(): string {
  if (process.env.SVC_PATH) return process.env.SVC_PATH;
  const dir = join(scratch, 'path');
  spawnSync('mkdir', ['-p', dir]);
  for (const from of ['/usr/local/bin', '/usr/bin', '/bin', '/usr/sbin', '/sbin']) {
    if (!existsSync(from)) continue;
    for (const name of readdirSync(from)) {
      if (['node', 'nodejs', 'npm', 'npx', 'corepack'].includes(name) || existsSync(join(dir, name))) continue;
      symlinkSync(join(from, name), join(dir, name));
    }
  }
  return dir;
}

let PATH: string;

/** The environment of a run: a home of its own, no node on PATH. */
function envFor(home: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = { PATH, HOME: home, SVC_CONFIG_DIR: join(home, 'config'), NO_COLOR: '1', LANG: 'C.UTF-8', ...extra };
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

const freshHome = () => mkdtempSync(join(scratch, 'home-'));

function run(binary: string, args: string[], env: Record<string, string>, stdin?: string): Promise<Spawned> {
  return spawnCollect(binary, args, { env, ...(stdin === undefined ? {} : { stdin }) });
}

type Emulator = SpawnedEmulator;

/** `svc emulator --port 0 --json` of the binary itself (under `launcher`, qemu for arm64): its first line says where. */
function startEmulator(command: string, args: string[], env: Record<string, string>): Promise<Emulator> {
  return spawnEmulator(command, [...args, 'emulator', '--port', '0', '--json'], env);
}

beforeAll(() => {
  ensureReleased();
  PATH = pathWithoutNode();
}, 600_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** How this process runs a command as root: itself, or through `sudo -n` (CI machines that are not root). */
const asRoot: string[] | null = process.getuid?.() === 0 ? [] : spawnSync('sudo', ['-n', 'true']).status === 0 ? ['sudo', '-n'] : null;
const rootRun = (command: string, ...args: string[]) =>
  spawnSync(asRoot![0] ?? command, asRoot!.length ? [...asRoot!.slice(1), command, ...args] : args, { encoding: 'utf8' });

/** Every file and folder under `dir`, relative to it, sorted. */
const contents = (dir: string) => readdirSync(dir, { recursive: true }).map(String).sort();

/** A container's user: uid 12345 with no passwd entry (setpriv, as root), and only the environment given. */
const NOBODY = 12345;
const setprivProblem =
  asRoot === null
    ? 'running as another user needs root (or sudo without a password)'
    : spawnSync('setpriv', ['--version']).error
      ? 'setpriv (util-linux) is not installed'
      : null;
function runAsNobody(args: string[], env: Record<string, string>, stdin?: string): Promise<Spawned> {
  const command = [
    ...asRoot!,
    'setpriv',
    `--reuid=${NOBODY}`,
    `--regid=${NOBODY}`,
    '--clear-groups',
    '--',
    'env',
    '-i',
    ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
    x64,
    ...args,
  ];
  return spawnCollect(command[0]!, command.slice(1), { env: { PATH: process.env.PATH }, ...(stdin === undefined ? {} : { stdin }) });
}

/** A folder anyone may enter, under the scratch folder (which is 0700). */
function openFolder(mode: number): string {
  const dir = join(scratch, `open-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir);
  chmodSync(scratch, 0o711);
  chmodSync(dir, mode);
  return dir;
}

/**
 * The binary of another version (package.json's version with `-other`), built from the same
 * files in a folder of its own: what a machine has while one version replaces another.
 */
function buildOtherVersion(): { binary: string; version: string } {
  const other = join(scratch, 'other');
  mkdirSync(join(other, 'scripts'), { recursive: true });
  for (const entry of ['bin', 'fixtures', 'packaging', 'node_modules', 'package-lock.json', 'LICENSE', 'README.md'])
    symlinkSync(join(root, entry), join(other, entry));
  for (const script of ['dist.mjs', 'nodes.mjs', 'apt-repo.mjs', 'help.mjs']) copyFileSync(join(root, 'scripts', script), join(other, 'scripts', script));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const otherVersion = `${pkg.version}-other`;
  writeFileSync(join(other, 'package.json'), JSON.stringify({ ...pkg, version: otherVersion }));
  builtFor(other, otherVersion);
  const made = spawnSync(process.execPath, [join(other, 'scripts/dist.mjs'), '--arch', 'x64', '--no-deb'], { cwd: other, encoding: 'utf8', env: testBuildEnv });
  if (made.status !== 0) throw new Error(`building ${otherVersion} failed: ${made.stderr}`);
  return { binary: join(other, 'release', otherVersion, `svc-${otherVersion}-linux-x64`), version: otherVersion };
}

describe('the linux-x64 binary, on a PATH with no node', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator(x64, [], envFor(freshHome()));
  }, 60_000);
  afterAll(async () => emulator?.stop());

  it('finds no node on that PATH', () => {
    expect(spawnSync('sh', ['-c', 'command -v node || command -v nodejs'], { env: { PATH } }).status).not.toBe(0);
  });

  it('prints its version and help and writes nothing: no cache in the home, the cache dir or the temp dir', async () => {
    const home = freshHome();
    mkdirSync(join(home, 'tmp'));
    const env = envFor(home, { TMPDIR: join(home, 'tmp'), XDG_CACHE_HOME: join(home, 'tmp') });
    expect(await run(x64, ['--version'], env)).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
    const help = await run(x64, ['--help'], env);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toContain('Usage: svc [options] [command]');
    expect(contents(home)).toEqual(['tmp']);
  });

  it('answers 20 first runs at once on a fresh machine, with 0 failures', async () => {
    const home = freshHome();
    const runs = await Promise.all(Array.from({ length: 20 }, () => run(x64, ['version', '--json'], envFor(home))));
    expect(runs.filter((ran) => ran.code !== 0 || JSON.parse(ran.stdout).version !== version)).toEqual([]);
  });

  it('runs 20 times at once, alternating with another version of itself, with 0 failures', async () => {
    const other = buildOtherVersion();
    const home = freshHome();
    // Each version prints its own version (--version reads its package.json), and runs its bundle (version --json).
    const runs = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const [binary, expected] = i % 2 ? [other.binary, other.version] : [x64, version];
        const args = Math.floor(i / 2) % 2 ? ['version', '--json'] : ['--version'];
        const ran = await run(binary, args, envFor(home));
        return { ...ran, args, expected };
      }),
    );
    const failed = runs.filter(
      (ran) =>
        ran.code !== 0 ||
        ran.stderr !== '' ||
        (ran.args[0] === '--version' ? ran.stdout !== `${ran.expected}\n` : JSON.parse(ran.stdout).install !== 'standalone'),
    );
    expect(failed).toEqual([]);
  }, 300_000);

  it('says in version --json that it is the standalone build, on Node 26', async () => {
    const ran = await run(x64, ['version', '--json'], envFor(freshHome()));
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ version, install: 'standalone', platform: 'linux/x64', node: expect.stringMatching(/^26\./) });
  });

  it('serves the emulator, and prints the account from it', async () => {
    const ran = await run(x64, ['account', '--json'], envFor(freshHome(), { SVC_BASE_URL: emulator.url, SVC_API_KEY: emulator.keys.test }));
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ id: emulator.org_id });
  });

  it.skipIf(setprivProblem !== null && !required)(
    `runs as a container user with no passwd entry, no HOME and nothing writable (docker run --user ${NOBODY} --read-only)${setprivProblem && !required ? ` (skipped: ${setprivProblem})` : ''}`,
    async () => {
      expect(setprivProblem).toBeNull();
      const readOnly = openFolder(0o755); // root's: uid 12345 can write nothing in it
      const env = { PATH, TMPDIR: readOnly, NO_COLOR: '1' };
      expect(await runAsNobody(['--version'], env)).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
      const help = await runAsNobody(['--help'], env);
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toContain('Usage: svc [options] [command]');
      const account = await runAsNobody(['account', '--json'], { ...env, SVC_BASE_URL: emulator.url, SVC_API_KEY: emulator.keys.test });
      expect(account.code, account.stderr).toBe(0);
      expect(JSON.parse(account.stdout)).toMatchObject({ id: emulator.org_id });
      expect(contents(readOnly)).toEqual([]);
    },
  );

  it.skipIf(setprivProblem !== null && !required)(
    `keeps its config in $TMPDIR/svc-<uid> for a user with no home${setprivProblem && !required ? ` (skipped: ${setprivProblem})` : ''}`,
    async () => {
      expect(setprivProblem).toBeNull();
      const tmp = openFolder(0o1777);
      const env = { PATH, TMPDIR: tmp, NO_COLOR: '1', SVC_BASE_URL: emulator.url, SVC_CREDENTIAL_STORE: 'file' };
      const added = await runAsNobody(['keys', 'add', '--name', 'ci'], env, emulator.keys.test);
      expect(added.code, added.stderr).toBe(0);
      const credentials = join(tmp, `svc-${NOBODY}`, 'credentials.json');
      expect(statSync(credentials)).toMatchObject({ uid: NOBODY });
      expect(statSync(credentials).mode & 0o777).toBe(0o600);
      const account = await runAsNobody(['account', '--json'], env);
      expect(account.code, account.stderr).toBe(0);
      expect(JSON.parse(account.stdout)).toMatchObject({ id: emulator.org_id });
    },
  );

  it('stops with an error, storing the key nowhere, when its embedded keychain addon is damaged', async () => {
    const addon = readFileSync(
      join(
        root,
        'node_modules/@napi-rs/keyring-linux-x64-gnu',
        readdirSync(join(root, 'node_modules/@napi-rs/keyring-linux-x64-gnu')).find((f) => f.endsWith('.node'))!,
      ),
    );
    const bytes = readFileSync(x64);
    const at = bytes.indexOf(addon.subarray(0x10000, 0x10100));
    expect(at).toBeGreaterThan(0);
    bytes[at + 0x80] = bytes[at + 0x80]! ^ 0xff;
    const damaged = join(scratch, 'svc-damaged');
    writeFileSync(damaged, bytes, { mode: 0o755 });
    const home = freshHome();
    const env = envFor(home, { SVC_BASE_URL: emulator.url, DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS });
    const added = await run(damaged, ['keys', 'add', '--name', 'ci'], env, emulator.keys.test);
    expect(added.code).toBe(1);
    expect(added.stderr).toMatch(/error: the keychain addon \S+keyring-[0-9a-f]{16}\.node is damaged \(its SHA-256 is not the build's\): download svc again/);
    expect(existsSync(join(home, 'config', 'credentials.json'))).toBe(false);
  });

  const secretTool = spawnSync('secret-tool', ['--version']).error ? 'secret-tool (libsecret-tools) is not installed' : null;
  const keychainProblem = secretTool ?? (process.env.DBUS_SESSION_BUS_ADDRESS ? null : 'no D-Bus session (run under scripts/test-standalone.sh)');
  it.skipIf(keychainProblem !== null && !required)(
    `writes a key to the real Secret Service through its embedded addon, and reads it back${keychainProblem && !required ? ` (skipped: ${keychainProblem})` : ''}`,
    async () => {
      expect(keychainProblem).toBeNull();
      const profile = `standalone-${randomBytes(4).toString('hex')}`;
      const env = envFor(freshHome(), {
        SVC_BASE_URL: emulator.url,
        SVC_CREDENTIAL_STORE: 'keychain',
        DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS,
      });
      try {
        const added = await run(x64, ['keys', 'add', '--name', 'ci', '--profile', profile], env, emulator.keys.test);
        expect(added.code, added.stderr).toBe(0);
        const found = spawnSync('secret-tool', ['lookup', 'service', 'svc', 'username', `${profile}:ci`], { encoding: 'utf8' });
        expect(found.stdout).toBe(emulator.keys.test);
        const account = await run(x64, ['account', '--json', '--profile', profile], env);
        expect(account.code, account.stderr).toBe(0);
        expect(JSON.parse(account.stdout)).toMatchObject({ id: emulator.org_id });
      } finally {
        spawnSync('secret-tool', ['clear', 'service', 'svc', 'username', `${profile}:ci`]);
      }
    },
  );

  const chromium = '/usr/bin/chromium';
  const browserProblem = existsSync(chromium) ? null : `${chromium} is not installed`;
  it.skipIf(browserProblem !== null && !required)(
    `signs in through a real browser (login --no-browser, the address opened in Chromium)${browserProblem && !required ? ` (skipped: ${browserProblem})` : ''}`,
    async () => {
      const { chromium: playwright } = await import('playwright-core');
      const browser = await playwright.launch({
        executablePath: chromium,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      });
      try {
        const home = freshHome();
        const env = envFor(home, { SVC_BASE_URL: emulator.url, SVC_CREDENTIAL_STORE: 'file' });
        const child = spawn(x64, ['login', '--no-browser', '--json'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        const url = await new Promise<string>((resolve) =>
          child.stderr.on('data', (chunk: Buffer) => {
            stderr += chunk.toString();
            const found = /http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+/.exec(stderr);
            if (found) resolve(found[0]);
          }),
        );
        const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
        const page = await (await browser.newContext()).newPage();
        await page.goto(url);
        await page.getByLabel('Email').fill(emulator.admin.email);
        await page.getByLabel('Password').fill(emulator.admin.password);
        await Promise.all([page.waitForURL(/./, { waitUntil: 'load' }), page.getByRole('button', { name: 'Sign in' }).click()]);
        await page.getByLabel('Organization').selectOption(emulator.org_id);
        await page.getByRole('button', { name: 'Approve' }).click();
        expect(await exited, stderr).toBe(0);
        expect(JSON.parse(stdout)).toMatchObject({ org_id: emulator.org_id });
        const status = await run(x64, ['auth', 'status', '--json'], env);
        expect(status.code, status.stderr).toBe(0);
        expect(status.stdout).toContain(emulator.org_id);
      } finally {
        await browser.close();
      }
    },
  );
});

const qemu = '/usr/bin/qemu-aarch64-static';
const arm64Libraries = '/usr/aarch64-linux-gnu';
const qemuProblem = !existsSync(qemu)
  ? `${qemu} is not installed (Debian's qemu-user-static)`
  : !existsSync(join(arm64Libraries, 'lib', 'libstdc++.so.6'))
    ? `${arm64Libraries} lacks arm64's C and C++ libraries (Debian's libc6-arm64-cross, libstdc++6-arm64-cross, libatomic1-arm64-cross)`
    : null;

describe.skipIf(qemuProblem !== null && !required)(
  `the linux-arm64 binary under qemu-user${qemuProblem && !required ? ` (skipped: ${qemuProblem})` : ''}`,
  () => {
    const armEnv = (home: string, extra: Record<string, string> = {}) => envFor(home, { QEMU_LD_PREFIX: arm64Libraries, ...extra });
    let emulator: Emulator;
    beforeAll(async () => {
      expect(qemuProblem).toBeNull();
      emulator = await startEmulator(qemu, [arm64], armEnv(freshHome()));
    }, 120_000);
    afterAll(async () => emulator?.stop());

    it('is an arm64 program', () => {
      expect(readFileSync(arm64).subarray(18, 20).readUInt16LE()).toBe(183); // e_machine: EM_AARCH64
    });

    it('prints its version and help', async () => {
      const home = freshHome();
      expect(await run(qemu, [arm64, '--version'], armEnv(home))).toMatchObject({ code: 0, stdout: `${version}\n` });
      const help = await run(qemu, [arm64, '--help'], armEnv(home));
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('Usage: svc [options] [command]');
    }, 60_000);

    it('serves the emulator (emulator --port 0) and prints the account from it', async () => {
      const ran = await run(qemu, [arm64, 'account', '--json'], armEnv(freshHome(), { SVC_BASE_URL: emulator.url, SVC_API_KEY: emulator.keys.test }));
      expect(ran.code, ran.stderr).toBe(0);
      expect(JSON.parse(ran.stdout)).toMatchObject({ id: emulator.org_id });
      const version = await run(qemu, [arm64, 'version', '--json'], armEnv(freshHome()));
      expect(JSON.parse(version.stdout)).toMatchObject({ platform: 'linux/arm64', install: 'standalone' });
    }, 60_000);
  },
);

const dpkg = (...args: string[]) => rootRun('dpkg', ...args);
const pkgJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { author: string; homepage: string };

const dpkgProblem =
  asRoot === null
    ? 'dpkg -i needs root (or sudo without a password)'
    : spawnSync('dpkg-query', ['-W', 'svc']).status === 0
      ? 'a package named svc is installed on this machine already'
      : !existsSync('/usr/bin/man')
        ? 'man is not installed (Debian package man-db)'
        : !existsSync('/usr/share/bash-completion/bash_completion')
          ? 'bash-completion is not installed'
          : null;

describe('the .deb, as a Debian packager reads it', () => {
  const field = (name: string) => spawnSync('dpkg-deb', ['-f', deb, name], { encoding: 'utf8' }).stdout.trim();

  it('is named as Debian names it, with versioned Depends from the binary, and the Maintainer and Homepage of package.json', () => {
    expect(basename(deb)).toBe(`svc_${version}_amd64.deb`);
    expect(field('Depends')).toMatch(/^(?=.*libc6 \(>= 2\.\d+\))(?=.*libstdc\+\+6 \(>= [\d.]+\)).*$/);
    expect(field('Maintainer')).toBe(pkgJson.author);
    expect(field('Homepage')).toBe(pkgJson.homepage);
    expect(field('Maintainer')).not.toContain('example.invalid');
  });

  it('carries md5sums, a changelog, and a machine-readable copyright naming the licences of Node and of each bundled package', () => {
    const info = spawnSync('dpkg-deb', ['-I', deb], { encoding: 'utf8' }).stdout;
    expect(info).toMatch(/ md5sums\b/);
    const unpacked = join(scratch, 'deb-contents');
    expect(spawnSync('dpkg-deb', ['-x', deb, unpacked]).status).toBe(0);
    const doc = join(unpacked, 'usr/share/doc/svc');
    expect(readdirSync(doc)).toContain('changelog.gz');
    const copyright = readFileSync(join(doc, 'copyright'), 'utf8');
    expect(copyright).toMatch(/^Format: https:\/\/www\.debian\.org\/doc\/packaging-manuals\/copyright-format\/1\.0\/\n/);
    expect(copyright).toMatch(/^Files: \*\nCopyright: .+\nLicense: Expat$/m);
    expect(copyright).toMatch(/^Files: usr\/lib\/svc\/svc\n/m);
    expect(copyright).toMatch(/^License: Node\.js\n Node\.js 26\.[\d.]+ .* is licensed under the Expat licence/m);
    const sbom = JSON.parse(readFileSync(join(root, 'dist/sbom.cdx.json'), 'utf8')) as { components: { name: string; version: string }[] };
    for (const { name, version: at } of sbom.components.filter((c) => c.name !== '@napi-rs/keyring')) expect(copyright).toContain(` ${name} ${at}: `);
  });

  const lintianProblem = spawnSync('lintian', ['--version']).error ? 'lintian is not installed' : null;
  it.skipIf(lintianProblem !== null && !required)(
    `passes lintian with no error or warning (overrides only with their reason)${lintianProblem && !required ? ` (skipped: ${lintianProblem})` : ''}`,
    () => {
      expect(lintianProblem).toBeNull();
      const linted = spawnSync('lintian', ['--fail-on', 'error,warning', '--no-tag-display-limit', deb], { encoding: 'utf8' });
      expect(linted.stdout.split('\n').filter((line) => /^[EW]: /.test(line))).toEqual([]);
      expect(linted.status, linted.stderr).toBe(0);
      const overrides = readFileSync(join(root, 'packaging/debian/lintian-overrides'), 'utf8').split('\n');
      // Each override follows a comment that says why.
      overrides.forEach(
        (line, i) =>
          line.startsWith('svc: ') &&
          expect(
            overrides
              .slice(0, i)
              .reverse()
              .find((l) => !l.startsWith('svc: ')),
            line,
          ).toMatch(/^# /),
      );
    },
    600_000,
  );
});

describe.skipIf(dpkgProblem !== null && !required)(`the .deb, installed${dpkgProblem && !required ? ` (skipped: ${dpkgProblem})` : ''}`, () => {
  // Every path the package holds (dpkg-deb -c), and which of its folders were there before.
  const paths = () =>
    spawnSync('dpkg-deb', ['-c', deb], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n')
      .map((line) =>
        line
          .slice(line.indexOf('./') + 1)
          .replace(/\/$/, '')
          .replace(/ -> .*$/, ''),
      )
      .filter((path) => path !== '');
  let before: Set<string>;
  let emulator: Emulator;
  beforeAll(async () => {
    if (dpkgProblem === null) emulator = await startEmulator(x64, [], envFor(freshHome()));
  }, 60_000);
  afterAll(async () => emulator?.stop());

  it('installs with dpkg -i: /usr/bin/svc runs the root-owned files in /usr/lib/svc/, dpkg -V finds them intact, and a run writes nothing for the user', async () => {
    expect(dpkgProblem).toBeNull();
    before = new Set(paths().filter((path) => existsSync(path)));
    expect([...before].filter((path) => !statSync(path).isDirectory())).toEqual([]);
    const installed = dpkg('-i', deb);
    expect(installed.status, installed.stderr).toBe(0);
    expect(readlinkSync('/usr/bin/svc')).toBe('../lib/svc/svc');
    const program = readdirSync('/usr/lib/svc').sort();
    expect(program).toEqual([expect.stringMatching(/^keyring-[0-9a-f]{16}\.node$/), 'svc']);
    for (const file of program) expect(statSync(join('/usr/lib/svc', file))).toMatchObject({ uid: 0, gid: 0 });
    const verified = dpkg('-V', 'svc');
    expect(verified.stdout + verified.stderr).toBe('');
    const home = freshHome();
    const version = await run('/usr/bin/svc', ['version', '--json'], envFor(home));
    expect(JSON.parse(version.stdout)).toMatchObject({ install: 'deb', platform: 'linux/x64' });
    expect(contents(home)).toEqual([]);
  });

  it('has its man pages and its bash completion where man and bash look', () => {
    expect(dpkgProblem).toBeNull();
    expect(spawnSync('man', ['-w', 'svc-calls-start'], { encoding: 'utf8' }).stdout.trim()).toBe('/usr/share/man/man1/svc-calls-start.1.gz');
    const page = spawnSync('man', ['svc-calls-start'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, LC_ALL: 'C', MANWIDTH: '80', MANPAGER: 'cat', PAGER: 'cat' },
    });
    expect(page.stdout).toMatch(/svc-calls-start - start an interpreted call between two languages/);
    expect(page.stdout).toContain('--languages <a,b>');
    // bash-completion loads /usr/share/bash-completion/completions/svc on the first <Tab> after `svc`.
    const completed = spawnSync(
      'bash',
      [
        '--norc',
        '--noprofile',
        '-c',
        'source /usr/share/bash-completion/bash_completion; COMP_WORDS=(svc ca); COMP_CWORD=1; _completion_loader svc; _svc; echo "${COMPREPLY[*]}"',
      ],
      { encoding: 'utf8', env: { PATH } },
    );
    expect(completed.stdout.trim()).toBe('calls');
  });

  it('stops with an error naming the fix, storing the key nowhere, when /usr/lib/svc/’s keychain addon is damaged', async () => {
    expect(dpkgProblem).toBeNull();
    const addon = join(
      '/usr/lib/svc',
      readdirSync('/usr/lib/svc').find((f) => f.endsWith('.node'))!,
    );
    expect(rootRun('sh', '-c', `printf 'not an addon' > ${addon}`).status).toBe(0);
    try {
      const home = freshHome();
      const env = envFor(home, { SVC_BASE_URL: emulator.url, DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS });
      const added = await run('/usr/bin/svc', ['keys', 'add', '--name', 'ci'], env, emulator.keys.test);
      expect(added.code).toBe(1);
      expect(added.stderr).toContain(
        `error: the keychain addon ${addon} is damaged (its SHA-256 is not the build's): reinstall it (sudo apt install --reinstall svc)`,
      );
      expect(existsSync(join(home, 'config', 'credentials.json'))).toBe(false);
      expect(dpkg('-V', 'svc').stdout).toContain(addon);
    } finally {
      expect(dpkg('-i', deb).status).toBe(0);
    }
    expect(dpkg('-V', 'svc').stdout).toBe('');
  });

  it('dpkg --purge removes every file and folder it added, and leaves no trace in dpkg', () => {
    expect(dpkgProblem).toBeNull();
    const removed = dpkg('--purge', 'svc');
    expect(removed.status, removed.stderr).toBe(0);
    expect(paths().filter((path) => existsSync(path) && !before.has(path))).toEqual([]);
    expect(existsSync('/usr/lib/svc')).toBe(false);
    expect(spawnSync('dpkg-query', ['-W', 'svc']).status).not.toBe(0);
  });
});

describe('the release folder', () => {
  it("has SHA-256 sums of exactly this build's artefacts, signed by the repository's key", () => {
    const sums = readFileSync(join(release, 'SHA256SUMS'), 'utf8');
    const listed = sums
      .trim()
      .split('\n')
      .map((line) => line.split('  ')[1]);
    const arm64Deb = join(release, `svc_${version}_arm64.deb`);
    expect(listed).toEqual([x64, arm64, deb, tarball, `${arm64}.tar.gz`, arm64Deb].map((file) => basename(file)).sort());
    const checked = spawnSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: release, encoding: 'utf8' });
    expect(checked.status, checked.stdout + checked.stderr).toBe(0);
    const home = mkdtempSync(join(scratch, 'verify-'));
    const verified = spawnSync('gpg', ['--no-default-keyring', '--keyring', './svc-archive-keyring.gpg', '--verify', 'SHA256SUMS.asc', 'SHA256SUMS'], {
      cwd: release,
      env: { PATH: process.env.PATH, HOME: home },
      encoding: 'utf8',
    });
    expect(verified.status, verified.stderr).toBe(0);
    // The same keyring as the apt repository's.
    expect(readFileSync(join(release, 'svc-archive-keyring.gpg')).equals(readFileSync(join(release, 'apt/svc-archive-keyring.gpg')))).toBe(true);
  });

  it('has a tarball of each binary with its man pages, completions and licences, the binary the same bytes', () => {
    const folder = basename(x64);
    const listed = spawnSync('tar', ['-tzvf', tarball], { encoding: 'utf8' }).stdout.trim().split('\n');
    const names = listed.map((line) => line.split(/\s+/).at(-1)!);
    for (const path of [
      'bin/svc',
      'share/man/man1/svc.1',
      'share/man/man1/svc-calls-start.1',
      'share/completions/svc.bash',
      'LICENSE',
      'node-LICENSE',
      'THIRD_PARTY_NOTICES.txt',
    ])
      expect(names).toContain(`${folder}/${path}`);
    expect(listed.filter((line) => !line.includes(' 0/0 '))).toEqual([]);
    const unpacked = join(scratch, 'tarball');
    mkdirSync(unpacked);
    expect(spawnSync('tar', ['-xzf', tarball, '-C', unpacked]).status).toBe(0);
    expect(readFileSync(join(unpacked, folder, 'bin/svc')).equals(readFileSync(x64))).toBe(true);
  });

  it('is reproducible: built again from the same files, the binary and the .deb are the same bytes, and hold no build path', () => {
    const again = join(scratch, 'again');
    const made = spawnSync(process.execPath, ['scripts/dist.mjs', '--arch', 'x64', '--out', again], { cwd: root, encoding: 'utf8', env: testBuildEnv });
    expect(made.status, made.stderr).toBe(0);
    for (const file of [x64, deb, tarball]) expect(readFileSync(join(again, basename(file))).equals(readFileSync(file)), basename(file)).toBe(true);
    expect(readFileSync(x64).includes(Buffer.from(root.replace(/\/$/, '')))).toBe(false);
  }, 600_000);

  it('fails rather than leave the arm64 binary unstripped where aarch64-linux-gnu-strip is missing', () => {
    const path = join(scratch, 'path-without-strip');
    mkdirSync(path);
    for (const from of ['/usr/local/bin', '/usr/bin', '/bin']) {
      if (!existsSync(from)) continue;
      for (const name of readdirSync(from))
        if (name !== 'aarch64-linux-gnu-strip' && !existsSync(join(path, name))) symlinkSync(join(from, name), join(path, name));
    }
    const out = join(scratch, 'unstripped');
    const made = spawnSync(process.execPath, ['scripts/dist.mjs', '--arch', 'arm64', '--no-deb', '--out', out], {
      cwd: root,
      encoding: 'utf8',
      env: { ...testBuildEnv, PATH: path },
    });
    expect(made.status).not.toBe(0);
    expect(made.stderr).toContain('aarch64-linux-gnu-strip is missing (Debian package binutils-aarch64-linux-gnu)');
    expect(existsSync(join(out, `svc-${version}-linux-arm64`))).toBe(false);
  });
});
