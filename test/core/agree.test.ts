// `svc auth status`, `svc doctor` and `svc account` agree (issue 52): each asks what `svc
// account` asks, through the same resolution and pipe, so over every setup here the three
// succeed together or fail together, with account's own error as the cause.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';
import { failingKeychain } from '../helpers/keychains.js';
import { hostileServer, json, type HostileServer } from '../hostile/server.js';

const emu = useTestEmulator({ resetEach: true });

interface Setup {
  configDir: string;
  env: Record<string, string>;
  server?: HostileServer;
}

/** A profile "default" at `url` holding `secret` as its test key, in credentials.json (no keychain here). */
function profileAt(url: string, secret: string, env: Record<string, string> = {}): Setup {
  const configDir = tempConfigDir();
  const meta = { name: 'test', mode: 'test', last4: secret.slice(-4), scopes: ['account:read'], storage: 'file', added_at: '2026-01-01T00:00:00Z' };
  writeFileSync(
    join(configDir, 'config.json'),
    JSON.stringify({ version: 1, profiles: { default: { base_url: url, org_id: emu().seed.org_id, keys: { test: meta } } } }),
  );
  writeFileSync(join(configDir, 'credentials.json'), JSON.stringify({ version: 1, secrets: { 'default:test': secret } }), { mode: 0o600 });
  return { configDir, env: { SVC_CREDENTIAL_STORE: 'file', ...env } };
}

async function forbiddenBy(body: (res: import('node:http').ServerResponse) => void): Promise<Setup> {
  const server = await hostileServer('http');
  server.on('/v1/account', (_req, res) => body(res));
  server.on('/v1/balance', (_req, res) => body(res));
  return { ...profileAt(server.url, emu().seed.keys.test), server };
}

/** A port nothing listens on (one just closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const CASES: { name: string; arrange: () => Promise<Setup> | Setup; ok: boolean }[] = [
  { name: 'a working key', arrange: () => profileAt(emu().url, emu().seed.keys.test), ok: true },
  { name: 'a live key stored as the test key (damaged: never sent)', arrange: () => profileAt(emu().url, emu().seed.keys.live), ok: false },
  {
    name: "a proxy's HTML 403 (says nothing of the key)",
    arrange: () => forbiddenBy((res) => res.writeHead(403, { 'content-type': 'text/html' }).end('<html><body>Forbidden by proxy</body></html>')),
    ok: false,
  },
  { name: 'a bad proxy variable (HTTP_PROXY="not a url")', arrange: () => profileAt(emu().url, emu().seed.keys.test, { HTTP_PROXY: 'not a url' }), ok: false },
  {
    name: "NO_PROXY naming the service's host on another port: the request goes through the (absent) proxy",
    arrange: async () => profileAt(emu().url, emu().seed.keys.test, { HTTP_PROXY: `http://127.0.0.1:${await closedPort()}`, NO_PROXY: '127.0.0.1:1' }),
    ok: false,
  },
  {
    name: "NO_PROXY naming the service's host and port: the proxy is bypassed",
    arrange: async () =>
      profileAt(emu().url, emu().seed.keys.test, { HTTP_PROXY: `http://127.0.0.1:${await closedPort()}`, NO_PROXY: new URL(emu().url).host }),
    ok: true,
  },
];

interface Check {
  check: string;
  status: string;
  message: string;
}

describe('auth status, doctor and account agree', () => {
  it.each(CASES)('$name', async ({ arrange, ok }) => {
    const { configDir, env, server } = await arrange();
    const keychain = failingKeychain('no keychain in this test');
    try {
      const account = await runCli(['--json', 'account'], { configDir, env, keychain });
      const status = await runCli(['--json', 'auth', 'status'], { configDir, env, keychain });
      const doctor = await runCli(['--json', 'doctor'], { configDir, env, keychain });
      expect(account.exitCode === 0, account.stderr).toBe(ok);
      expect(status.exitCode === 0, status.stderr).toBe(ok);
      expect(doctor.exitCode === 0, doctor.stdout).toBe(ok);
      if (ok) return;
      const { error } = JSON.parse(account.stderr) as { error: { message: string; exit_code: number } };
      // The same cause: account's error is auth status's error, with its exit code, and doctor's request check.
      expect(JSON.parse(status.stderr).error.message).toBe(error.message);
      expect(status.exitCode).toBe(account.exitCode);
      const checks = (JSON.parse(doctor.stdout) as { checks: Check[] }).checks;
      const request = checks.find((c) => c.check === 'request');
      expect(request?.message).toBe(`svc account fails (exit ${account.exitCode}): ${error.message}`);
      // Doctor's proxy check says the request's truth: no "bypasses the proxy" for a request sent through it.
      if (env.HTTP_PROXY) expect(checks.find((c) => c.check === 'proxy')?.message).not.toContain('bypasses');
    } finally {
      await server?.close();
    }
  });

  it('auth status calls only the JSON scope refusal valid; an HTML 403 is "could not check"', async () => {
    for (const [setup, words] of [
      [await forbiddenBy((res) => json(res, 403, { detail: 'this key or app lacks the account:read scope' })), /— valid/],
      [
        await forbiddenBy((res) => res.writeHead(403, { 'content-type': 'text/html' }).end('<html>lacks the account:read scope</html>')),
        /— not checked: could not check: forbidden/,
      ],
    ] as const) {
      const r = await runCli(['auth', 'status'], { configDir: setup.configDir, env: setup.env, keychain: failingKeychain('none') });
      expect(r.stdout).toMatch(words);
      await setup.server?.close();
    }
  });
});

describe('keys add and a 403', () => {
  it('an HTML 403 is not reported as the key lacking account:read, nor stored unverified', async () => {
    const server = await hostileServer('http');
    server.on('/v1/account', (_req, res) => res.writeHead(403, { 'content-type': 'text/html' }).end('<html>Forbidden</html>'));
    try {
      const r = await runCli(['keys', 'add', '--base-url', server.url, '--org', 'org_1'], {
        stdin: emu().seed.keys.test,
        keychain: failingKeychain('none'),
        env: { SVC_CREDENTIAL_STORE: 'file' },
      });
      expect(r.exitCode).toBe(4);
      expect(r.stderr).not.toContain('lacks the account:read scope');
      expect(r.stderr).toContain('forbidden');
      expect(r.stderr).not.toContain('stored unverified');
    } finally {
      await server.close();
    }
  });
});
