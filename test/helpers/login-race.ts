// `svc login` racing `svc logout` on one profile (issue 52), for the file store
// (test/auth/login-logout-race.test.ts) and the real keychain (test/real/login-logout-race.test.ts):
// each command in-process with a store of its own, as its own process would have, and the
// outcome read where a user would look: config.json, the secret's store, and the
// organization's connected apps at the emulator.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningEmulator } from '../../src/emulator/index.js';
import type { TransactionStep, TransactionSteps } from '../../src/credentials/transaction.js';
import { runCli, tempConfigDir, type RunCliOptions, type RunCliScreen } from './cli.js';
import { controlPlane } from './emulator.js';
import { envFor, scriptedBrowser } from '../auth/support.js';

export type Side = 'login' | 'logout';

export interface RaceSetup {
  emulator: () => RunningEmulator;
  /** The emulator back to its seed: no grant of an earlier round left connected. */
  reset: () => Promise<void>;
  profile: string;
  env: Record<string, string>;
  /** The store options of one command (a store of its own). */
  store: (configDir: string) => Pick<RunCliOptions, 'secrets' | 'keychain'>;
  /** Whether the profile's OAuth secret is stored. */
  secretStored: (configDir: string) => Promise<boolean>;
}

export function runSide(setup: RaceSetup, side: Side, configDir: string, transactionSteps?: TransactionSteps): Promise<RunCliScreen> {
  return runCli(side === 'login' ? ['login', '--profile', setup.profile] : ['logout', '--yes', '--profile', setup.profile], {
    env: envFor(setup.emulator(), setup.env),
    browser: scriptedBrowser(setup.emulator()),
    configDir,
    ...setup.store(configDir),
    ...(transactionSteps ? { transactionSteps } : {}),
  });
}

export interface Outcome {
  configSignIn: boolean;
  secret: boolean;
  connected: boolean;
}

export async function outcome(setup: RaceSetup, configDir: string): Promise<Outcome> {
  let config: { profiles?: Record<string, { oauth?: unknown }> } = {};
  try {
    config = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'));
  } catch {
    // No config.json: nothing is signed in.
  }
  const apps = (await controlPlane(setup.emulator()).connections(setup.emulator().seed.org_id)).data;
  return {
    configSignIn: config.profiles?.[setup.profile]?.oauth !== undefined,
    secret: await setup.secretStored(configDir),
    connected: apps.some((app) => app.client_id === 'svc_app_cli'),
  };
}

/** Signed in (secret, config.json entry, app connected) or not at all. */
export function consistent(found: Outcome): boolean {
  return (found.configSignIn && found.secret && found.connected) || (!found.configSignIn && !found.secret && !found.connected);
}

/** A profile signed in, or (`signedOut`) signed in and out again: it exists, with nothing stored. */
export async function profileDir(setup: RaceSetup, signedOut: boolean): Promise<string> {
  const configDir = tempConfigDir();
  const login = await runSide(setup, 'login', configDir);
  if (login.exitCode !== 0) throw new Error(`the first login failed: ${login.stderr}`);
  if (signedOut) {
    const logout = await runSide(setup, 'logout', configDir);
    if (logout.exitCode !== 0) throw new Error(`the first logout failed: ${logout.stderr}`);
  }
  return configDir;
}

/**
 * `rounds` races, half from a signed-in profile, half from a signed-out one, the logout started
 * from 20 ms before the login to 60 ms after it (across a login's whole transaction). The rounds
 * that did not end with both at exit 0 and the files and the service agreeing, described.
 */
export async function staggeredRounds(setup: RaceSetup, rounds: number): Promise<string[]> {
  const inconsistent: string[] = [];
  for (let round = 0; round < rounds; round++) {
    const configDir = await profileDir(setup, round % 2 === 0);
    const offset = ((round * 37) % 81) - 20;
    const later = (side: Side) => new Promise<RunCliScreen>((resolve) => setTimeout(() => resolve(runSide(setup, side, configDir)), Math.abs(offset)));
    const [login, logout] = offset >= 0 ? [runSide(setup, 'login', configDir), later('logout')] : [later('login'), runSide(setup, 'logout', configDir)];
    const [a, b] = await Promise.all([login, logout]);
    const found = await outcome(setup, configDir);
    if (a.exitCode !== 0 || b.exitCode !== 0 || !consistent(found))
      inconsistent.push(`round ${round} (offset ${offset} ms): login ${a.exitCode}, logout ${b.exitCode}, ${JSON.stringify(found)} ${a.stderr}${b.stderr}`);
    await setup.reset();
  }
  return inconsistent;
}

/** A gate at one step: `reached` resolves when the command gets there; it waits there until open(). */
export function gateAt(step: TransactionStep) {
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
