// A lock held by a stopped process (SIGSTOP, Ctrl-Z) (issue 52): it cannot refresh its lock,
// yet it still holds what it read and writes it when resumed. A waiter must not take the lock
// over as stale and act on what the stopped one already spent (a refresh token): it waits, then
// names the process. Once, `svc account` said the sign-in was lost (exit 3) while it was intact.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireFileLock } from '../../src/config/lock.js';
import { currentHolder, lockPathOf, type LockHolder } from '../../src/files/lock.js';
import { LOCKS_DIR } from '../../src/config/paths.js';
import { ConfigError } from '../../src/errors.js';
import { FileSecretStore } from '../../src/credentials/store.js';
import { useTestEmulator } from '../helpers/emulator.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { envFor, scriptedBrowser } from '../auth/support.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
});

/** A live process, stopped with SIGSTOP, and its holder record as it would have written it. */
async function stoppedProcess(): Promise<LockHolder> {
  // The child reckons its own start, as a holder does: the pipe's delay on a busy machine is not in it.
  const child = spawn(process.execPath, ['-e', 'process.stdout.write(String(Date.now() - Math.round(process.uptime() * 1000))); setInterval(() => {}, 1e9)'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  children.push(child);
  const startedMs = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString())));
    child.once('error', reject);
  });
  child.kill('SIGSTOP');
  // Stopped once the kernel says so: a busy machine may not have run the child since the signal.
  while (!/^T$/.test(readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ').pop()!.split(' ')[0]!)) await new Promise((r) => setImmediate(r));
  return { ...currentHolder(Date.now()), pid: child.pid!, started_at: new Date(startedMs).toISOString() };
}

/** The holder's lock on `target`, last refreshed a minute ago (a stopped holder refreshes nothing). */
function heldSinceAMinute(target: string, holder: LockHolder): void {
  const lock = lockPathOf(target);
  writeFileSync(lock, JSON.stringify(holder) + '\n');
  const old = new Date(Date.now() - 60_000);
  utimesSync(lock, old, old);
}

/** A clock whose sleeps pass at once: a wait shows up as time on this clock, not as test time. */
function fastClock() {
  let now = Date.now();
  return { now: () => now, sleep: async (ms: number) => void (now += ms) };
}

describe.skipIf(process.platform !== 'linux')('a lock held by a stopped process', () => {
  it('is waited for, never taken over as stale, and the failure names the stopped process', async () => {
    const target = join(tempConfigDir(), 'config.json');
    const holder = await stoppedProcess();
    heldSinceAMinute(target, holder);
    const clock = fastClock();
    const started = clock.now();
    const notices: string[] = [];
    const failure = await acquireFileLock(target, { ...clock, onWait: (message) => notices.push(message) }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConfigError);
    expect((failure as ConfigError).message).toContain(`pid ${holder.pid}, stopped`);
    expect((failure as ConfigError).hint).toContain(`kill -CONT ${holder.pid}`);
    expect(clock.now() - started).toBeGreaterThanOrEqual(30_000);
    expect(notices[0]).toContain(`pid ${holder.pid}, stopped`);
    // Still the stopped process's lock.
    expect(JSON.parse(readFileSync(lockPathOf(target), 'utf8')).token).toBe(holder.token);
  });

  it('is taken over when the record names another process that reused the pid (its start time differs)', async () => {
    const target = join(tempConfigDir(), 'config.json');
    const holder = await stoppedProcess();
    heldSinceAMinute(target, { ...holder, started_at: new Date(Date.parse(holder.started_at) - 3_600_000).toISOString() });
    const release = await acquireFileLock(target, fastClock());
    expect(JSON.parse(readFileSync(lockPathOf(target), 'utf8')).pid).toBe(process.pid);
    await release();
  });
});

describe.skipIf(process.platform !== 'linux')('svc account while a stopped process holds the refresh', () => {
  const emu = useTestEmulator({ resetEach: true });

  it('does not say the sign-in is lost (exit 3): it waits, then names the stopped process (exit 1)', async () => {
    const configDir = tempConfigDir();
    const env = envFor(emu().emulator, { SVC_CREDENTIAL_STORE: 'file' });
    const login = await runCli(['login'], { env, browser: scriptedBrowser(emu().emulator), secrets: new FileSecretStore(configDir), configDir });
    expect(login.exitCode, login.stderr).toBe(0);
    // The stopped process had begun the refresh: it holds the profile's lock, its mark is in config.json.
    const holder = await stoppedProcess();
    mkdirSync(join(configDir, LOCKS_DIR), { recursive: true });
    heldSinceAMinute(join(configDir, LOCKS_DIR, 'default'), holder);
    const configPath = join(configDir, 'config.json');
    const config = JSON.parse(readFileSync(configPath, 'utf8'));
    config.profiles.default.oauth.refresh_started_at = new Date().toISOString();
    writeFileSync(configPath, JSON.stringify(config));
    // ...and it spent the refresh token: the new pair is in its memory, not yet stored.
    const stored = JSON.parse(JSON.parse(readFileSync(join(configDir, 'credentials.json'), 'utf8')).secrets['default:oauth']);
    const spent = await fetch(stored.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: stored.refresh_token, client_id: stored.client_id }),
    });
    expect(spent.status).toBe(200);
    // Two hours on: the access token needs a refresh.
    const later = { now: () => Date.now() + 2 * 3_600_000, sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)) };
    const account = await runCli(['account'], { env, secrets: new FileSecretStore(configDir), configDir, clock: later });
    expect(account.exitCode, account.stderr).toBe(1);
    expect(account.stderr).toContain(`pid ${holder.pid}, stopped`);
    expect(account.stderr).not.toMatch(/lost|has ended/);
    // Nothing was marked ended: the stopped process, resumed, stores its pair.
    expect(JSON.parse(readFileSync(configPath, 'utf8')).profiles.default.oauth.ended_at).toBeUndefined();
  }, 60_000);
});
