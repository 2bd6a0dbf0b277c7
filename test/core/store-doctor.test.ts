// `svc doctor` on secrets (issue 25): where new secrets go and why, which store holds each
// secret (keys, the OAuth sign-in, the forwarding secret), and a failure wherever a store
// would lose them. The keychains are the fakes of test/helpers/keychains.ts; the Linux kernel
// keyring and `--fix` are exercised for real in test/real/no-secret-service.test.ts.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';
import { failingKeychain, workingKeychain, type RecordingKeychain } from '../helpers/keychains.js';

/** The file's emulator. */
const emu = useTestEmulator();

/** A tmpfs to put a config dir on (Linux's /dev/shm). */
const shmIsTmpfs = (() => {
  try {
    return process.platform === 'linux' && statfsSync('/dev/shm').type === 0x01021994;
  } catch {
    return false;
  }
})();

interface Report {
  ok: boolean;
  checks: Array<{ check: string; status: string; message: string; fix?: string }>;
}

async function doctor(configDir: string, keychain: RecordingKeychain, env: Record<string, string> = {}) {
  const r = await runCli(['doctor', '--json'], { configDir, keychain, env: { SVC_BASE_URL: emu().url, ...env } });
  const report = JSON.parse(r.stdout) as Report;
  return { exitCode: r.exitCode, report, keychainChecks: report.checks.filter((c) => c.check === 'keychain') };
}

describe('svc doctor: where secrets are', () => {
  it('no keychain: says why and that new secrets go to credentials.json; names credentials.json for the key and the forwarding secret', async () => {
    const configDir = tempConfigDir();
    const keychain = failingKeychain();
    expect((await runCli(['keys', 'add', '--base-url', emu().url], { configDir, keychain, stdin: emu().seed.keys.test })).exitCode).toBe(0);
    expect((await runCli(['events', 'tail', '--print-secret'], { configDir, keychain })).exitCode).toBe(0);
    const { exitCode, keychainChecks } = await doctor(configDir, keychain);
    const file = join(configDir, 'credentials.json');
    expect(keychainChecks[0]).toMatchObject({
      status: 'warning',
      message: expect.stringMatching(/^no OS keychain: nothing serves the Secret Service on the D-Bus session bus: new secrets go to /),
    });
    expect(keychainChecks[0]!.message).toContain(file);
    expect(keychainChecks).toContainEqual({ check: 'keychain', status: 'ok', message: `profile "default": the test key "test" is in ${file}` });
    expect(keychainChecks).toContainEqual({ check: 'keychain', status: 'ok', message: `profile "default": the forwarding secret is in ${file}` });
    expect(exitCode).toBe(0);
  });

  it('a keychain that answers: says so, and names it for each secret kept there', async () => {
    const configDir = tempConfigDir();
    const keychain = workingKeychain();
    expect((await runCli(['keys', 'add', '--base-url', emu().url], { configDir, keychain, stdin: emu().seed.keys.test })).exitCode).toBe(0);
    const { exitCode, keychainChecks } = await doctor(configDir, keychain);
    expect(keychainChecks[0]).toMatchObject({
      status: 'ok',
      message: expect.stringMatching(/^new secrets go to .*, which took a test entry \(written and deleted\)$/),
    });
    expect(keychain.calls).toContain('set svc svc-doctor:_probe');
    expect(keychain.calls).toContain('delete svc svc-doctor:_probe');
    expect(keychain.entries.has('svc/svc-doctor:_probe')).toBe(false);
    expect(keychainChecks.find((c) => c.message.includes('the test key'))).toMatchObject({
      status: 'ok',
      message: expect.not.stringContaining('credentials.json'),
    });
    expect(exitCode).toBe(0);
  });

  it('the probe entry is no key\'s: a key "probe" of a profile "svc-doctor" is left as it was', async () => {
    const configDir = tempConfigDir();
    const keychain = workingKeychain();
    const added = await runCli(['keys', 'add', '--profile', 'svc-doctor', '--name', 'probe', '--base-url', emu().url], {
      configDir,
      keychain,
      stdin: emu().seed.keys.test,
    });
    expect(added.exitCode, added.stderr).toBe(0);
    const { exitCode, keychainChecks } = await doctor(configDir, keychain, { SVC_PROFILE: 'svc-doctor' });
    expect(keychain.entries.get('svc/svc-doctor:probe')).toBe(emu().seed.keys.test);
    expect(keychainChecks.find((c) => c.message.includes('the test key "probe"'))).toMatchObject({ status: 'ok' });
    expect(exitCode).toBe(0);
  });

  it('a probe entry that could not be deleted is reported, with how to remove it', async () => {
    const configDir = tempConfigDir();
    const keychain = workingKeychain();
    keychain.delete = async () => {
      throw new Error('Platform secure storage failure: the item is locked');
    };
    const { keychainChecks } = await doctor(configDir, keychain);
    expect(keychain.entries.has('svc/svc-doctor:_probe')).toBe(true);
    expect(keychainChecks).toContainEqual(
      expect.objectContaining({
        status: 'warning',
        message: expect.stringContaining('the keychain entry svc-doctor:_probe (service svc) could not be deleted'),
        fix: "secret-tool clear service svc username 'svc-doctor:_probe'",
      }),
    );
  });

  it('a keychain that answers reads but refuses writes (a Secret Service with no default collection) is not "ok" (issue 44)', async () => {
    const configDir = tempConfigDir();
    const readsOnly = workingKeychain();
    readsOnly.set = async () => {
      throw new Error("Couldn't access platform storage: Secret Service: no result found");
    };
    const { keychainChecks } = await doctor(configDir, readsOnly);
    expect(keychainChecks[0]).toMatchObject({
      status: 'warning',
      message: expect.stringMatching(/^the OS keychain failed: the Secret Service has no default keyring to write to \(.*\): new secrets go to /),
    });
  });

  it('fails when a secret recorded in the keychain cannot be read there, and when SVC_CREDENTIAL_STORE=keychain has no keychain', async () => {
    const configDir = tempConfigDir();
    expect((await runCli(['keys', 'add', '--base-url', emu().url], { configDir, keychain: workingKeychain(), stdin: emu().seed.keys.test })).exitCode).toBe(0);
    const { exitCode, keychainChecks } = await doctor(configDir, failingKeychain(), { SVC_CREDENTIAL_STORE: 'keychain' });
    expect(exitCode).toBe(1);
    expect(keychainChecks[0]).toMatchObject({ status: 'failed', message: expect.stringMatching(/^SVC_CREDENTIAL_STORE=keychain, but /) });
    expect(keychainChecks.find((c) => c.message.includes('the test key'))).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/the test key "test" is in .*, which cannot be read/),
      fix: expect.stringContaining('svc keys add'),
    });
  });

  it.skipIf(!shmIsTmpfs)('fails when credentials.json is on a tmpfs, where its secrets are lost at reboot', async () => {
    const shm = mkdtempSync('/dev/shm/svc-doctor-');
    try {
      const configDir = join(shm, 'svc');
      const keychain = failingKeychain();
      expect((await runCli(['keys', 'add', '--base-url', emu().url], { configDir, keychain, stdin: emu().seed.keys.test })).exitCode).toBe(0);
      const { exitCode, keychainChecks } = await doctor(configDir, keychain);
      expect(exitCode).toBe(1);
      expect(keychainChecks).toContainEqual(
        expect.objectContaining({
          status: 'failed',
          message: `${join(configDir, 'credentials.json')} is on a tmpfs (kept in memory): the secrets svc keeps there are lost at reboot`,
        }),
      );
    } finally {
      rmSync(shm, { recursive: true, force: true });
    }
  });
});
