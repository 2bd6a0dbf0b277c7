// `svc doctor`: its behaviour against the emulator, then its parse rules (apart from running).
// `svc doctor` explains the decision every command makes: the profile and address by calling
// the same code (chooseProfile, chooseBaseUrl in src/credentials/resolve.ts), the refusal by
// making the request itself; and says a config folder others may write to is a problem (issue 32).
import { chmodSync, mkdirSync, statSync, writeFileSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { testEmulator, type TestEmulator, useTestEmulator } from '../helpers/emulator.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { failingKeychain, workingKeychain, type RecordingKeychain } from '../helpers/keychains.js';
import { envFor, scriptedBrowser } from '../auth/support.js';
import { parsing } from '../helpers/parse.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await testEmulator();
});
afterAll(async () => {
  await emu.close();
});

interface Check {
  check: string;
  status: string;
  message: string;
  fix?: string;
}

async function doctor(configDir: string, argv: string[] = [], secrets = new MemorySecretStore()): Promise<{ exitCode: number; checks: Check[] }> {
  const r = await runCli(['doctor', '--json', ...argv], { configDir, secrets });
  return { exitCode: r.exitCode, checks: JSON.parse(r.stdout).checks };
}

function profileConfig(dir: string, profiles: Record<string, string>): void {
  const key = (name: string) => ({
    name: 'test',
    mode: 'test',
    last4: emu.seed.keys.test.slice(-4),
    scopes: [],
    storage: 'memory',
    added_at: `2026-01-0${name.length}T00:00:00Z`,
  });
  const config = {
    version: 1,
    default_profile: 'default',
    profiles: Object.fromEntries(
      Object.entries(profiles).map(([name, base_url]) => [name, { base_url, org_id: emu.seed.org_id, org_name: 'Acme', keys: { test: key(name) } }]),
    ),
  };
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
}

describe('svc doctor chooses the profile and address as every command does', () => {
  it('default on 127.0.0.1, other on localhost, --base-url naming localhost: account and doctor both use "other"', async () => {
    const port = new URL(emu.url).port;
    const configDir = tempConfigDir();
    profileConfig(configDir, { default: `http://127.0.0.1:${port}`, other: `http://localhost:${port}` });
    const secrets = new MemorySecretStore();
    secrets.secrets.set('default:test', emu.seed.keys.test);
    secrets.secrets.set('other:test', emu.seed.keys.test);
    const baseUrl = ['--base-url', `http://localhost:${port}`];

    const account = await runCli(['account', '--debug', '--json', ...baseUrl], { configDir, secrets });
    expect(account.exitCode, account.stderr).toBe(0);
    expect(account.stderr).toContain('svc: profile "other"');

    const { checks } = await doctor(configDir, baseUrl, secrets);
    const profile = checks.find((c) => c.check === 'profile')!;
    expect(profile).toMatchObject({ status: 'ok' });
    expect(profile.message).toMatch(/^profile "other" from the only profile bound to http:\/\/localhost:\d+ \(--base-url\)/);
    expect(checks.find((c) => c.check === 'address')).toMatchObject({ status: 'ok' });
  });

  it('the https spelling of the issue: the profile commands refuse, doctor names with the same words', async () => {
    const configDir = tempConfigDir();
    profileConfig(configDir, { default: 'http://127.0.0.1:4610', other: 'http://localhost:4610' });
    const baseUrl = ['--base-url', 'https://localhost:4610'];
    const account = await runCli(['account', ...baseUrl], { configDir });
    expect(account.exitCode).toBe(2);
    const refusal = account.stderr.split('\n')[0]!.replace(/^error: /, '');
    const { checks } = await doctor(configDir, baseUrl);
    expect(checks.find((c) => c.check === 'profile')!.message).toMatch(/^profile "default" /);
    expect(refusal).toContain('profile "default"');
    expect(checks.find((c) => c.check === 'address')).toMatchObject({ status: 'ok' });
    expect(checks.find((c) => c.check === 'request')).toMatchObject({ status: 'failed', message: `svc account fails (exit 2): ${refusal}` });
  });

  it('default_profile set to __proto__, constructor or toString is no profile', async () => {
    for (const name of ['__proto__', 'constructor', 'toString']) {
      const configDir = tempConfigDir();
      writeFileSync(join(configDir, 'config.json'), JSON.stringify({ version: 1, default_profile: name, profiles: {} }));
      const { checks } = await doctor(configDir);
      expect(
        checks.find((c) => c.check === 'profile'),
        name,
      ).toMatchObject({ status: 'warning', message: `there is no profile "${name}" (the default profile (svc auth switch))` });
      const account = await runCli(['account'], { configDir });
      expect(account.exitCode, name).toBe(3);
      expect(account.stderr).toContain('not signed in');
    }
  });
});

describe('svc doctor on the config folder', () => {
  it('a world-writable config folder is a failure with its fix, not "ok"', async () => {
    const configDir = tempConfigDir();
    chmodSync(configDir, 0o777);
    const { exitCode, checks } = await doctor(configDir, ['--base-url', emu.url]);
    expect(checks[0]).toMatchObject({ check: 'config', status: 'failed', fix: `chmod 700 ${configDir}` });
    expect(checks[0]!.message).toContain('writable by everyone');
    expect(exitCode).toBe(1);
  });

  it('a first run (no folder yet) reports nothing failed about it; credentials.json open to others is tightened and said as done', async () => {
    const parent = tempConfigDir();
    const fresh = join(parent, 'svc');
    const first = await doctor(fresh, ['--base-url', emu.url]);
    expect(first.checks.filter((c) => c.check === 'config' && c.status !== 'ok')).toEqual([]);
    expect(first.checks.filter((c) => c.message.includes('credentials.json') && c.status === 'failed')).toEqual([]);

    mkdirSync(fresh, { mode: 0o700 });
    const credentials = join(fresh, 'credentials.json');
    writeFileSync(credentials, '{"version":1,"secrets":{}}\n', { mode: 0o644 });
    chmodSync(credentials, 0o644);
    const { checks } = await doctor(fresh, ['--base-url', emu.url]);
    const check = checks.find((c) => c.message.includes('credentials.json'))!;
    expect(check).toMatchObject({ status: 'warning', message: 'credentials.json was open to others (mode 0644); svc set it to 0600' });
    expect(check.fix).not.toContain('chmod');
    expect(statSync(credentials).mode & 0o777).toBe(0o600);
  });
});

describe("svc doctor's verdict is an error like any other (the runner's exit code)", () => {
  it('a failed check: exit 1; with --json the report alone on stdout and the error as one JSON object on stderr; else one error line', async () => {
    const configDir = tempConfigDir();
    chmodSync(configDir, 0o777);

    const env = { SVC_API_KEY: emu.seed.keys.test };
    const json = await runCli(['doctor', '--json', '--base-url', emu.url], { configDir, secrets: new MemorySecretStore(), env });
    expect(json.exitCode).toBe(1);
    const report = JSON.parse(json.stdout) as { ok: boolean; failed: number; warnings: number; checks: Check[] };
    expect(report).toMatchObject({ ok: false, failed: 1 });
    const stderr = json.stderr.trim().split('\n');
    expect(stderr).toHaveLength(1);
    expect(JSON.parse(stderr[0]!)).toEqual({
      error: { code: 'checks_failed', status: null, message: `1 check(s) failed, ${report.warnings} warning(s)`, hint: null, exit_code: 1 },
    });

    const text = await runCli(['doctor', '--base-url', emu.url], { configDir, secrets: new MemorySecretStore(), env });
    expect(text.exitCode).toBe(1);
    expect(text.stdout).toMatch(/^failed +config dir .* is writable by everyone/m);
    expect(text.stderr).toBe(`error: 1 check(s) failed, ${report.warnings} warning(s)\n`);
  });
});

// `svc doctor` on secrets (issue 25): where new secrets go and why, which store holds each
// secret (keys, the OAuth sign-in, the forwarding secret), and a failure wherever a store
// would lose them. The keychains are the fakes of test/helpers/keychains.ts; the Linux kernel
// keyring and `--fix` are exercised for real in test/real/no-secret-service.test.ts.
describe('svc doctor on secrets', () => {
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
      expect((await runCli(['keys', 'add', '--base-url', emu().url], { configDir, keychain: workingKeychain(), stdin: emu().seed.keys.test })).exitCode).toBe(
        0,
      );
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
});

// `svc doctor` changes nothing it checks (issue 52): with SVC_API_KEY set, the profile's OAuth
// sign-in is not what commands use, and looking at it must not rotate it. An expired access
// token is reported as not asked; the refresh token stays unspent, the service counts no refresh.
describe('svc doctor changes nothing it checks', () => {
  const testEmulator = useTestEmulator({ resetEach: true });
  const emulator = () => testEmulator().emulator;

  interface Check {
    check: string;
    status: string;
    message: string;
  }

  describe('svc doctor with SVC_API_KEY set and a stored OAuth sign-in', () => {
    it.each([
      ['an access token still valid: asked with it as it is', false],
      ['an expired access token: not refreshed, said so', true],
    ])('%s; the sign-in is not rotated', async (_name, expired) => {
      const secrets = new MemorySecretStore();
      const configDir = tempConfigDir();
      const login = await runCli(['login'], { env: envFor(emulator()), browser: scriptedBrowser(emulator()), secrets, configDir });
      expect(login.exitCode, login.stderr).toBe(0);
      if (expired) secrets.secrets.set('default:oauth', JSON.stringify({ ...JSON.parse(secrets.secrets.get('default:oauth')!), expires_at: 0 }));
      const before = secrets.secrets.get('default:oauth');
      const refreshes = (await testEmulator().plane.stats()).refreshes;

      const doctor = await runCli(['--json', 'doctor'], { configDir, secrets, env: { SVC_API_KEY: emulator().seed.keys.test } });
      const checks = (JSON.parse(doctor.stdout) as { checks: Check[] }).checks;
      const signIn = checks.find((c) => c.check === 'credential' && c.message.includes('--live'));
      expect(signIn, doctor.stdout).toMatchObject({ status: 'ok' });
      expect(signIn!.message).toMatch(
        expired ? /not asked, since the access token .* has expired.*doctor changes nothing/ : /works: profile "default" OAuth sign-in/,
      );
      expect(secrets.secrets.get('default:oauth')).toBe(before);
      expect((await testEmulator().plane.stats()).refreshes).toBe(refreshes);
    });
  });
});

const { ok, refused } = parsing('doctor');

describe('svc doctor: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('doctor')).toEqual({});
    expect(await refused('doctor', 'now')).toContain('too many arguments');
  });
});
