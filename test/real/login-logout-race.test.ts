// `svc login` racing `svc logout` with the real OS keychain (gnome-keyring over D-Bus,
// scripts/test-real.sh), 100 rounds (issue 52): every round ends with both at exit 0 and the
// keychain, config.json and the service's connected apps agreeing. The file store's rounds and
// the paused interleavings are test/auth/login-logout-race.test.ts.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEmulator, type TestEmulator } from '../helpers/emulator.js';
import { osKeychain } from '../../src/credentials/store.js';
import { staggeredRounds, type RaceSetup } from '../helpers/login-race.js';
import { prerequisites } from '../helpers/prerequisites.js';

function secretServiceProblem(): string | null {
  if (spawnSync('secret-tool', ['--version']).error) return 'secret-tool (libsecret-tools) is not installed';
  if (!process.env.DBUS_SESSION_BUS_ADDRESS) return 'no D-Bus session (DBUS_SESSION_BUS_ADDRESS unset; run under dbus-run-session, see scripts/test-real.sh)';
  return null;
}

const problem = secretServiceProblem();
prerequisites('keychain', problem, { describe: 'real Secret Service', it: 'is usable' });

describe.skipIf(problem !== null)('login racing logout with the real keychain', () => {
  let emu: TestEmulator;
  const profile = `race-${randomBytes(4).toString('hex')}`;
  const account = `${profile}:oauth`;

  beforeAll(async () => {
    emu = await testEmulator();
  });
  afterAll(async () => {
    spawnSync('secret-tool', ['clear', 'service', 'svc', 'username', account]);
    await emu?.close();
  });

  // 100 rounds (issue 52); scripts/test-all.mjs asks for 20 on every Node but the newest.
  const rounds = Number(process.env.SVC_RACE_ROUNDS ?? 100);
  it(`ends consistent in each of ${rounds} rounds`, async () => {
    const setup: RaceSetup = {
      emulator: () => emu.emulator,
      reset: () => emu.reset(),
      profile,
      env: { SVC_CREDENTIAL_STORE: 'keychain' },
      store: () => ({ keychain: osKeychain(process.env) }),
      secretStored: async () => spawnSync('secret-tool', ['lookup', 'service', 'svc', 'username', account], { encoding: 'utf8' }).stdout.trim() !== '',
    };
    expect(await staggeredRounds(setup, rounds)).toEqual([]);
  }, 600_000);
});
