// invalid_grant on a refresh is not always "the organization disconnected the app": another
// process may have rotated the pair meanwhile (re-read it), or an earlier refresh of this
// profile was cut short after the service rotated but before the new pair was stored.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestEmulator } from '../helpers/emulator.js';
import { DiskFullError, MemorySecretStore, type SecretStore } from '../../src/credentials/store.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { control, envFor, scriptedBrowser } from './support.js';

const testEmulator = useTestEmulator({ resetEach: true });
const emulator = () => testEmulator().emulator;

async function signedIn() {
  const secrets = new MemorySecretStore();
  const configDir = tempConfigDir();
  const login = await runCli(['login'], { env: envFor(emulator()), browser: scriptedBrowser(emulator()), secrets, configDir });
  expect(login.exitCode, login.stderr).toBe(0);
  const entry = () => JSON.parse(secrets.secrets.get('default:oauth')!) as { access_token: string; refresh_token: string; expires_at: number };
  /** Makes the stored access token look expired, so the next command refreshes first. */
  const expire = () => secrets.secrets.set('default:oauth', JSON.stringify({ ...entry(), expires_at: 0 }));
  return { secrets, configDir, entry, expire };
}

/** What the service answers to a refresh with this token (spending it), as another process would. */
async function refreshAtService(refreshToken: string) {
  const response = await fetch(`${emulator().url}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'svc_app_cli' }).toString(),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { access_token: string; refresh_token: string };
}

describe('a refresh refused with invalid_grant', () => {
  it('a pair rotated by another process meanwhile is re-read and used, not reported as a lost sign-in', async () => {
    const { secrets, configDir, entry, expire } = await signedIn();
    expire();
    const stale = secrets.secrets.get('default:oauth')!;
    // Another process refreshed and stored its new pair while this one was stopped...
    const rotated = await refreshAtService(entry().refresh_token);
    secrets.secrets.set(
      'default:oauth',
      JSON.stringify({ ...entry(), access_token: rotated.access_token, refresh_token: rotated.refresh_token, expires_at: Date.now() + 3600_000 }),
    );
    // ...and this one had read the old pair before (its first two reads, before and inside the lock).
    let reads = 0;
    const stopped: SecretStore = {
      get: async (profile, name, where) => (name === 'oauth' && ++reads <= 2 ? stale : secrets.get(profile, name)),
      set: (profile, name, value) => secrets.set(profile, name, value),
      delete: (profile, name) => secrets.delete(profile, name),
    };
    const r = await runCli(['account', '--live', '--json'], { secrets: stopped, configDir });
    expect(r.stderr).not.toContain('has ended');
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).id).toBe(emulator().seed.org_id);
    expect(reads).toBeGreaterThanOrEqual(3);
  });

  it('after a refresh cut short before its new pair was stored: says the last refresh was interrupted and to run svc login', async () => {
    const { secrets, configDir, expire } = await signedIn();
    expire();
    // The refresh goes out and the service rotates; the process dies before storing (a store that fails here stands for the kill).
    const dying: SecretStore = {
      get: (profile, name) => secrets.get(profile, name),
      set: async () => {
        throw new Error('killed');
      },
      delete: (profile, name) => secrets.delete(profile, name),
    };
    // This command finishes with the pair it holds, and says the sign-in was not saved.
    const killed = await runCli(['account', '--live'], { secrets: dying, configDir });
    expect(killed.exitCode, killed.stderr).toBe(0);
    expect(killed.stderr).toContain('the sign-in could not be saved (killed); this command goes on with it, then it is revoked at the service: run svc login');
    // Nothing stays open at the service that nothing here holds.
    expect(killed.stderr).toContain('the refreshed sign-in that could not be saved: what it issued was revoked at the service, nothing of it stays open');
    const { data } = await control(emulator(), 'GET', `/_emulator/orgs/${emulator().seed.org_id}/connections`);
    expect(data.map((c: { client_id: string }) => c.client_id)).not.toContain('svc_app_cli');
    const config = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'));
    expect(config.profiles.default.oauth.refresh_started_at).toEqual(expect.any(String));

    const next = await runCli(['account', '--live'], { secrets, configDir });
    expect(next.exitCode).toBe(3);
    expect(next.stderr).toContain('the last refresh of profile "default" was interrupted');
    expect(next.stderr).toContain('svc login');
    expect(next.stderr).not.toContain('has ended');
    const status = await runCli(['auth', 'status', '--json'], { secrets, configDir });
    expect(JSON.parse(status.stdout).profiles[0].oauth).toMatchObject({ ended_reason: 'refresh_interrupted' });
  });

  it('a new pair that cannot be stored for a full disk (injected ENOSPC): the command finishes with it, names the file and the fix, and the pair is revoked as svc ends', async () => {
    const { secrets, configDir, expire } = await signedIn();
    expire();
    const path = join(configDir, 'credentials.json');
    const full: SecretStore = {
      get: (profile, name) => secrets.get(profile, name),
      set: async () => {
        throw new DiskFullError(`cannot write ${path}: the disk is full`, path, 'free space');
      },
      delete: (profile, name) => secrets.delete(profile, name),
    };
    const r = await runCli(['account', '--live', '--json'], { secrets: full, configDir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).id).toBe(emulator().seed.org_id);
    expect(r.stderr).toContain(
      `the sign-in could not be saved at ${path} (the disk is full); this command goes on with it, then it is revoked at the service: free space and run svc login`,
    );
    expect(r.stderr).toContain('what it issued was revoked at the service, nothing of it stays open');
    expect(r.stderr).not.toContain('has ended');
  });

  it('a completed refresh leaves no in-flight mark, and a real disconnection is still reported as one', async () => {
    const { secrets, configDir, expire } = await signedIn();
    expire();
    const ok = await runCli(['account', '--live'], { secrets, configDir });
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles.default.oauth.refresh_started_at).toBeUndefined();

    await control(emulator(), 'DELETE', `/_emulator/orgs/${emulator().seed.org_id}/connections/svc_app_cli`);
    expire();
    const ended = await runCli(['account', '--live'], { secrets, configDir });
    expect(ended.exitCode).toBe(3);
    expect(ended.stderr).toContain('the connection to Acme has ended');
  });
});
