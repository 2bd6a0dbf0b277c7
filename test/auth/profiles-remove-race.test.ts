// `svc profiles remove` racing `svc login` or `svc keys add` on one profile (issue 52): remove is a
// credential transaction as they are (src/credentials/transaction.ts), so whatever the
// interleaving both succeed and config.json and the secret store agree afterwards: every
// secret config.json names is stored, and nothing is stored that it does not name. Each side
// is paused at each step of its transaction while the other runs, against the emulator, with
// the file store each command opens as a process of its own would.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestEmulator } from '../helpers/emulator.js';
import { runCli, type RunCliScreen } from '../helpers/cli.js';
import { gateAt, profileDir, type RaceSetup } from '../helpers/login-race.js';
import { envFor, scriptedBrowser } from './support.js';
import { FileSecretStore } from '../../src/credentials/store.js';
import type { TransactionStep, TransactionSteps } from '../../src/credentials/transaction.js';

const emu = useTestEmulator({ resetEach: true });
const PROFILE = 'default';
const KEY_NAME = 'ci';

const setup: RaceSetup = {
  emulator: () => emu().emulator,
  reset: () => emu().reset(),
  profile: PROFILE,
  env: { SVC_CREDENTIAL_STORE: 'file' },
  store: (configDir) => ({ secrets: new FileSecretStore(configDir) }),
  secretStored: async (configDir) => (await new FileSecretStore(configDir).get(PROFILE, 'oauth')) !== null,
};

type Side = 'remove' | 'login' | 'keys add';

function run(side: Side, configDir: string, transactionSteps?: TransactionSteps): Promise<RunCliScreen> {
  const argv =
    side === 'remove' ? ['profiles', 'remove', PROFILE, '--yes'] : side === 'login' ? ['login'] : ['keys', 'add', '--name', KEY_NAME, '--stdin', '--replace'];
  return runCli(argv, {
    env: envFor(emu().emulator, setup.env),
    browser: scriptedBrowser(emu().emulator),
    configDir,
    secrets: new FileSecretStore(configDir),
    ...(side === 'keys add' ? { stdin: emu().seed.keys.test } : {}),
    ...(transactionSteps ? { transactionSteps } : {}),
  });
}

/** The secrets config.json names for the profile, and those the store holds, of the names the race can leave. */
async function agreement(configDir: string): Promise<{ named: string[]; stored: string[] }> {
  let profile: { keys?: Record<string, { name: string }>; oauth?: unknown } | undefined;
  try {
    profile = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles?.[PROFILE];
  } catch {
    // No config.json: it names nothing.
  }
  const named = [...Object.values(profile?.keys ?? {}).map((key) => key.name), ...(profile?.oauth ? ['oauth'] : [])].sort();
  const store = new FileSecretStore(configDir);
  const stored: string[] = [];
  for (const name of [KEY_NAME, 'oauth']) if ((await store.get(PROFILE, name)) !== null) stored.push(name);
  return { named, stored };
}

const STEPS: TransactionStep[] = ['waiting', 'locked', 'signed-in', 'secret-written', 'secret-deleted', 'config-written', 'unlocking'];

const cases = (['login', 'keys add'] as const).flatMap((other) =>
  ([other, 'remove'] as const).flatMap((first) =>
    STEPS.map((step) => ({ other, first: first as Side, second: (first === 'remove' ? other : 'remove') as Side, step })),
  ),
);

describe('profiles remove racing login and keys add: each side paused at each step of its transaction', () => {
  it.each(cases)('$first paused at $step, $second meanwhile: both succeed, config.json and the store agree', async ({ first, second, step }) => {
    const configDir = await profileDir(setup, false);
    const gate = gateAt(step);
    const firstRun = run(first, configDir, gate.steps);
    // A step the first never reaches: it simply finishes first.
    const paused = await Promise.race([gate.reached.then(() => 'paused' as const), firstRun.then(() => 'done' as const)]);
    let secondRun: Promise<RunCliScreen>;
    if (paused === 'paused' && step !== 'waiting') {
      // The first holds the profile's lock: the second gets as far as waiting for it, then the first goes on.
      const waiting = gateAt('waiting');
      secondRun = run(second, configDir, async (at, profile) => {
        await waiting.steps(at, profile);
      });
      await waiting.reached;
      waiting.open();
      gate.open();
    } else {
      // The first has not taken the lock yet (or is done): the second runs whole before it.
      secondRun = run(second, configDir);
      await secondRun;
      gate.open();
    }
    const [a, b] = await Promise.all([firstRun, secondRun]);
    expect(a.exitCode, `${first}: ${a.stderr}`).toBe(0);
    expect(b.exitCode, `${second}: ${b.stderr}`).toBe(0);
    const { named, stored } = await agreement(configDir);
    expect(stored, `config.json names ${JSON.stringify(named)}`).toEqual(named);
  });
});
