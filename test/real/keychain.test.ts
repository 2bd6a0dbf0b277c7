// The real OS keychain: gnome-keyring over D-Bus (scripts/test-real.sh starts one under
// dbus-run-session). `svc keys add` must put the key in the Secret Service, where
// `secret-tool` finds it, and in no file of the config dir. @napi-rs/keyring writes the
// keyring-rs layout: attributes `service` = svc and `username` = <profile>:<name> (checked
// below with `secret-tool search`), so that is what the lookup uses.
// Skips with a visible reason when no Secret Service is reachable; SVC_REQUIRE_REAL=1
// turns that skip into a failure (CI).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { testEmulator, type TestEmulator } from '../helpers/emulator.js';
import { napiKeychain, osKeychain } from '../../src/credentials/store.js';
import { listKernelKeys } from '../../src/credentials/kernel-keyring.js';
import { root, spawnCollect } from '../helpers/spawn.js';
import { envFor, scriptedBrowser } from '../auth/support.js';
import { prerequisites } from '../helpers/prerequisites.js';

async function secretServiceProblem(): Promise<string | null> {
  if (spawnSync('secret-tool', ['--version']).error) return 'secret-tool (libsecret-tools) is not installed';
  if (!process.env.DBUS_SESSION_BUS_ADDRESS) return 'no D-Bus session (DBUS_SESSION_BUS_ADDRESS unset; run under dbus-run-session, see scripts/test-real.sh)';
  try {
    const { AsyncEntry } = await import('@napi-rs/keyring');
    const probe = new AsyncEntry('svc-test-probe', `probe-${process.pid}`);
    const signal = AbortSignal.timeout(3000);
    await probe.setPassword('probe', signal);
    await probe.deletePassword(AbortSignal.timeout(3000));
    return null;
  } catch (error) {
    const setup = process.env.SVC_KEYRING_UP === 'failed' ? ' (scripts/keyring-up.sh could not start one: its lines above say what it saw)' : '';
    return `the Secret Service is not usable: ${(error as Error).message}${setup}`;
  }
}

const problem = await secretServiceProblem();
prerequisites('keychain', problem, { describe: 'real Secret Service', it: 'is usable' });

describe.skipIf(problem !== null)('keys in the real OS keychain', () => {
  let emu: TestEmulator;
  const profile = `kc-${randomBytes(4).toString('hex')}`;
  const lookup = (account: string) => spawnSync('secret-tool', ['lookup', 'service', 'svc', 'username', account], { encoding: 'utf8' });

  beforeAll(async () => {
    emu = await testEmulator();
  });
  afterAll(async () => {
    for (const name of ['ci', 'oauth', 'bin', 'forward_secret']) spawnSync('secret-tool', ['clear', 'service', 'svc', 'username', `${profile}:${name}`]);
    await emu?.close();
  });

  it('keys add stores the key where secret-tool finds it, and in no file; remove deletes it', async () => {
    const configDir = tempConfigDir();
    const key = emu.seed.keys.test;
    // (what the process builds: the addon, pinned to the Secret Service)
    const real = { configDir, keychain: osKeychain(process.env), env: { SVC_CREDENTIAL_STORE: 'keychain' } };
    const added = await runCli(['keys', 'add', '--profile', profile, '--name', 'ci', '--base-url', emu.url], { ...real, stdin: key });
    expect(added.stderr).toBe('');
    expect(added.exitCode).toBe(0);

    // What @napi-rs/keyring really wrote: service and username attributes.
    // secret-tool prints the label and secret on stdout, the attributes on stderr.
    const searched = spawnSync('secret-tool', ['search', '--all', 'service', 'svc', 'username', `${profile}:ci`], { encoding: 'utf8' });
    const search = searched.stdout + searched.stderr;
    expect(search).toContain('attribute.service = svc');
    expect(search).toContain(`attribute.username = ${profile}:ci`);
    const found = lookup(`${profile}:ci`);
    expect(found.status).toBe(0);
    expect(found.stdout.trim()).toBe(key);

    const files = readdirSync(configDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(files.map((f) => f.name)).toContain('config.json');
    expect(files.map((f) => f.name)).not.toContain('credentials.json');
    for (const f of files) expect(readFileSync(join(f.parentPath, f.name), 'utf8')).not.toContain(key);
    expect(JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles[profile].keys.ci.storage).toBe('keychain');

    // Later commands read it back from the keychain.
    const account = await runCli(['account', '--json', '--profile', profile], real);
    expect(account.exitCode).toBe(0);
    expect(JSON.parse(account.stdout).id).toBe(emu.seed.org_id);
    const status = await runCli(['auth', 'status', '--profile', profile], real);
    expect(status.stdout).toContain('stored in keychain');

    const removed = await runCli(['keys', 'remove', 'ci', '--profile', profile, '--yes'], real);
    expect(removed.exitCode).toBe(0);
    expect(lookup(`${profile}:ci`).stdout.trim()).toBe('');
  });

  it('login stores the OAuth connection as one entry secret-tool finds, in no file; logout deletes it', async () => {
    const configDir = tempConfigDir();
    const real = { configDir, keychain: osKeychain(process.env), env: { SVC_CREDENTIAL_STORE: 'keychain', SVC_BASE_URL: emu.url } };
    const login = await runCli(['login', '--profile', profile, '--json'], {
      ...real,
      env: envFor(emu.emulator, real.env),
      browser: scriptedBrowser(emu.emulator),
    });
    expect(login.stderr).not.toMatch(/^(error|warning)/m);
    expect(login.exitCode).toBe(0);
    expect(JSON.parse(login.stdout)).toMatchObject({ profile, storage: 'keychain' });

    const found = lookup(`${profile}:oauth`);
    expect(found.status).toBe(0);
    const stored = JSON.parse(found.stdout.trim()) as Record<string, unknown>;
    expect(stored.org_id).toBe(emu.seed.org_id);
    expect(String(stored.access_token)).toMatch(/^svc_oat_/);
    expect(String(stored.refresh_token)).toMatch(/^svc_ort_/);

    const files = readdirSync(configDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(files.map((f) => f.name)).not.toContain('credentials.json');
    for (const f of files) {
      const text = readFileSync(join(f.parentPath, f.name), 'utf8');
      expect(text, f.name).not.toContain(String(stored.access_token));
      expect(text, f.name).not.toContain(String(stored.refresh_token));
    }
    expect(JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles[profile].oauth.storage).toBe('keychain');

    const status = await runCli(['auth', 'status', '--profile', profile], real);
    expect(status.exitCode).toBe(0);
    const logout = await runCli(['logout', '--profile', profile], real);
    expect(logout.exitCode).toBe(0);
    expect(logout.stderr).not.toMatch(/could not be deleted/);
    expect(lookup(`${profile}:oauth`).stdout.trim()).toBe('');
  });

  it('the shipped program reads a key from the keychain, and prints one forwarding secret that lands there', async () => {
    const configDir = tempConfigDir();
    const key = emu.seed.keys.test;
    const added = await runCli(['keys', 'add', '--profile', profile, '--name', 'bin', '--base-url', emu.url], {
      configDir,
      keychain: napiKeychain(),
      env: { SVC_CREDENTIAL_STORE: 'keychain' },
      stdin: key,
    });
    expect(added.exitCode).toBe(0);
    const env: Record<string, string | undefined> = { ...process.env, SVC_CONFIG_DIR: configDir, NO_COLOR: '1' };
    delete env.SVC_API_KEY;
    delete env.SVC_PROFILE;
    delete env.SVC_FORWARD_SECRET;
    delete env.SVC_CREDENTIAL_STORE;
    // (spawned without blocking: the emulator answers from this process)
    const run = await spawnCollect(process.execPath, [join(root, 'bin', 'svc.js'), 'account', '--json', '--profile', profile], { env });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).id).toBe(emu.seed.org_id);

    const printSecret = () => spawnCollect(process.execPath, [join(root, 'bin', 'svc.js'), 'events', 'tail', '--print-secret', '--profile', profile], { env });
    const first = await printSecret();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toMatch(/warning/);
    const secret = first.stdout.trim();
    expect(secret).toMatch(/^svc_whsec_/);
    expect((await printSecret()).stdout.trim()).toBe(secret);
    expect(lookup(`${profile}:forward_secret`).stdout.trim()).toBe(secret);
    // ...and nowhere else: not in the kernel keyring (the addon is pinned), not in a file.
    expect((listKernelKeys() ?? []).filter((k) => !k.invalidated && k.description.includes(`${profile}:`))).toEqual([]);
    const files = readdirSync(configDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    for (const f of files) expect(readFileSync(join(f.parentPath, f.name), 'utf8')).not.toContain(secret);
  });
});
