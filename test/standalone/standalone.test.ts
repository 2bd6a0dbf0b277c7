// svc without Node (`npm run dist`, scripts/dist.mjs): the linux-x64 single executable run
// with no `node` on its PATH, the linux-arm64 one under qemu-user, and the .deb installed
// and removed with dpkg. scripts/test-standalone.sh runs this file (under a D-Bus session
// with gnome-keyring), then the spawned-binary and terminal suites against the binary.
// Each part skips with a visible reason when its programs are absent; SVC_REQUIRE_REAL=1
// (CI) turns that into a failure.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root, spawnCollect, type Spawned } from '../helpers/spawn.js';

const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const release = join(root, 'release');
const x64 = join(release, `svc-${version}-linux-x64`);
const arm64 = join(release, `svc-${version}-linux-arm64`);
const deb = join(release, `svc-${version}_amd64.deb`);
const required = process.env.SVC_REQUIRE_REAL === '1';
const scratch = mkdtempSync(join(tmpdir(), 'svc-standalone-'));

/** The newest change of what the binaries are built from (the bundle, the launcher, the loader). */
function newestSource(): number {
  const files = ['dist', 'bin', 'packaging', 'completions', 'man'].flatMap((dir) =>
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
  const fresh = [x64, arm64, deb, sums].every(existsSync) && statSync(sums).mtimeMs > newestSource();
  if (fresh) return;
  const made = spawnSync(process.execPath, ['scripts/dist.mjs'], { cwd: root, encoding: 'utf8' });
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

/** The environment of a run: a home of its own (its cache dir is where the binary unpacks), no node on PATH. */
function envFor(home: string, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string | undefined> = { PATH, HOME: home, SVC_CONFIG_DIR: join(home, 'config'), NO_COLOR: '1', LANG: 'C.UTF-8', ...extra };
  return Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined));
}

const freshHome = () => mkdtempSync(join(scratch, 'home-'));

function run(binary: string, args: string[], env: Record<string, string>, stdin?: string): Promise<Spawned> {
  return spawnCollect(binary, args, { env, ...(stdin === undefined ? {} : { stdin }) });
}

interface Emulator {
  url: string;
  org_id: string;
  keys: { test: string; live: string };
  admin: { email: string; password: string };
  stop(): Promise<void>;
}

/** `svc emulator --port 0 --json` of the binary itself (under `launcher`, qemu for arm64): its first line says where. */
function startEmulator(command: string, args: string[], env: Record<string, string>): Promise<Emulator> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args, 'emulator', '--port', '0', '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`the emulator exited (${code}): ${err}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!out.includes('\n')) return;
      const started = JSON.parse(out.split('\n')[0]!) as Omit<Emulator, 'stop'>;
      resolve({
        ...started,
        stop: () =>
          new Promise<void>((done) => {
            child.removeAllListeners('exit');
            child.once('exit', () => done());
            child.kill('SIGINT');
          }),
      });
    });
  });
}

beforeAll(() => {
  ensureReleased();
  PATH = pathWithoutNode();
}, 600_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the linux-x64 binary, on a PATH with no node', () => {
  let emulator: Emulator;
  beforeAll(async () => {
    emulator = await startEmulator(x64, [], envFor(freshHome()));
  }, 60_000);
  afterAll(async () => emulator?.stop());

  it('finds no node on that PATH', () => {
    expect(spawnSync('sh', ['-c', 'command -v node || command -v nodejs'], { env: { PATH } }).status).not.toBe(0);
  });

  it('prints its version, and unpacks on first run into a folder of the user’s own, named by its content, used as it is after', async () => {
    const home = freshHome();
    const first = await run(x64, ['--version'], envFor(home));
    expect(first).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
    const base = join(home, '.cache', 'svc', 'standalone');
    const [folder, ...others] = readdirSync(base);
    expect(others).toEqual([]);
    expect(folder).toMatch(new RegExp(`^${version.replace(/\./g, '\\.')}-x64-[0-9a-f]{16}$`));
    for (const dir of [join(home, '.cache', 'svc'), base, join(base, folder!)]) expect(lstatSync(dir).mode & 0o777).toBe(0o700);
    const addon = readdirSync(join(base, folder!, 'node_modules/@napi-rs/keyring')).find((f) => f.endsWith('.node'));
    expect(addon).toMatch(/^keyring-[0-9a-f]{16}\.node$/);
    const before = lstatSync(join(base, folder!)).ino;
    expect((await run(x64, ['--version'], envFor(home))).stdout).toBe(`${version}\n`);
    expect(lstatSync(join(base, folder!)).ino).toBe(before);
  });

  it('starts four times at once on a fresh machine: each run answers, one folder is left', async () => {
    const home = freshHome();
    const runs = await Promise.all([1, 2, 3, 4].map(() => run(x64, ['--version'], envFor(home))));
    for (const ran of runs) expect(ran).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
    expect(readdirSync(join(home, '.cache', 'svc', 'standalone'))).toHaveLength(1);
  });

  it('prints help', async () => {
    const ran = await run(x64, ['--help'], envFor(freshHome()));
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('Usage: svc [options] [command]');
    expect(ran.stdout).toContain('calls');
  });

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

  it('refuses a cache folder others can open, and says what to do', async () => {
    const home = freshHome();
    expect((await run(x64, ['--version'], envFor(home))).code).toBe(0);
    chmodSync(join(home, '.cache', 'svc', 'standalone'), 0o755);
    const ran = await run(x64, ['--version'], envFor(home));
    expect(ran.code).toBe(1);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toContain("is not a folder of this user's own with mode 0700 (fix: chmod 700");
  });

  it('unpacks under the OS temp dir, in a folder of the user’s own, when the home cannot hold a cache', async () => {
    const home = join(freshHome(), 'not-a-folder');
    writeFileSync(home, '');
    const temp = freshHome();
    const ran = await run(x64, ['--version'], envFor(home, { TMPDIR: temp }));
    expect(ran).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
    const base = join(temp, `svc-${process.getuid!()}`);
    expect(lstatSync(base).mode & 0o777).toBe(0o700);
    expect(readdirSync(join(base, 'standalone'))).toHaveLength(1);
  });

  it('stores a key in credentials.json (0600), saying why, when its keychain addon is not the one it was built with', async () => {
    const home = freshHome();
    expect((await run(x64, ['--version'], envFor(home))).code).toBe(0);
    const base = join(home, '.cache', 'svc', 'standalone');
    const keyring = join(base, readdirSync(base)[0]!, 'node_modules/@napi-rs/keyring');
    const addon = join(
      keyring,
      readdirSync(keyring).find((f) => f.endsWith('.node'))!,
    );
    writeFileSync(addon, 'not an addon');
    const env = envFor(home, { SVC_BASE_URL: emulator.url, DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS });
    const added = await run(x64, ['keys', 'add', '--name', 'ci'], env, emulator.keys.test);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toContain(`the keychain addon ${addon} is not the one svc was built with`);
    const credentials = join(home, 'config', 'credentials.json');
    expect(statSync(credentials).mode & 0o777).toBe(0o600);
    expect(readFileSync(credentials, 'utf8')).toContain(emulator.keys.test);
    const account = await run(x64, ['account', '--json'], env);
    expect(JSON.parse(account.stdout)).toMatchObject({ id: emulator.org_id });
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

/** How this process runs dpkg as root: itself, or through `sudo -n` (CI machines that are not root). */
const asRoot: string[] | null = process.getuid?.() === 0 ? [] : spawnSync('sudo', ['-n', 'true']).status === 0 ? ['sudo', '-n'] : null;
const dpkg = (...args: string[]) => spawnSync(asRoot![0] ?? 'dpkg', asRoot!.length ? [...asRoot!.slice(1), 'dpkg', ...args] : args, { encoding: 'utf8' });

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

describe.skipIf(dpkgProblem !== null && !required)(`the .deb${dpkgProblem && !required ? ` (skipped: ${dpkgProblem})` : ''}`, () => {
  // Every path the package holds (dpkg-deb -c), and which of its folders were there before.
  const paths = () =>
    spawnSync('dpkg-deb', ['-c', deb], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n')
      .map((line) => line.slice(line.indexOf('./') + 1).replace(/\/$/, ''))
      .filter((path) => path !== '');
  let before: Set<string>;

  it('installs with dpkg -i: a working svc, its man pages and its bash completion', async () => {
    expect(dpkgProblem).toBeNull();
    before = new Set(paths().filter((path) => existsSync(path)));
    expect([...before].filter((path) => !statSync(path).isDirectory())).toEqual([]);
    const installed = dpkg('-i', deb);
    expect(installed.status, installed.stderr).toBe(0);
    const version = await run('/usr/bin/svc', ['version', '--json'], envFor(freshHome()));
    expect(JSON.parse(version.stdout)).toMatchObject({ install: 'deb', platform: 'linux/x64' });
    expect(spawnSync('man', ['-w', 'svc-calls-start'], { encoding: 'utf8' }).stdout.trim()).toBe('/usr/share/man/man1/svc-calls-start.1.gz');
    const page = spawnSync('man', ['svc-calls-start'], { encoding: 'utf8', env: { PATH: process.env.PATH, MANWIDTH: '80', MANPAGER: 'cat', PAGER: 'cat' } });
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
    for (const doc of ['copyright', 'THIRD_PARTY_NOTICES.txt.gz', 'node-LICENSE.gz', 'keyring-addon-LICENSE.third-party.md.gz'])
      expect(existsSync(join('/usr/share/doc/svc', doc))).toBe(true);
  });

  it('dpkg -r removes every file and folder it added', () => {
    expect(dpkgProblem).toBeNull();
    const removed = dpkg('-r', 'svc');
    expect(removed.status, removed.stderr).toBe(0);
    expect(paths().filter((path) => existsSync(path) && !before.has(path))).toEqual([]);
    expect(existsSync('/usr/bin/svc')).toBe(false);
  });
});

describe('the release folder', () => {
  it('has SHA-256 sums that match every artefact', () => {
    const sums = readFileSync(join(release, 'SHA256SUMS'), 'utf8');
    for (const file of [x64, arm64, deb]) expect(sums).toContain(`  ${basename(file)}\n`);
    const checked = spawnSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: release, encoding: 'utf8' });
    expect(checked.status, checked.stdout + checked.stderr).toBe(0);
  });
});
