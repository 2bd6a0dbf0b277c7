// A refresh on a nearly full disk, and a read-only home (issue 32). Real component: tmpfs
// mounts made for the test (needs root and mount(2); skipped with its reason elsewhere, a
// failure under SVC_REQUIRE_REAL=1). For the refresh the config folder lives on a 1 MiB tmpfs
// with one page (4 KiB) left free, as a user's nearly full home would: the profile's lock
// takes that page, so nothing else fits.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { requireReal } from '../helpers/chromium.js';
import { envFor, scriptedBrowser, stats } from '../auth/support.js';
import { failingKeychain } from '../helpers/keychains.js';

function mountTmpfs(options = 'size=1m,mode=0700'): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'svc-full-disk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'pipe' });
    return dir;
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    if (requireReal) throw error;
    console.warn(`skipping the full-disk suite: cannot mount a tmpfs here (${(error as Error).message.split('\n')[0]}); it needs root`);
    return null;
  }
}

const mount = mountTmpfs();
/** No Secret Service: every keychain call fails, as on a headless box. */
const noKeychain = failingKeychain('no keychain in this test');

describe.skipIf(mount === null)('a refresh on a nearly full disk (real tmpfs)', () => {
  const dir = join(mount ?? '', 'config');
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
  });
  afterAll(async () => {
    await emulator?.close();
    if (mount) {
      execFileSync('umount', [mount]);
      rmSync(mount, { recursive: true, force: true });
    }
  });

  it('fails before the refresh token is spent; with space back, the sign-in still works', async () => {
    const run = (argv: string[]) =>
      runCli(argv, { env: envFor(emulator, { SVC_CREDENTIAL_STORE: 'file' }), configDir: dir, keychain: noKeychain, browser: scriptedBrowser(emulator) });
    const login = await run(['login']);
    expect(login.exitCode, login.stderr).toBe(0);
    // The access token expired: the next live command must refresh first.
    const credentials = join(dir, 'credentials.json');
    const file = JSON.parse(readFileSync(credentials, 'utf8'));
    const key = 'default:oauth';
    file.secrets[key] = JSON.stringify({ ...JSON.parse(file.secrets[key]), expires_at: 0 });
    writeFileSync(credentials, JSON.stringify(file, null, 2) + '\n');
    const before = (await stats(emulator)).refreshes;

    const filler = join(mount!, 'filler');
    const { bavail, bsize } = statfsSync(mount!);
    writeFileSync(filler, Buffer.alloc(bavail * bsize - 4096));
    const full = await run(['--live', 'account']);
    expect(full.exitCode).not.toBe(0);
    expect(full.stderr).toContain('the disk is full');
    expect((await stats(emulator)).refreshes).toBe(before);
    // Nothing of the failed write stays behind: no temp file, no credentials lock.
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp') || name.endsWith('.lock'))).toEqual([]);

    rmSync(filler);
    const again = await run(['--live', 'account']);
    expect(again.stderr).not.toContain('has ended');
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toContain('Acme');
    expect((await stats(emulator)).refreshes).toBe(before + 1);
  });
});

describe.skipIf(mount === null)('svc login on a nearly full disk (real tmpfs)', () => {
  let emulator: RunningEmulator;
  let disk: string;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
    disk = mountTmpfs()!;
  });
  afterAll(async () => {
    await emulator?.close();
    if (disk) {
      execFileSync('umount', [disk]);
      rmSync(disk, { recursive: true, force: true });
    }
  });

  it('says the disk is full before the browser opens (issue 44), and signs in once there is space', async () => {
    const dir = join(disk, 'config');
    const browser = scriptedBrowser(emulator);
    const run = () => runCli(['login'], { env: envFor(emulator, { SVC_CREDENTIAL_STORE: 'file' }), configDir: dir, keychain: noKeychain, browser });
    const filler = join(disk, 'filler');
    const { bavail, bsize } = statfsSync(disk);
    writeFileSync(filler, Buffer.alloc(bavail * bsize - 4096));
    const full = await run();
    expect(full.exitCode).not.toBe(0);
    expect(full.stderr).toContain('the disk is full');
    expect(browser.opened).toEqual([]);
    expect((await stats(emulator)).tokens_issued).toBe(0);

    rmSync(filler);
    const again = await run();
    expect(again.exitCode, again.stderr).toBe(0);
    expect(browser.opened).toHaveLength(1);
  });
});

const readOnly = mount === null ? null : mountTmpfs('ro,size=64k,mode=0755');

describe.skipIf(readOnly === null)('a read-only home (real read-only tmpfs)', () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
  });
  afterAll(async () => {
    await emulator?.close();
    if (readOnly) {
      execFileSync('umount', [readOnly]);
      rmSync(readOnly, { recursive: true, force: true });
    }
  });

  it('svc login says "read-only" before the browser opens, not ENOENT after the sign-in', async () => {
    const browser = scriptedBrowser(emulator);
    const r = await runCli(['login'], { env: envFor(emulator), configDir: join(readOnly!, '.config', 'svc'), browser });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`cannot write the config folder ${join(readOnly!, '.config', 'svc')}: it is on a read-only file system`);
    expect(r.stderr).toContain('SVC_CONFIG_DIR');
    expect(r.stderr).not.toContain('ENOENT');
    expect(browser.opened).toEqual([]);
  });

  it('svc emulator --state in a read-only folder: exit 2 naming the path, nothing started', async () => {
    const state = join(readOnly!, 'state.jsonl');
    const r = await runCli(['emulator', '--port', '0', '--state', state]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`--state ${state} cannot be written: it is on a read-only file system`);
  });
});
