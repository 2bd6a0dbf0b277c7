// `svc doctor` explains the decision every command makes: the profile and address by calling
// the same code (chooseProfile, chooseBaseUrl in src/credentials/resolve.ts), the refusal by
// making the request itself; and says a config folder others may write to is a problem (issue 32).
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { testEmulator, type TestEmulator } from '../helpers/emulator.js';
import { MemorySecretStore } from '../../src/credentials/store.js';

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
