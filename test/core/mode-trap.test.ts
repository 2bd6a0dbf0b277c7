// The first hour's trap (svc help modes): `svc login` is always live while the emulator's
// objects and the examples' --test are test. svc says which mode it uses and how to switch
// (login, auth status), a 404 that the other mode's credential may explain says "add
// `--test`", and a quiet tail at a terminal says the other mode may hold the events.
import { describe, expect, it } from 'vitest';
import { QUIET_MS } from '../../src/commands/events/tail.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import type { Clock } from '../../src/shared/runtime.js';
import { envFor, scriptedBrowser } from '../auth/support.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';

const emu = useTestEmulator({ resetEach: true });

/** A profile as a newcomer makes it: signed in (live), then the seeded test key added. */
async function newcomer(withTestKey = true) {
  const configDir = tempConfigDir();
  const secrets = new MemorySecretStore();
  const env = envFor(emu().emulator);
  const login = await runCli(['login'], { configDir, secrets, env, browser: scriptedBrowser(emu().emulator) });
  expect(login.exitCode, login.stderr).toBe(0);
  if (withTestKey) expect((await runCli(['keys', 'add'], { configDir, secrets, env, stdin: emu().seed.keys.test })).exitCode).toBe(0);
  return { configDir, secrets, env, login };
}

/** A clock whose QUIET_MS sleep ends when the test says; every other sleep is real time. */
function heldQuietClock(): Clock & { release(): void; asked: Promise<void> } {
  let release = () => {};
  let asked = () => {};
  const askedPromise = new Promise<void>((resolve) => (asked = resolve));
  const held = new Promise<void>((resolve) => (release = resolve));
  return {
    now: () => Date.now(),
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
        if (ms === QUIET_MS) {
          asked();
          void held.then(resolve);
        } else setTimeout(resolve, ms);
      }),
    release: () => release(),
    asked: askedPromise,
  };
}

describe('the mode trap', () => {
  it('svc login says it signed in to live mode and how to work in test mode', async () => {
    const { login } = await newcomer(false);
    expect(login.stderr).toContain('svc uses live mode for profile "default" (a sign-in is always live).');
    expect(login.stderr).toContain('For test mode: `svc keys add` a svc_test_ key, then `svc mode test` (or --test).');
  });

  it('svc auth status says the mode commands use, why, and how to switch', async () => {
    const { configDir, secrets, env } = await newcomer();
    const status = await runCli(['auth', 'status', '--offline'], { configDir, secrets, env });
    expect(status.stdout).toContain("Mode: live (the profile's mode, from its first credential); switch with `svc mode test`, or --test for one command.");
    expect((await runCli(['mode', 'test'], { configDir, secrets, env })).exitCode).toBe(0);
    const after = await runCli(['auth', 'status', '--offline'], { configDir, secrets, env });
    expect(after.stdout).toContain("Mode: test (the profile's mode (svc mode)); switch with `svc mode live`, or --live for one command.");
  });

  it('a test call looked up in live mode: 404 saying add `--test`; found with it', async () => {
    const { configDir, secrets, env } = await newcomer();
    const id = (await runCli(['calls', 'start', '--languages', 'en,es', '--test', '--jq', '.id'], { configDir, secrets, env })).stdout.trim();
    expect(id).toMatch(/^call_/);
    const missed = await runCli(['calls', 'get', id], { configDir, secrets, env });
    expect(missed.exitCode).toBe(5);
    expect(missed.stderr).toContain('if it is a test-mode object, add `--test`');
    expect((await runCli(['calls', 'get', id, '--test'], { configDir, secrets, env })).exitCode).toBe(0);
  });

  it('without a credential of the other mode, the 404 names both causes and no flag', async () => {
    const { configDir, secrets, env } = await newcomer(false);
    const missed = await runCli(['calls', 'get', 'call_nothing'], { configDir, secrets, env });
    expect(missed.exitCode).toBe(5);
    expect(missed.stderr).toContain('objects of another organization or of the other mode answer 404 too (this is live mode)');
    expect(missed.stderr).not.toContain('add `--');
  });

  it('events tail at a terminal, quiet in live mode with a test key stored: says so on stderr, stdout untouched', async () => {
    const { configDir, secrets, env } = await newcomer();
    const clock = heldQuietClock();
    const stop = new AbortController();
    const tail = runCli(['events', 'tail'], { configDir, secrets, env, tty: true, clock, signal: stop.signal, columns: 80 });
    await clock.asked;
    clock.release();
    // The note follows the quiet period at once (a settled promise); then Ctrl-C ends the tail.
    await new Promise((resolve) => setImmediate(resolve));
    stop.abort();
    const ended = await tail;
    expect(ended.stderr).toContain(
      'no live-mode event for 5 s; profile "default" has a test-mode credential too:\n  add `--test` for its events (svc events tail --test)\n',
    );
    expect(ended.stdout).toBe('');
    for (const line of ended.stderr.split('\n')) expect(line.length, line).toBeLessThanOrEqual(80);
  });

  it('events tail that heard an event says nothing of the other mode once the quiet period ends', async () => {
    const { configDir, secrets, env } = await newcomer();
    expect((await runCli(['calls', 'start', '--languages', 'en,es', '--live', '--yes'], { configDir, secrets, env })).exitCode).toBe(0);
    const clock = heldQuietClock();
    const stop = new AbortController();
    let printed = () => {};
    const eventPrinted = new Promise<void>((resolve) => (printed = resolve));
    const tail = runCli(['events', 'tail', '--since', 'start'], {
      configDir,
      secrets,
      env,
      tty: true,
      clock,
      signal: stop.signal,
      onStdout: (out) => /call\./.test(out) && printed(),
    });
    await Promise.all([clock.asked, eventPrinted]);
    clock.release();
    await new Promise((resolve) => setImmediate(resolve));
    stop.abort();
    const ended = await tail;
    expect(ended.stdout).toMatch(/call\./);
    expect(ended.stderr).not.toContain('mode event for');
  });
});
