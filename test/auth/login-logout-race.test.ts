// `svc login` racing `svc logout` on one profile (issue 52): whatever the interleaving, both
// succeed and the files and the service agree afterwards: signed in (secret, config.json entry,
// app connected) or not at all (nothing stored, app disconnected). Each side is paused at each
// step of its credential transaction (src/credentials/transaction.ts) while the other runs;
// then 100 rounds of the two started at staggered moments. Against the emulator, over HTTP,
// with the file store each command opens as a process of its own would.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestEmulator } from '../helpers/emulator.js';
import { FileSecretStore } from '../../src/credentials/store.js';
import type { TransactionStep, TransactionSteps } from '../../src/credentials/transaction.js';
import type { RunCliScreen } from '../helpers/cli.js';
import { consistent, gateAt, outcome, profileDir, runSide, staggeredRounds, type RaceSetup, type Side } from '../helpers/login-race.js';

const emu = useTestEmulator({ resetEach: true });

const setup: RaceSetup = {
  emulator: () => emu().emulator,
  reset: () => emu().reset(),
  profile: 'default',
  env: { SVC_CREDENTIAL_STORE: 'file' },
  store: (configDir) => ({ secrets: new FileSecretStore(configDir) }),
  secretStored: async (configDir) => (await new FileSecretStore(configDir).get('default', 'oauth')) !== null,
};

const STEPS: Record<Side, TransactionStep[]> = {
  login: ['waiting', 'locked', 'signed-in', 'secret-written', 'config-written', 'unlocking'],
  logout: ['waiting', 'locked', 'revoked', 'secret-deleted', 'config-written', 'unlocking'],
};

/** A hook that resolves `reached` when the command gets to `step`, without stopping it. */
function watchFor(step: TransactionStep) {
  let reach!: () => void;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const steps: TransactionSteps = async (at) => {
    if (at === step) reach();
  };
  return { steps, reached };
}

const cases = (['signed out', 'signed in'] as const).flatMap((start) =>
  (['login', 'logout'] as const).flatMap((first) => STEPS[first].map((step) => ({ start, first, step }))),
);

describe('login racing logout: each side paused at each step of its transaction', () => {
  it.each(cases)('$start profile, $first paused at $step: both succeed, files and service agree', async ({ start, first, step }) => {
    const configDir = await profileDir(setup, start === 'signed out');
    const second: Side = first === 'login' ? 'logout' : 'login';
    const gate = gateAt(step);
    const firstRun = runSide(setup, first, configDir, gate.steps);
    // A step the first never reaches (a logout with nothing to revoke): it simply finishes first.
    const paused = await Promise.race([gate.reached.then(() => 'paused' as const), firstRun.then(() => 'done' as const)]);
    let secondRun: Promise<RunCliScreen>;
    if (paused === 'paused' && step !== 'waiting') {
      // The first holds the profile's lock: the second gets as far as waiting for it, then the first goes on.
      const waiting = watchFor('waiting');
      secondRun = runSide(setup, second, configDir, waiting.steps);
      await waiting.reached;
      gate.open();
    } else {
      // The first has not taken the lock yet (or is done): the second runs whole before it.
      secondRun = runSide(setup, second, configDir);
      await secondRun;
      gate.open();
    }
    const [a, b] = await Promise.all([firstRun, secondRun]);
    expect(a.exitCode, a.stderr).toBe(0);
    expect(b.exitCode, b.stderr).toBe(0);
    const found = await outcome(setup, configDir);
    expect(consistent(found), JSON.stringify(found)).toBe(true);
  });
});

describe('login racing logout: 100 rounds', () => {
  it('ends consistent in every round, the two started at staggered moments', async () => {
    expect(await staggeredRounds(setup, 100)).toEqual([]);
  }, 300_000);
});

describe('a login that cannot finish its transaction', () => {
  it('revokes what it was issued and deletes the secret it stored: nothing half stays', async () => {
    const configDir = await profileDir(setup, true);
    // Once the secret is stored, config.json turns unreadable: the login cannot record the sign-in.
    const login = await runSide(setup, 'login', configDir, async (step) => {
      if (step === 'secret-written') writeFileSync(join(configDir, 'config.json'), '{ not json');
    });
    expect(login.exitCode).not.toBe(0);
    expect(login.stderr).toContain('config.json');
    expect(login.stderr).toContain('revoked at the service');
    expect(await outcome(setup, configDir)).toEqual({ configSignIn: false, secret: false, connected: false });
  });
});
