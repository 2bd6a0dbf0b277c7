// Where secrets go: the keychain (service `svc`, account `<profile>:<name>`), else a 0600
// credentials.json announced before the write, or exactly what SVC_CREDENTIAL_STORE forces.
// The keychain backends here are fakes that fail or hang on demand (the real one is
// exercised by test/real/keychain.test.ts).
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';
import { failingKeychain, hangingKeychain, workingKeychain } from '../helpers/keychains.js';
import { FallbackSecretStore, FileSecretStore, KeychainSecretStore, KEYCHAIN_TIMEOUT_MS } from '../../src/credentials/store.js';
import type { Clock } from '../../src/context.js';
import { envFor, scriptedBrowser } from '../auth/support.js';

/** The file's emulator. */
const emu = useTestEmulator();

const config = (dir: string) => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));

describe('secret storage', () => {
  it('keychain available: the key goes there, under service svc and account <profile>:<name>, and nowhere else', async () => {
    const configDir = tempConfigDir();
    const keychain = workingKeychain();
    const key = emu().seed.keys.test;
    const r = await runCli(['keys', 'add', '--name', 'dev', '--base-url', emu().url], { configDir, keychain, stdin: key });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    expect(keychain.entries.get('svc/default:dev')).toBe(key);
    expect(config(configDir).profiles.default.keys.dev.storage).toBe('keychain');
    expect(existsSync(join(configDir, 'credentials.json'))).toBe(false);
    expect(readFileSync(join(configDir, 'config.json'), 'utf8')).not.toContain(key);

    expect((await runCli(['account'], { configDir, keychain })).exitCode).toBe(0);
    expect((await runCli(['keys', 'remove', 'dev', '--yes'], { configDir, keychain })).exitCode).toBe(0);
    expect(keychain.entries.size).toBe(0);
  });

  it('no keychain: warns why, then writes a 0600 credentials.json; later reads use it', async () => {
    const configDir = tempConfigDir();
    const keychain = failingKeychain();
    const key = emu().seed.keys.test;
    const r = await runCli(['keys', 'add', '--base-url', emu().url], { configDir, keychain, stdin: key });
    expect(r.exitCode).toBe(0);
    // Three short lines naming the file, SVC_CREDENTIAL_STORE=file and the cause; the keychain's raw words only with --debug.
    expect(r.stderr).toBe(
      `warning: no OS keychain, so profile "default" keeps its secrets in a file:\n  ${join(configDir, 'credentials.json')} (SVC_CREDENTIAL_STORE=file chooses it on purpose)\n  why: nothing serves the Secret Service on the D-Bus session bus\n`,
    );
    expect(r.stderr.split('\n')[0]!.length).toBeLessThanOrEqual(80);
    // A second secret of the same profile in the same file is not announced again.
    const { key: live } = await emu().makeKey('live');
    const second = await runCli(['keys', 'add', '--base-url', emu().url], { configDir, keychain, stdin: live });
    expect(second.exitCode, second.stderr).toBe(0);
    // (Only the mode rule's note: a live key added leaves the profile in test mode.)
    expect(second.stderr).toBe('note: profile "default" stays in test mode: use --live for one command, or `svc mode live` to switch\n');
    const { key: other } = await emu().makeKey('test');
    const debug = await runCli(['keys', 'add', '--profile', 'other', '--debug'], { configDir, keychain, stdin: other, env: { SVC_BASE_URL: emu().url } });
    expect(debug.stderr).toMatch(/^svc: keychain write of other:test failed: .*org\.freedesktop\.secrets/m);
    expect(debug.stderr).toContain('warning: no OS keychain, so profile "other" keeps its secrets in a file:');
    const file = join(configDir, 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).secrets['default:test']).toBe(key);
    expect(config(configDir).profiles.default.keys.test.storage).toBe('file');
    expect(r.stderr + r.stdout).not.toContain(key);

    const again = await runCli(['account', '--json'], { configDir, keychain });
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toBe('');
    const status = await runCli(['auth', 'status'], { configDir, keychain });
    expect(status.stdout).toContain('stored in file');
  });

  it('the warning comes before the secret touches the disk', async () => {
    const dir = tempConfigDir();
    const file = new FileSecretStore(dir);
    const seen: boolean[] = [];
    const store = new FallbackSecretStore(new KeychainSecretStore(failingKeychain()), file, 'auto', () => seen.push(existsSync(file.path)));
    expect(await store.set('p', 'test', 'svc_test_0123456789abcdef')).toBe('file');
    expect(seen).toEqual([false]);
    expect(existsSync(file.path)).toBe(true);
  });

  it('a hanging keychain is given up on after the time limit (3 s by default) and falls back', async () => {
    expect(KEYCHAIN_TIMEOUT_MS).toBe(3000);
    const configDir = tempConfigDir();
    const keychain = hangingKeychain();
    const r = await runCli(['keys', 'add', '--base-url', emu().url], { configDir, keychain, keychainTimeoutMs: 200, stdin: emu().seed.keys.test });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('did not answer within 0.2 s');
    expect(keychain.calls).toContain('set');
    expect(config(configDir).profiles.default.keys.test.storage).toBe('file');
  });

  it('SVC_CREDENTIAL_STORE=keychain makes a missing keychain an error (exit 1 with the reason), writing nothing', async () => {
    const configDir = tempConfigDir();
    const r = await runCli(['keys', 'add', '--base-url', emu().url], {
      configDir,
      keychain: failingKeychain(),
      env: { SVC_CREDENTIAL_STORE: 'keychain' },
      stdin: emu().seed.keys.test,
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('org.freedesktop.secrets');
    expect(r.stderr).toContain('SVC_CREDENTIAL_STORE=keychain');
    expect(existsSync(join(configDir, 'credentials.json'))).toBe(false);
    expect(existsSync(join(configDir, 'config.json'))).toBe(false);
  });

  it('SVC_CREDENTIAL_STORE=file never touches the keychain; a bad value is a usage error', async () => {
    const configDir = tempConfigDir();
    const keychain = workingKeychain();
    const r = await runCli(['keys', 'add', '--base-url', emu().url], {
      configDir,
      keychain,
      env: { SVC_CREDENTIAL_STORE: 'file' },
      stdin: emu().seed.keys.test,
    });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    expect(keychain.calls).toEqual([]);
    expect(config(configDir).profiles.default.keys.test.storage).toBe('file');
    const bad = await runCli(['keys', 'list'], { configDir, keychain, env: { SVC_CREDENTIAL_STORE: 'vault' } });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('SVC_CREDENTIAL_STORE');
  });

  it('a secret missing from its store is exit 3 naming the command to run again', async () => {
    const configDir = tempConfigDir();
    const keychain = workingKeychain();
    await runCli(['keys', 'add', '--base-url', emu().url], { configDir, keychain, stdin: emu().seed.keys.test });
    keychain.entries.clear();
    const r = await runCli(['account'], { configDir, keychain });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('svc keys add --profile default --name test');
  });

  it('the file fallback is announced once: a token refresh of a file-stored sign-in neither retries the keychain nor warns', async () => {
    const configDir = tempConfigDir();
    const keychain = failingKeychain();
    const env = envFor(emu().emulator);
    const login = await runCli(['login'], { configDir, keychain, env, browser: scriptedBrowser(emu().emulator) });
    expect(login.exitCode).toBe(0);
    expect(login.stderr.match(/^warning: no OS keychain, so profile "default" keeps its secrets in a file:$/gm)).toHaveLength(1);
    expect(config(configDir).profiles.default.oauth.storage).toBe('file');
    const before = JSON.parse(JSON.parse(readFileSync(join(configDir, 'credentials.json'), 'utf8')).secrets['default:oauth']);

    keychain.calls.length = 0;
    const later: Clock = { now: () => Date.now() + 3550_000, sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };
    for (let i = 0; i < 2; i++) {
      const refreshed = await runCli(['auth', 'token'], { configDir, keychain, env, clock: { ...later, now: () => Date.now() + 3550_000 * (i + 1) } });
      expect(refreshed.exitCode).toBe(0);
      expect(refreshed.stderr).toBe('');
    }
    expect(keychain.calls).toEqual([]);
    const after = JSON.parse(JSON.parse(readFileSync(join(configDir, 'credentials.json'), 'utf8')).secrets['default:oauth']);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(config(configDir).profiles.default.oauth.storage).toBe('file');
  });

  it('profiles remove takes the forwarding secret svc made for the profile with it, from where it is', async () => {
    for (const keychain of [failingKeychain(), workingKeychain()]) {
      const configDir = tempConfigDir();
      expect((await runCli(['keys', 'add', '--base-url', emu().url], { configDir, keychain, stdin: emu().seed.keys.test })).exitCode).toBe(0);
      expect((await runCli(['events', 'tail', '--print-secret'], { configDir, keychain })).exitCode).toBe(0);
      const removed = await runCli(['profiles', 'remove', 'default', '--yes'], { configDir, keychain });
      expect(removed.exitCode, removed.stderr).toBe(0);
      expect(removed.stderr).not.toContain('could not be deleted');
      if (existsSync(join(configDir, 'credentials.json'))) expect(JSON.parse(readFileSync(join(configDir, 'credentials.json'), 'utf8')).secrets).toEqual({});
      expect(keychain.entries.size).toBe(0);
    }
  });

  it('a keychain entry that cannot be deleted is reported with the command that removes it, not claimed deleted', async () => {
    const configDir = tempConfigDir();
    const keychain = workingKeychain();
    keychain.delete = failingKeychain('The name org.freedesktop.secrets was not provided').delete;
    const env = envFor(emu().emulator);
    expect((await runCli(['keys', 'add', '--name', 'ci', '--base-url', emu().url], { configDir, keychain, stdin: emu().seed.keys.test })).exitCode).toBe(0);
    const removed = await runCli(['keys', 'remove', 'ci', '--json', '--yes'], { configDir, keychain });
    expect(removed.exitCode).toBe(0);
    expect(removed.stderr).toContain('the keychain entry default:ci (service svc) could not be deleted');
    expect(removed.stderr).toContain("secret-tool clear service svc username 'default:ci'");
    expect(JSON.parse(removed.stdout).secret_left).toMatchObject({
      service: 'svc',
      account: 'default:ci',
      remove_with: expect.stringContaining('secret-tool clear'),
    });
    expect(keychain.entries.has('svc/default:ci')).toBe(true);

    const login = await runCli(['login'], { configDir, keychain, env, browser: scriptedBrowser(emu().emulator) });
    expect(login.exitCode).toBe(0);
    const logout = await runCli(['logout', '--json'], { configDir, keychain, env });
    expect(logout.exitCode).toBe(0);
    expect(logout.stderr).toContain("secret-tool clear service svc username 'default:oauth'");
    expect(logout.stderr).not.toContain('deleted here');
    expect(JSON.parse(logout.stdout)).toMatchObject({ revoked: true, secret_left: { account: 'default:oauth' } });
  });

  it('a keychain that fails or hangs on a read names the next steps: unlock it, SVC_CREDENTIAL_STORE=file, or SVC_API_KEY', async () => {
    const configDir = tempConfigDir();
    const keychain = workingKeychain();
    expect((await runCli(['keys', 'add', '--base-url', emu().url], { configDir, keychain, stdin: emu().seed.keys.test })).exitCode).toBe(0);
    for (const broken of [failingKeychain(), hangingKeychain()]) {
      const r = await runCli(['account'], { configDir, keychain: broken, keychainTimeoutMs: 100 });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toMatch(/the OS keychain (failed|did not answer)/);
      expect(r.stderr).toContain('unlock or start the OS keychain');
      expect(r.stderr).toContain('SVC_CREDENTIAL_STORE=file');
      expect(r.stderr).toContain('SVC_API_KEY');
    }
  });
});
