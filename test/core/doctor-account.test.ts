// `svc doctor` asks the real thing (issue 42): its request check is the request `svc account`
// makes, through the same resolution and client, so the two never disagree. Each setup runs
// both, side by side, with the same flags and environment: doctor passes exactly when account
// does, and when account fails, doctor names account's error and exit code.
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';
import { MemorySecretStore } from '../../src/credentials/store.js';

const emu = useTestEmulator({ resetEach: true });

interface Setup {
  configDir: string;
  secrets: MemorySecretStore;
  env: Record<string, string>;
  flags: string[];
}

interface Check {
  check: string;
  status: string;
  message: string;
  fix?: string;
  exit_code?: number;
}

/** A fresh config dir with a profile "default" bound to the emulator, holding `key`. */
async function profileWith(key: string, addFlags: string[] = []): Promise<Setup> {
  const setup: Setup = { configDir: tempConfigDir(), secrets: new MemorySecretStore(), env: {}, flags: [] };
  const added = await runCli(['keys', 'add', '--base-url', emu().url, ...addFlags], { configDir: setup.configDir, secrets: setup.secrets, stdin: key });
  expect(added.exitCode, added.stderr).toBe(0);
  return setup;
}

const cases: Array<{ name: string; arrange: () => Promise<Setup>; accountExit: number }> = [
  { name: 'a healthy profile', arrange: () => profileWith(emu().seed.keys.test), accountExit: 0 },
  {
    name: 'a path in the base URL (SVC_BASE_URL=…/api): the request goes to /api/v1/account',
    arrange: async () => ({ ...(await profileWith(emu().seed.keys.test)), env: { SVC_BASE_URL: `${emu().url}/api` } }),
    accountExit: 5,
  },
  {
    name: 'a path in the base URL with SVC_API_KEY',
    arrange: async () => ({
      configDir: tempConfigDir(),
      secrets: new MemorySecretStore(),
      env: { SVC_BASE_URL: `${emu().url}/api`, SVC_API_KEY: emu().seed.keys.test },
      flags: [],
    }),
    accountExit: 5,
  },
  {
    name: '--live with a profile holding only a test key',
    arrange: async () => ({ ...(await profileWith(emu().seed.keys.test)), flags: ['--live'] }),
    accountExit: 3,
  },
  {
    name: '--live with a test key in SVC_API_KEY',
    arrange: async () => ({
      configDir: tempConfigDir(),
      secrets: new MemorySecretStore(),
      env: { SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: emu().url },
      flags: ['--live'],
    }),
    accountExit: 2,
  },
  {
    name: 'a revoked key',
    arrange: async () => {
      const made = await emu().makeKey('test');
      const setup = await profileWith(made.key);
      await emu().plane.revokeKey(emu().seed.org_id, made.id);
      return setup;
    },
    accountExit: 3,
  },
  {
    name: 'a key limited to calls:read (no account:read)',
    arrange: async () => profileWith((await emu().makeKey('test', ['calls:read'])).key, ['--org', emu().seed.org_id]),
    accountExit: 4,
  },
  {
    name: 'a key limited to account:read',
    arrange: async () => profileWith((await emu().makeKey('test', ['account:read'])).key),
    accountExit: 0,
  },
  {
    name: 'a profile bound to another address than SVC_BASE_URL names',
    arrange: async () => ({ ...(await profileWith(emu().seed.keys.test)), env: { SVC_BASE_URL: emu().url.replace('127.0.0.1', 'localhost') } }),
    accountExit: 2,
  },
  {
    name: 'a revoked SVC_API_KEY beside a working stored key',
    arrange: async () => {
      const made = await emu().makeKey('test');
      await emu().plane.revokeKey(emu().seed.org_id, made.id);
      return { ...(await profileWith(emu().seed.keys.test)), env: { SVC_API_KEY: made.key } };
    },
    accountExit: 3,
  },
  {
    name: 'a working SVC_API_KEY beside a revoked stored key',
    arrange: async () => {
      const made = await emu().makeKey('test');
      const setup = await profileWith(made.key);
      await emu().plane.revokeKey(emu().seed.org_id, made.id);
      return { ...setup, env: { SVC_API_KEY: emu().seed.keys.test } };
    },
    accountExit: 0,
  },
];

describe('svc doctor and svc account, side by side', () => {
  it.each(cases)('$name', async ({ arrange, accountExit }) => {
    const { configDir, secrets, env, flags } = await arrange();
    const account = await runCli([...flags, '--json', 'account'], { configDir, secrets, env });
    const doctor = await runCli([...flags, '--json', 'doctor'], { configDir, secrets, env });
    expect(account.exitCode, account.stderr).toBe(accountExit);

    const checks = (JSON.parse(doctor.stdout) as { checks: Check[] }).checks;
    const request = checks.find((c) => c.check === 'request')!;
    expect(request, doctor.stdout).toBeDefined();
    // The same verdict: doctor passes exactly when account does.
    expect(doctor.exitCode === 0, `doctor: ${doctor.stdout}`).toBe(account.exitCode === 0);
    if (account.exitCode === 0) {
      expect(request.status).toBe('ok');
      expect(request.message).toContain(JSON.parse(account.stdout).name);
    } else {
      // The same cause: account's own error, with its exit code and its next step.
      const { error } = JSON.parse(account.stderr) as { error: { message: string; hint: string | null; exit_code: number } };
      expect(request).toMatchObject({
        status: 'failed',
        exit_code: account.exitCode,
        message: `svc account fails (exit ${account.exitCode}): ${error.message}`,
      });
      expect(request.fix ?? null).toBe(error.hint);
    }
  });

  it('a revoked stored key beside the one in use is a warning naming the command that would fail, not a pass', async () => {
    const made = await emu().makeKey('test');
    const setup = await profileWith(made.key);
    await emu().plane.revokeKey(emu().seed.org_id, made.id);
    const doctor = await runCli(['--json', 'doctor'], { configDir: setup.configDir, secrets: setup.secrets, env: { SVC_API_KEY: emu().seed.keys.test } });
    const checks = (JSON.parse(doctor.stdout) as { checks: Check[] }).checks;
    expect(checks.find((c) => c.check === 'credential')).toMatchObject({ status: 'warning', exit_code: 3 });
    expect(checks.find((c) => c.check === 'credential')!.message).toMatch(/^svc --profile default --test account fails \(exit 3\): /);
  });
});
