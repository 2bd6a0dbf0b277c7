// Kills aimed at each step of the credential windows, never at a moment a machine's speed
// chooses: the built svc sends itself the signal when its credential transaction reaches the
// step (SVC_TEST_SIGNAL_AT, src/cli/process/process.ts). After each, the files and the service
// are in one of the two whole states (signed in: secret, config.json entry, app connected; or
// not at all), and the next command says which. Spawned bin/svc.js, a HOME that does not exist
// yet, the file store; the keychain's kills are in test/real/aimed-kills-keychain.test.ts.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';
import { spawnCollect, svcCommand, svcPath, type Spawned } from '../helpers/spawn.js';
import { spawn } from 'node:child_process';

const emu = useTestEmulator({ resetEach: true });
/** Each case spawns svc up to five times: on a busy machine each start can take seconds. */
const SPAWNS = { timeout: 90_000 };

interface Home {
  home: string;
  dir: string;
  /** The BROWSER: approves as the seed's admin and follows the redirect to svc's loopback server. */
  browser: string;
}

function newHome(): Home {
  const base = tempConfigDir();
  const home = join(base, 'home');
  const browser = join(base, 'browser.mjs');
  writeFileSync(
    browser,
    `#!${process.execPath}
const url = process.argv[2];
await fetch(process.env.TEST_EMULATOR + '/_emulator/approvals', { method: 'POST', headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ decision: 'approve', email: process.env.TEST_ADMIN, org_id: process.env.TEST_ORG }) });
const page = await fetch(url, { redirect: 'manual' });
await fetch(new URL(page.headers.get('location'), url));
`,
    { mode: 0o755 },
  );
  return { home, dir: join(home, '.config', 'svc'), browser };
}

function envOf(h: Home, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: svcPath(),
    HOME: h.home,
    XDG_CONFIG_HOME: join(h.home, '.config'),
    SVC_CREDENTIAL_STORE: 'file',
    SVC_BASE_URL: emu().url,
    NO_COLOR: '1',
    DISPLAY: ':0',
    BROWSER: h.browser,
    TEST_EMULATOR: emu().url,
    TEST_ADMIN: emu().seed.admin.email,
    TEST_ORG: emu().seed.org_id,
    ...extra,
  };
}

function svc(h: Home, args: string[], extra: Record<string, string> = {}): Promise<Spawned> {
  const [command, argv] = svcCommand(args);
  return spawnCollect(command, argv, { env: envOf(h, extra) });
}

interface State {
  config: boolean;
  secret: boolean;
  connected: boolean;
}

async function stateOf(h: Home): Promise<State> {
  const read = (name: string) => (existsSync(join(h.dir, name)) ? JSON.parse(readFileSync(join(h.dir, name), 'utf8')) : {});
  const apps = (await emu().plane.connections(emu().seed.org_id)).data;
  return {
    config: read('config.json').profiles?.default?.oauth !== undefined,
    secret: read('credentials.json').secrets?.['default:oauth'] !== undefined,
    connected: apps.some((app) => app.client_id === 'svc_app_cli'),
  };
}

const SIGNED_IN: State = { config: true, secret: true, connected: true };
const SIGNED_OUT: State = { config: false, secret: false, connected: false };

/** A profile signed in, its access token expired (the next command refreshes). */
async function signedInExpired(): Promise<Home> {
  const h = newHome();
  const login = await svc(h, ['login']);
  expect(login.code, login.stderr).toBe(0);
  const file = join(h.dir, 'credentials.json');
  const credentials = JSON.parse(readFileSync(file, 'utf8'));
  credentials.secrets['default:oauth'] = JSON.stringify({ ...JSON.parse(credentials.secrets['default:oauth']), expires_at: 0 });
  writeFileSync(file, JSON.stringify(credentials));
  return h;
}

describe('a first login killed at each step after the code exchange', SPAWNS, () => {
  it.each(['signed-in', 'secret-written', 'config-written'])(
    'SIGINT at %s: waits for the sign-in, says so, exits 130 signed in; the next command uses it',
    async (step) => {
      const h = newHome();
      const login = await svc(h, ['login'], { SVC_TEST_SIGNAL_AT: `${step}:SIGINT` });
      expect(login.code, login.stderr).toBe(130);
      expect(login.stderr).toContain('svc: stopping once the new sign-in is stored (at most 5 s)');
      expect(await stateOf(h)).toEqual(SIGNED_IN);
      const next = await svc(h, ['account', 'balance', '--json']);
      expect(next.code, next.stderr).toBe(0);
    },
  );

  it('SIGKILL at signed-in (the pair only in memory): nothing stored, and the next command says a sign-in was cut short', async () => {
    const h = newHome();
    const login = await svc(h, ['login'], { SVC_TEST_SIGNAL_AT: 'signed-in:SIGKILL' });
    expect(login.signal).toBe('SIGKILL');
    expect(await stateOf(h)).toMatchObject({ config: false, secret: false });
    const next = await svc(h, ['logout', '--yes']);
    expect(next.stderr).toMatch(/a sign-in of profile "default" started at \S+ was cut short before it stored anything; had it been approved/);
    expect(JSON.parse(readFileSync(join(h.dir, 'config.json'), 'utf8')).sign_ins_in_flight).toBeUndefined();
  });

  it('SIGKILL at secret-written (tokens stored, not yet recorded): the next command revokes and deletes them, and says so', async () => {
    const h = newHome();
    const login = await svc(h, ['login'], { SVC_TEST_SIGNAL_AT: 'secret-written:SIGKILL' });
    expect(login.signal).toBe('SIGKILL');
    // Named by the login's entry in config.json, never stored without it.
    expect(JSON.parse(readFileSync(join(h.dir, 'config.json'), 'utf8')).sign_ins_in_flight).toMatchObject([{ profile: 'default', base_url: emu().url }]);
    expect(await stateOf(h)).toEqual({ config: false, secret: true, connected: true });
    const next = await svc(h, ['account', 'balance']);
    expect(next.stderr).toMatch(/its tokens were revoked at the service and deleted here; run svc login to sign in/);
    expect(next.code, next.stderr).toBe(3);
    expect(await stateOf(h)).toEqual(SIGNED_OUT);
  });

  it('a second login of a signed-in profile, SIGKILL at secret-written: the next command keeps the new tokens (they replaced the same sign-in), and says so', async () => {
    const h = newHome();
    expect((await svc(h, ['login'])).code).toBe(0);
    const before = JSON.parse(readFileSync(join(h.dir, 'credentials.json'), 'utf8')).secrets['default:oauth'];
    const again = await svc(h, ['login'], { SVC_TEST_SIGNAL_AT: 'secret-written:SIGKILL' });
    expect(again.signal).toBe('SIGKILL');
    const next = await svc(h, ['account', 'balance', '--json']);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toMatch(
      /a sign-in of profile "default" started at \S+ was cut short after it stored its tokens: they are kept, and the profile uses them/,
    );
    expect(await stateOf(h)).toEqual(SIGNED_IN);
    const after = JSON.parse(readFileSync(join(h.dir, 'credentials.json'), 'utf8')).secrets['default:oauth'];
    expect(after).not.toBe(before);
    const config = JSON.parse(readFileSync(join(h.dir, 'config.json'), 'utf8'));
    expect(config.sign_ins_in_flight).toBeUndefined();
    expect(config.profiles.default.oauth.expires_at).toBe(JSON.parse(after).expires_at);
  });

  it('a login moving the profile to another organization, SIGKILL at secret-written: the next command revokes the new tokens and forgets the sign-in they replaced', async () => {
    const h = newHome();
    expect((await svc(h, ['login'])).code).toBe(0);
    const other = await emu().plane.createOrg('Globex');
    const moved = await svc(h, ['login', '--yes'], { SVC_TEST_SIGNAL_AT: 'secret-written:SIGKILL', TEST_ADMIN: other.admin.email, TEST_ORG: other.id });
    expect(moved.signal, moved.stderr).toBe('SIGKILL');
    const next = await svc(h, ['account', 'balance']);
    expect(next.stderr).toMatch(/its tokens were revoked at the service and deleted here \(with them, the sign-in they had replaced\)/);
    expect(next.code).toBe(3);
    const config = JSON.parse(readFileSync(join(h.dir, 'config.json'), 'utf8'));
    expect(config.profiles.default.oauth).toBeUndefined();
    expect(config.sign_ins_in_flight).toBeUndefined();
    expect((await stateOf(h)).secret).toBe(false);
    expect((await emu().plane.connections(other.id)).data).toEqual([]);
  });

  it('SIGKILL at config-written (recorded): signed in whole, and the next command uses it', async () => {
    const h = newHome();
    const login = await svc(h, ['login'], { SVC_TEST_SIGNAL_AT: 'config-written:SIGKILL' });
    expect(login.signal).toBe('SIGKILL');
    expect(await stateOf(h)).toEqual(SIGNED_IN);
    const next = await svc(h, ['account', 'balance', '--json']);
    expect(next.code, next.stderr).toBe(0);
  });
});

describe('a refresh killed at each step after the token endpoint answered', SPAWNS, () => {
  // (A refresh writes config.json first to mark itself under way: its second write is after the answer.)
  it.each(['answered', 'secret-written', 'config-written@2'])(
    'SIGINT at %s: waits for the new pair, says so, exits 130; the next command works',
    async (step) => {
      const h = await signedInExpired();
      const run = await svc(h, ['account', 'balance', '--json'], { SVC_TEST_SIGNAL_AT: `${step}:SIGINT` });
      expect(run.code, run.stderr).toBe(130);
      expect(run.stderr).toContain('svc: stopping once the new sign-in is stored (at most 5 s)');
      expect(await stateOf(h)).toEqual(SIGNED_IN);
      const next = await svc(h, ['account', 'balance', '--json']);
      expect(next.code, next.stderr).toBe(0);
    },
  );

  it('SIGTERM at answered: the new pair is stored first, said, then the signal ends svc; the next command works', async () => {
    const h = await signedInExpired();
    const run = await svc(h, ['account', 'balance', '--json'], { SVC_TEST_SIGNAL_AT: 'answered:SIGTERM' });
    expect(run.signal, run.stderr).toBe('SIGTERM');
    expect(run.stderr).toContain('svc: stopping once the new sign-in is stored (at most 5 s)');
    expect(await stateOf(h)).toEqual(SIGNED_IN);
    const next = await svc(h, ['account', 'balance', '--json']);
    expect(next.code, next.stderr).toBe(0);
  });

  it.each(['secret-written', 'config-written@2'])('SIGKILL at %s (the new pair stored): the next command works with it', async (step) => {
    const h = await signedInExpired();
    const run = await svc(h, ['account', 'balance', '--json'], { SVC_TEST_SIGNAL_AT: `${step}:SIGKILL` });
    expect(run.signal).toBe('SIGKILL');
    const next = await svc(h, ['account', 'balance', '--json']);
    expect(next.code, next.stderr).toBe(0);
    expect(await stateOf(h)).toEqual(SIGNED_IN);
  });

  it('SIGKILL at answered (the pair only in memory, the old one spent): the next command says the refresh was interrupted, exit 3', async () => {
    const h = await signedInExpired();
    const run = await svc(h, ['account', 'balance', '--json'], { SVC_TEST_SIGNAL_AT: 'answered:SIGKILL' });
    expect(run.signal).toBe('SIGKILL');
    const next = await svc(h, ['account', 'balance']);
    expect(next.code, next.stderr).toBe(3);
    expect(next.stderr).toContain('the last refresh of profile "default" was interrupted before its new tokens were stored');
  });
});

describe('a logout killed at each step', SPAWNS, () => {
  it.each(['locked', 'revoked', 'secret-deleted'])(
    'SIGKILL at %s: the next command says the logout was cut short, and the next logout finishes it',
    async (step) => {
      const h = newHome();
      expect((await svc(h, ['login'])).code).toBe(0);
      const logout = await svc(h, ['logout', '--yes'], { SVC_TEST_SIGNAL_AT: `${step}:SIGKILL` });
      expect(logout.signal).toBe('SIGKILL');
      const next = await svc(h, ['account', 'balance']);
      if (step === 'locked') {
        // Killed before it marked anything: still signed in, whole.
        expect(next.code, next.stderr).toBe(0);
        expect(await stateOf(h)).toEqual(SIGNED_IN);
      } else {
        expect(next.code).toBe(3);
        expect(next.stderr).toMatch(/the logout of profile "default" .*started at \S+ was cut short/);
        expect(next.stderr).toContain('run `svc logout` to finish it');
      }
      const again = await svc(h, ['logout', '--yes']);
      expect(again.code, again.stderr).toBe(0);
      if (step === 'secret-deleted')
        expect(again.stderr).toMatch(/Finished the logout of profile "default" .*cut short at \S+: the connection had been revoked/);
      expect(await stateOf(h)).toEqual(SIGNED_OUT);
    },
  );

  it('SIGKILL at config-written: logged out whole; the next command says there is no sign-in', async () => {
    const h = newHome();
    expect((await svc(h, ['login'])).code).toBe(0);
    const logout = await svc(h, ['logout', '--yes'], { SVC_TEST_SIGNAL_AT: 'config-written:SIGKILL' });
    expect(logout.signal).toBe('SIGKILL');
    expect(await stateOf(h)).toEqual(SIGNED_OUT);
    const next = await svc(h, ['account', 'balance']);
    expect(next.code).toBe(3);
  });
});

describe('logout against a first login in progress', SPAWNS, () => {
  it('waits for the login (which then completes), then logs it out: exit 0 both, signed out whole', async () => {
    const h = newHome();
    // A browser that only records the address: the test plays the admin once the logout waits.
    const opened = join(h.home, '..', 'opened');
    writeFileSync(h.browser, `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`, { mode: 0o755 });
    const login = svc(h, ['login']);
    // (Until the login opened its browser: the test's own timeout bounds it, not a count of tries.)
    while (!existsSync(opened)) await new Promise((r) => setTimeout(r, 25));
    const [command, argv] = svcCommand(['logout', '--yes']);
    const logout = spawn(command, argv, { env: envOf(h, {}), stdio: ['ignore', 'pipe', 'pipe'] });
    let said = '';
    const ended = new Promise<number | null>((resolve) => logout.on('close', resolve));
    await new Promise<void>((resolve) =>
      logout.stderr.on('data', (chunk: Buffer) => {
        said += chunk.toString();
        if (said.includes('Waiting for the sign-in of profile "default" under way to finish')) resolve();
      }),
    );
    await emu().plane.approve({ email: emu().seed.admin.email, org_id: emu().seed.org_id });
    const page = await fetch(readFileSync(opened, 'utf8'), { redirect: 'manual' });
    await fetch(new URL(page.headers.get('location')!, page.url));
    const signedIn = await login;
    expect(signedIn.code, signedIn.stderr).toBe(0);
    expect(await ended, said).toBe(0);
    expect(said).toContain('Logged out of profile "default"');
    expect(await stateOf(h)).toEqual(SIGNED_OUT);
  });
});
