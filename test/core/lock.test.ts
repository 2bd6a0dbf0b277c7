// The cross-process lock (src/config/lock.ts): a lock left by a killed process is taken
// over at once, and a live holder that keeps a command waiting is named on stderr.
// The holder here is a real process: a child that is SIGKILLed, or this test process.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireFileLock, withFileLock } from '../../src/config/lock.js';
import { currentHolder, lockPathOf } from '../../src/files/lock.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { InterruptedError } from '../../src/errors.js';

/** A process that is SIGKILLed (and reaped) before this resolves: its pid names no process. */
async function killedProcessPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore' });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  await exited;
  return child.pid!;
}

/** A clock whose sleeps pass at once and are counted: a wait shows up as sleeps, not as test time. */
function countingClock() {
  let now = Date.now();
  const clock = {
    sleeps: 0,
    now: () => now,
    sleep: async (ms: number) => {
      clock.sleeps++;
      now += ms;
    },
  };
  return clock;
}

describe('lock holders', () => {
  it('records who holds the lock: pid, host, start time', async () => {
    const dir = tempConfigDir();
    const target = join(dir, 'config.json');
    const release = await acquireFileLock(target);
    const record = JSON.parse(readFileSync(lockPathOf(target), 'utf8'));
    expect(record).toMatchObject({ pid: process.pid, host: currentHolder().host });
    expect(Date.parse(record.started_at)).toBeLessThanOrEqual(Date.parse(record.acquired_at));
    await release();
  });

  it('takes over a lock left by a SIGKILLed process at once: no wait, no notice', async () => {
    const dir = tempConfigDir();
    const target = join(dir, 'config.json');
    await acquireFileLock(target, { holder: { ...currentHolder(), pid: await killedProcessPid() } }); // never released: its holder died
    const clock = countingClock();
    const notices: string[] = [];
    expect(await withFileLock(target, async () => 'got it', { ...clock, onWait: (m) => notices.push(m) })).toBe('got it');
    expect(clock.sleeps).toBe(0);
    expect(notices).toEqual([]);
  });

  it('a command after a SIGKILLed holder of config.json succeeds without a wait notice', async () => {
    const configDir = tempConfigDir();
    await acquireFileLock(join(configDir, 'config.json'), { holder: { ...currentHolder(), pid: await killedProcessPid() } });
    const ran = await runCli(['mode', 'test'], { configDir });
    expect(ran.exitCode).toBe(0);
    expect(ran.stderr).not.toContain('waiting');
    expect(JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles.default.mode).toBe('test');
  });

  it('waits for a live holder, and names it after a second', async () => {
    const dir = tempConfigDir();
    const target = join(dir, 'config.json');
    const releaseHeld = await acquireFileLock(target); // held by this (live) process
    const clock = countingClock();
    const notices: string[] = [];
    const started = clock.now();
    let noticedAt = 0;
    const result = await withFileLock(target, async () => 'got it', {
      ...clock,
      onWait: (message) => {
        notices.push(message);
        noticedAt = clock.now() - started;
        void releaseHeld(); // the holder finishes once we have been told
      },
    });
    expect(result).toBe('got it');
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain(`pid ${process.pid}`);
    expect(notices[0]).toContain(lockPathOf(target));
    expect(noticedAt).toBeGreaterThanOrEqual(1000);
    expect(noticedAt).toBeLessThan(1500);
  });

  it('takes over a lock nobody refreshed for longer than the stale bound, even if its pid is alive', async () => {
    const dir = tempConfigDir();
    const target = join(dir, 'config.json');
    await acquireFileLock(target, { holder: { ...currentHolder(), pid: process.ppid } });
    const { utimesSync } = await import('node:fs');
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockPathOf(target), old, old);
    const clock = countingClock();
    expect(await withFileLock(target, async () => 'got it', clock)).toBe('got it');
    expect(clock.sleeps).toBe(0);
  });

  it('Ctrl-C stops the wait for a live holder: InterruptedError (exit 130)', async () => {
    const dir = tempConfigDir();
    const target = join(dir, 'config.json');
    const release = await acquireFileLock(target);
    const controller = new AbortController();
    const clock = countingClock();
    const waiting = withFileLock(target, async () => 'got it', { ...clock, signal: controller.signal, onWait: () => controller.abort() });
    await expect(waiting).rejects.toBeInstanceOf(InterruptedError);
    await release();
  });

  it("many waiters on a dead holder's lock: one takes it over, the rest take turns, never two inside", async () => {
    const dir = tempConfigDir();
    const target = join(dir, 'config.json');
    await acquireFileLock(target, { holder: { ...currentHolder(), pid: await killedProcessPid() } });
    let inside = 0;
    let maxInside = 0;
    let done = 0;
    await Promise.all(
      Array.from({ length: 8 }, () =>
        withFileLock(target, async () => {
          inside++;
          maxInside = Math.max(maxInside, inside);
          await new Promise((resolve) => setImmediate(resolve));
          inside--;
          done++;
        }),
      ),
    );
    expect(done).toBe(8);
    expect(maxInside).toBe(1);
  });
});
