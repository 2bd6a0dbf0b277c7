// The keychain's writer is ready before what a failed write would lose is spent: the keychain
// process starts (and loads its addon) before the refresh request spends the old refresh
// token, and before a login exchanges its code, so its start-up is never inside the time a new
// pair is only in memory. A forced keychain that cannot start refuses the refresh before the
// token is spent. In process, against the emulator, a recording keychain.
import { describe, expect, it } from 'vitest';
import { useTestEmulator } from '../helpers/emulator.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { workingKeychain, type RecordingKeychain } from '../helpers/keychains.js';
import { envFor, scriptedBrowser, stats } from './support.js';

const emu = useTestEmulator({ resetEach: true });
const emulator = () => emu().emulator;

/** A keychain whose prepare() records the service's counts at that moment (or fails, when told). */
function readyRecording(): RecordingKeychain & { prepared: Array<{ tokens_issued: number; refreshes: number }>; cannotStart: boolean } {
  const k = workingKeychain();
  const prepared: Array<{ tokens_issued: number; refreshes: number }> = [];
  return Object.assign(k, {
    prepared,
    cannotStart: false,
    async prepare(this: { cannotStart: boolean }) {
      const { tokens_issued, refreshes } = await stats(emulator());
      prepared.push({ tokens_issued, refreshes });
      if (this.cannotStart) throw new Error('the keychain process could not start (spawn ENOENT)');
    },
  });
}

function expire(k: RecordingKeychain): void {
  const key = 'svc/default:oauth';
  k.entries.set(key, JSON.stringify({ ...JSON.parse(k.entries.get(key)!), expires_at: 0 }));
}

describe('the keychain ready before a token is spent', () => {
  it('login: ready before the code is exchanged; refresh: ready before the refresh request', async () => {
    const configDir = tempConfigDir();
    const keychain = readyRecording();
    const opts = { configDir, keychain, env: envFor(emulator(), { SVC_CREDENTIAL_STORE: 'keychain' }), browser: scriptedBrowser(emulator()) };
    const login = await runCli(['login'], opts);
    expect(login.exitCode, login.stderr).toBe(0);
    expect(keychain.prepared).toEqual([{ tokens_issued: 0, refreshes: 0 }]);
    expire(keychain);
    const account = await runCli(['account', 'balance', '--json'], opts);
    expect(account.exitCode, account.stderr).toBe(0);
    expect(keychain.prepared[1]).toEqual({ tokens_issued: 1, refreshes: 0 });
    expect((await stats(emulator())).refreshes).toBe(1);
  });

  it('SVC_CREDENTIAL_STORE=keychain and a keychain that cannot start: the refresh token is not sent, keychain_failed', async () => {
    const configDir = tempConfigDir();
    const keychain = readyRecording();
    const env = envFor(emulator(), { SVC_CREDENTIAL_STORE: 'keychain' });
    expect((await runCli(['login'], { configDir, keychain, env, browser: scriptedBrowser(emulator()) })).exitCode).toBe(0);
    expire(keychain);
    keychain.cannotStart = true;
    const account = await runCli(['account', 'balance', '--json'], { configDir, keychain, env });
    expect(account.exitCode, account.stderr).toBe(1);
    expect(JSON.parse(account.stderr).error.message).toContain(
      'the keychain process could not start (spawn ENOENT); SVC_CREDENTIAL_STORE=keychain forbids the file fallback',
    );
    expect((await stats(emulator())).refreshes).toBe(0);
  });
});
