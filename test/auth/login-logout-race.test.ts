// `svc login` racing `svc logout` on one profile (issue 52): whatever the interleaving, both
// succeed and the files and the service agree afterwards: signed in (secret, config.json entry,
// app connected) or not at all (nothing stored, app disconnected). Each side is paused at each
// step of its credential transaction (src/credentials/transaction.ts) while the other runs;
// then 100 rounds of the two started at staggered moments. Against the emulator, over HTTP,
// with the file store each command opens as a process of its own would.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestEmulator } from '../helpers/emulator.js';
import { FileSecretStore } from '../../src/credentials/store.js';
import type { TransactionStep, TransactionSteps } from '../../src/credentials/transaction.js';
import { runCli, tempConfigDir, type RunCliScreen } from '../helpers/cli.js';
import { controlPlane, envFor, scriptedBrowser } from './support.js';

const emu = useTestEmulator({ resetEach: true });
const emulator = () => emu().emulator;

type Side = 'login' | 'logout';
const STEPS: Record<Side, TransactionStep[]> = {
  login: ['waiting', 'locked', 'signed-in', 'secret-written', 'config-written', 'unlocking'],
  logout: ['waiting', 'locked', 'revoked', 'secret-deleted', 'config-written', 'unlocking'],
};

/** One command of a side, in-process, on the shared config dir, with its own file store (as its own process would have). */
function run(side: Side, configDir: string, transactionSteps?: TransactionSteps): Promise<RunCliScreen> {
  return runCli(side === 'login' ? ['login'] : ['logout', '--yes'], {
    env: envFor(emulator(), { SVC_CREDENTIAL_STORE: 'file' }),
    browser: scriptedBrowser(emulator()),
    secrets: new FileSecretStore(configDir),
    configDir,
    ...(transactionSteps ? { transactionSteps } : {}),
  });
}

/** A gate at one step: `reached` resolves when the command gets there; it waits there until open(). */
function gateAt(step: TransactionStep) {
  let reach!: () => void;
  let open!: () => void;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const opened = new Promise<void>((resolve) => (open = resolve));
  let passed = false;
  const steps: TransactionSteps = async (at) => {
    if (at !== step || passed) return;
    passed = true;
    reach();
    await opened;
  };
  return { steps, reached, open };
}

/** A hook that resolves `reached` when the command gets to `step`, without stopping it. */
function watchFor(step: TransactionStep) {
  let reach!: () => void;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const steps: TransactionSteps = async (at) => {
    if (at === step) reach();
  };
  return { steps, reached };
}

interface Outcome {
  configSignIn: boolean;
  secret: boolean;
  connected: boolean;
}

async function outcome(configDir: string): Promise<Outcome> {
  let config: { profiles?: Record<string, { oauth?: unknown }> } = {};
  try {
    config = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'));
  } catch {
    // No config.json: nothing is signed in.
  }
  const secret = (await new FileSecretStore(configDir).get('default', 'oauth')) !== null;
  const apps = (await controlPlane(emulator()).connections(emulator().seed.org_id)).data;
  return { configSignIn: config.profiles?.default?.oauth !== undefined, secret, connected: apps.some((app) => app.client_id === 'svc_app_cli') };
}

function consistent(found: Outcome): boolean {
  return (found.configSignIn && found.secret && found.connected) || (!found.configSignIn && !found.secret && !found.connected);
}

/** A profile signed in, or (`signedOut`) signed in and out again: it exists, with nothing stored. */
async function profileDir(signedOut: boolean): Promise<string> {
  const configDir = tempConfigDir();
  const login = await run('login', configDir);
  expect(login.exitCode, login.stderr).toBe(0);
  if (signedOut) expect((await run('logout', configDir)).exitCode).toBe(0);
  return configDir;
}

const cases = (['signed out', 'signed in'] as const).flatMap((start) =>
  (['login', 'logout'] as const).flatMap((first) => STEPS[first].map((step) => ({ start, first, step }))),
);

describe('login racing logout: each side paused at each step of its transaction', () => {
  it.each(cases)('$start profile, $first paused at "$step": both succeed, files and service agree', async ({ start, first, step }) => {
    const configDir = await profileDir(start === 'signed out');
    const second: Side = first === 'login' ? 'logout' : 'login';
    const gate = gateAt(step);
    const firstRun = run(first, configDir, gate.steps);
    // A step the first never reaches (a logout with nothing to revoke): it simply finishes first.
    const firstDone = firstRun.then(() => 'done' as const);
    const paused = await Promise.race([gate.reached.then(() => 'paused' as const), firstDone]);
    let secondRun: Promise<RunCliScreen>;
    if (paused === 'paused' && step !== 'waiting') {
      // The first holds the profile's lock: the second gets as far as waiting for it, then the first goes on.
      const waiting = watchFor('waiting');
      secondRun = run(second, configDir, waiting.steps);
      await waiting.reached;
      gate.open();
    } else {
      // The first has not taken the lock yet (or is done): the second runs whole before it.
      secondRun = run(second, configDir);
      await secondRun;
      gate.open();
    }
    const [a, b] = await Promise.all([firstRun, secondRun]);
    expect(a.exitCode, a.stderr).toBe(0);
    expect(b.exitCode, b.stderr).toBe(0);
    const found = await outcome(configDir);
    expect(consistent(found), JSON.stringify(found)).toBe(true);
  });
});

describe('login racing logout: 100 rounds', () => {
  it('ends consistent in every round, the two started at staggered moments', async () => {
    const inconsistent: string[] = [];
    for (let round = 0; round < 100; round++) {
      const configDir = await profileDir(round % 2 === 0);
      // From the logout 20 ms ahead to 60 ms behind: across the whole of a login's transaction.
      const offset = ((round * 37) % 81) - 20;
      const later = (side: Side) => new Promise<RunCliScreen>((resolve) => setTimeout(() => resolve(run(side, configDir)), Math.abs(offset)));
      const [login, logout] = offset >= 0 ? [run('login', configDir), later('logout')] : [later('login'), run('logout', configDir)];
      const [a, b] = await Promise.all([login, logout]);
      const found = await outcome(configDir);
      if (a.exitCode !== 0 || b.exitCode !== 0 || !consistent(found))
        inconsistent.push(`round ${round} (offset ${offset} ms): login ${a.exitCode}, logout ${b.exitCode}, ${JSON.stringify(found)} ${a.stderr}${b.stderr}`);
      // The next round starts from the seed: no grant of this one left connected.
      await emu().reset();
    }
    expect(inconsistent).toEqual([]);
  }, 300_000);
});
