// Tokens after login: refresh ahead of expiry and after a 401, refused refreshes, logout,
// auth token and auth switch, against the emulator over real HTTP.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { startTestEmulator, useTestEmulator } from '../helpers/emulator.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { KeychainError } from '../../src/errors.js';
import type { Clock } from '../../src/context.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { controlPlane, envFor, scriptedBrowser, stats } from './support.js';

const emu = useTestEmulator({ resetEach: true });
/** The file's emulator, reset to the seed before each test. */
const emulator = () => emu().emulator;

/** A logged-in profile: its secret store and config dir, shared by the runs that follow. */
async function loggedIn(profile = 'default', extra: { env?: Record<string, string>; argv?: string[] } = {}) {
  const secrets = new MemorySecretStore();
  const configDir = tempConfigDir();
  const login = await runCli(['login', '--profile', profile, ...(extra.argv ?? [])], {
    env: envFor(emulator(), extra.env),
    browser: scriptedBrowser(emulator()),
    secrets,
    configDir,
  });
  expect(login.stderr).not.toMatch(/^error/m);
  expect(login.exitCode).toBe(0);
  const stored = () => JSON.parse(secrets.secrets.get(`${profile}:oauth`)!) as { access_token: string; refresh_token: string; expires_at: number };
  const run = (argv: string[], opts: { clock?: Clock; env?: Record<string, string> } = {}) =>
    runCli(argv, { env: { SVC_BASE_URL: emulator().url, ...extra.env, ...opts.env }, secrets, configDir, ...(opts.clock ? { clock: opts.clock } : {}) });
  return { secrets, configDir, stored, run };
}

const shiftedClock = (offsetMs: number): Clock => ({
  now: () => Date.now() + offsetMs,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
});

async function bearerWorks(token: string): Promise<number> {
  return (await fetch(`${emulator().url}/v1/account`, { headers: { authorization: `Bearer ${token}` } })).status;
}

describe('access token refresh', () => {
  it('uses the stored token while it is fresh, without refreshing', async () => {
    const session = await loggedIn();
    const before = session.stored();
    const result = await session.run(['account', '--json']);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout).id).toBe(emulator().seed.org_id);
    expect((await stats(emulator())).refreshes).toBe(0);
    expect(session.stored().access_token).toBe(before.access_token);
  });

  it('refreshes 60 s ahead of expiry and stores the new pair', async () => {
    const session = await loggedIn();
    const before = session.stored();
    // 59 minutes and 10 seconds later: inside the 60 s margin.
    const result = await session.run(['auth', 'token'], { clock: shiftedClock(3550_000) });
    expect(result.exitCode).toBe(0);
    const after = session.stored();
    expect(result.stdout).toBe(`${after.access_token}\n`);
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(await bearerWorks(after.access_token)).toBe(200);
    expect(await bearerWorks(before.access_token)).toBe(401);
    expect(await stats(emulator())).toMatchObject({ refreshes: 1, refresh_reuse: 0 });
    const config = JSON.parse(readFileSync(join(session.configDir, 'config.json'), 'utf8'));
    expect(config.profiles.default.oauth.expires_at).toBe(after.expires_at);
  });

  it('refreshes once after a 401 (the service saw the token expire) and retries the request', async () => {
    const session = await loggedIn();
    await controlPlane(emulator()).advanceClock(3601);
    const result = await session.run(['account', '--json']);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(await stats(emulator())).toMatchObject({ refreshes: 1, refresh_reuse: 0 });
  });

  it('svc account asks for the account and the balance at once: one refresh for both, ahead of expiry or after a 401', async () => {
    const session = await loggedIn();
    const ahead = await session.run(['account', '--json'], { clock: shiftedClock(3550_000) });
    expect(ahead.exitCode).toBe(0);
    expect(JSON.parse(ahead.stdout)).toMatchObject({ id: emulator().seed.org_id, balance: { object: 'balance' } });
    expect(await stats(emulator())).toMatchObject({ refreshes: 1, refresh_reuse: 0 });
    // Both requests refused together (the service saw the token expire): still one refresh.
    await controlPlane(emulator()).advanceClock(3601);
    const refused = await session.run(['account', '--json']);
    expect(refused.stderr).toBe('');
    expect(refused.exitCode).toBe(0);
    expect(await stats(emulator())).toMatchObject({ refreshes: 2, refresh_reuse: 0 });
  });

  it('a reused refresh token (a stale copy of the pair) ends the connection with exit 3, deleting nothing', async () => {
    const session = await loggedIn();
    const stale = session.secrets.secrets.get('default:oauth')!;
    expect((await session.run(['auth', 'token'], { clock: shiftedClock(3550_000) })).exitCode).toBe(0);
    session.secrets.secrets.set('default:oauth', stale); // e.g. restored from a backup
    const result = await session.run(['auth', 'token'], { clock: shiftedClock(3550_000) });
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain('the connection to Acme has ended; run svc login');
    expect((await stats(emulator())).refresh_reuse).toBe(1);
    expect(session.secrets.secrets.get('default:oauth')).toBe(stale);
  });

  it('the organization disconnecting the app ends the connection: exit 3 naming the org', async () => {
    const session = await loggedIn();
    await controlPlane(emulator()).disconnect(emulator().seed.org_id, 'svc_app_cli');
    const result = await session.run(['account', '--json']);
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain('the connection to Acme has ended; run svc login');
    expect(session.secrets.secrets.has('default:oauth')).toBe(true);
  });

  it('a refused refresh is recorded: auth status says the connection ended (exit 3) until a login replaces it', async () => {
    const session = await loggedIn();
    expect((await session.run(['auth', 'status'])).exitCode).toBe(0);
    await controlPlane(emulator()).disconnect(emulator().seed.org_id, 'svc_app_cli');
    expect((await session.run(['account', '--json'])).exitCode).toBe(3);

    const config = JSON.parse(readFileSync(join(session.configDir, 'config.json'), 'utf8'));
    expect(config.profiles.default.oauth.ended_at).toEqual(expect.any(String));
    expect(config.profiles.default.oauth.ended_reason).toBe('invalid_grant');
    expect(session.secrets.secrets.has('default:oauth')).toBe(true);

    const status = await session.run(['auth', 'status']);
    expect(status.exitCode).toBe(3);
    expect(status.stdout).toContain('ended just now — run svc login');
    expect(status.stdout).not.toContain('Commands use');
    expect(status.stderr).toContain('has ended');
    expect(status.stderr).toContain('svc login --profile default');
    const json = await session.run(['auth', 'status', '--json']);
    expect(json.exitCode).toBe(3);
    expect(JSON.parse(json.stdout).active).toMatchObject({ profile: 'default', oauth: 'ended' });

    const again = await runCli(['login'], {
      env: envFor(emulator()),
      browser: scriptedBrowser(emulator()),
      secrets: session.secrets,
      configDir: session.configDir,
    });
    expect(again.exitCode).toBe(0);
    const after = await session.run(['auth', 'status']);
    expect(after.exitCode).toBe(0);
    expect(after.stdout).toContain('Commands use: profile "default", live mode, the OAuth sign-in');
    expect(JSON.parse(readFileSync(join(session.configDir, 'config.json'), 'utf8')).profiles.default.oauth.ended_at).toBeUndefined();
  });

  it('auth status exits 3 when the OAuth entry is missing from its store', async () => {
    const session = await loggedIn();
    session.secrets.secrets.delete('default:oauth');
    const status = await session.run(['auth', 'status']);
    expect(status.exitCode).toBe(3);
    expect(status.stdout).toContain('secret missing — run svc login');
    expect(status.stdout).not.toContain('Commands use');
    expect(status.stderr).toContain('missing from its store');
  });

  it("deleting the organization's own app ends the connection too (confidential client with a secret)", async () => {
    const made = await controlPlane(emulator()).createApp({ name: 'Acme tools', redirect_uris: ['http://127.0.0.1/callback'] });
    expect(made.client_secret).toMatch(/^svc_cs_/);
    const app = { client_id: made.client_id, client_secret: made.client_secret! };
    const session = await loggedIn('tools', { argv: ['--client-id', app.client_id], env: { SVC_CLIENT_SECRET: app.client_secret } });
    expect(session.stored()).toMatchObject({ client_id: app.client_id });
    // The secret lets it refresh.
    expect((await session.run(['auth', 'token', '--profile', 'tools'], { clock: shiftedClock(3550_000) })).exitCode).toBe(0);

    await controlPlane(emulator()).deleteApp(app.client_id);
    const result = await session.run(['account', '--json', '--profile', 'tools']);
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain('the connection to Acme has ended; run svc login');
  });
});

describe('svc logout', () => {
  it('revokes at the service, then deletes the local secret and metadata', async () => {
    const session = await loggedIn();
    const { access_token } = session.stored();
    const connections = () => controlPlane(emulator()).connections(emulator().seed.org_id);
    expect((await connections()).data).toHaveLength(1);
    const result = await session.run(['logout']);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toMatch(/revoked/);
    expect(await bearerWorks(access_token)).toBe(401);
    expect((await connections()).data).toEqual([]);
    expect(session.secrets.secrets.has('default:oauth')).toBe(false);
    const config = JSON.parse(readFileSync(join(session.configDir, 'config.json'), 'utf8'));
    expect(config.profiles.default.oauth).toBeUndefined();
    expect((await session.run(['account'])).exitCode).toBe(3);
  });

  it("offline: the revoke fails, the sign-in is kept and the exit code is the failure's (9); --local forgets it without revoking", async () => {
    const offline = await startTestEmulator();
    const secrets = new MemorySecretStore();
    const configDir = tempConfigDir();
    const login = await runCli(['login'], { env: envFor(offline), browser: scriptedBrowser(offline), secrets, configDir });
    expect(login.exitCode).toBe(0);
    await offline.close();
    const result = await runCli(['logout'], { env: { SVC_BASE_URL: offline.url }, secrets, configDir });
    expect(result.stderr).toMatch(/nothing answered/);
    expect(result.exitCode).toBe(9);
    expect(result.stderr).toContain('could not revoke the OAuth connection of profile "default"');
    expect(result.stderr).toContain('the sign-in is kept');
    expect(result.stderr).toContain('svc logout --local');
    expect(secrets.secrets.has('default:oauth')).toBe(true);
    const status = await runCli(['auth', 'status', '--json'], { secrets, configDir });
    expect(JSON.parse(status.stdout).profiles[0].oauth).toBeDefined();

    const local = await runCli(['logout', '--local'], { env: { SVC_BASE_URL: offline.url }, secrets, configDir });
    expect(local.exitCode, local.stderr).toBe(0);
    expect(local.stderr).toContain('the connection stays open at the service');
    expect(secrets.secrets.has('default:oauth')).toBe(false);
  });

  it('a keychain that does not answer the read: the sign-in is kept, not revoked, exit 1 naming the cause; --local forgets it', async () => {
    const session = await loggedIn();
    const connections = () => controlPlane(emulator()).connections(emulator().seed.org_id);
    // The same entries, behind a keychain whose reads time out (a stuck D-Bus).
    const stuck = new MemorySecretStore();
    for (const [account, value] of session.secrets.secrets) stuck.secrets.set(account, value);
    stuck.get = async () => {
      throw new KeychainError('the OS keychain did not answer within 3 s (read)');
    };
    const result = await runCli(['logout'], { env: { SVC_BASE_URL: emulator().url }, secrets: stuck, configDir: session.configDir });
    expect(result.exitCode).toBe(1);
    const json = await runCli(['logout', '--json'], { env: { SVC_BASE_URL: emulator().url }, secrets: stuck, configDir: session.configDir });
    expect(JSON.parse(json.stderr).error.code).toBe('keychain_failed');
    expect(result.stderr).toContain('could not read the OAuth sign-in of profile "default"');
    expect(result.stderr).toContain('did not answer within 3 s');
    expect(result.stderr).toContain('the sign-in is kept');
    expect(result.stderr).toContain('svc logout --local');
    expect(result.stderr).not.toContain('no stored tokens');
    expect(stuck.secrets.has('default:oauth')).toBe(true);
    expect(JSON.parse(readFileSync(join(session.configDir, 'config.json'), 'utf8')).profiles.default.oauth).toBeDefined();
    expect((await connections()).data).toHaveLength(1);

    // A profile config.json records no sign-in for (a key only): nothing to keep, nothing to log out.
    const keyOnly = await runCli(['keys', 'add', '--profile', 'other', '--base-url', emulator().url], {
      secrets: stuck,
      configDir: session.configDir,
      stdin: emulator().seed.keys.test,
    });
    expect(keyOnly.exitCode, keyOnly.stderr).toBe(0);
    const none = await runCli(['logout', '--profile', 'other'], { env: { SVC_BASE_URL: emulator().url }, secrets: stuck, configDir: session.configDir });
    expect(none.exitCode, none.stderr).toBe(0);
    expect(none.stderr).toContain('is not signed in with OAuth');

    const local = await runCli(['logout', '--local'], { env: { SVC_BASE_URL: emulator().url }, secrets: stuck, configDir: session.configDir });
    expect(local.exitCode, local.stderr).toBe(0);
    expect(local.stderr).toContain('the connection stays open at the service');
    expect(stuck.secrets.has('default:oauth')).toBe(false);
  });

  it('--all logs out of every signed-in profile', async () => {
    const secrets = new MemorySecretStore();
    const configDir = tempConfigDir();
    for (const profile of ['a', 'b']) {
      const login = await runCli(['login', '--profile', profile], { env: envFor(emulator()), browser: scriptedBrowser(emulator()), secrets, configDir });
      expect(login.exitCode).toBe(0);
    }
    const result = await runCli(['logout', '--all', '--json'], { env: { SVC_BASE_URL: emulator().url }, secrets, configDir });
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([
      { profile: 'a', signed_in: true, revoked: true, forgotten: true },
      { profile: 'b', signed_in: true, revoked: true, forgotten: true },
    ]);
    expect([...secrets.secrets.keys()].filter((k) => k.endsWith(':oauth'))).toEqual([]);
  });
});

describe('svc auth token and svc auth switch', () => {
  it('auth token prints only the working credential: the OAuth token, or SVC_API_KEY', async () => {
    const session = await loggedIn();
    const result = await session.run(['auth', 'token']);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^svc_oat_\S+\n$/);
    expect(await bearerWorks(result.stdout.trim())).toBe(200);

    const withKey = await session.run(['auth', 'token'], { env: { SVC_API_KEY: emulator().seed.keys.test } });
    expect(withKey.stdout).toBe(`${emulator().seed.keys.test}\n`);
  });

  it('auth switch sets the default profile; an unknown one exits 2 listing the known ones', async () => {
    const secrets = new MemorySecretStore();
    const configDir = tempConfigDir();
    for (const profile of ['work', 'home']) {
      expect(
        (await runCli(['login', '--profile', profile], { env: envFor(emulator()), browser: scriptedBrowser(emulator()), secrets, configDir })).exitCode,
      ).toBe(0);
    }
    const readConfig = () => JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'));
    expect(readConfig().default_profile).toBe('work');

    const switched = await runCli(['auth', 'switch', 'home'], { env: { SVC_BASE_URL: emulator().url }, secrets, configDir });
    expect(switched.exitCode).toBe(0);
    expect(readConfig().default_profile).toBe('home');
    const token = await runCli(['auth', 'token'], { env: { SVC_BASE_URL: emulator().url }, secrets, configDir });
    expect(token.stdout.trim()).toBe(JSON.parse(secrets.secrets.get('home:oauth')!).access_token);

    const unknown = await runCli(['auth', 'switch', 'nope'], { env: { SVC_BASE_URL: emulator().url }, secrets, configDir });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('work');
    expect(unknown.stderr).toContain('home');
    expect(readConfig().default_profile).toBe('home');
  });
});
