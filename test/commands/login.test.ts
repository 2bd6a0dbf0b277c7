// `svc login`: its behaviour against the emulator, then its parse rules (apart from running).
// `svc login` end to end against the emulator over real HTTP, with a scripted browser.
import { createServer } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestEmulator, useTestEmulator } from '../helpers/emulator.js';
import { DiskFullError, MemorySecretStore } from '../../src/credentials/store.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { authorizeRedirect, controlPlane, envFor, runWithPaste, scriptedBrowser } from '../auth/support.js';
import { randomBytes } from 'node:crypto';
import { execute } from '../../src/main.js';
import type { Runtime } from '../../src/cli/context.js';
import { parsing } from '../helpers/parse.js';

const emu = useTestEmulator({ resetEach: true });
/** The file's emulator, reset to the seed before each test. */
const emulator = () => emu().emulator;

function storedOAuth(secrets: MemorySecretStore, profile = 'default') {
  const text = secrets.secrets.get(`${profile}:oauth`);
  return text === undefined ? undefined : (JSON.parse(text) as Record<string, unknown>);
}

/** The apps connected to an organization, as its admin would see them. */
async function connections(org: string): Promise<unknown[]> {
  return (await controlPlane(emulator()).connections(org)).data;
}

/** A clock whose waits never end: a command that waited out its timeout would hang the test. */
function neverSleeps() {
  return { now: () => Date.now(), sleep: () => new Promise<void>(() => {}) };
}

describe('svc login', () => {
  it('runs the whole flow: PKCE and state on the authorize URL, tokens stored as one entry, org named', async () => {
    const secrets = new MemorySecretStore();
    const configDir = tempConfigDir();
    const browser = scriptedBrowser(emulator());
    const result = await runCli(['login', '--scopes', 'calls:read,account:read'], { env: envFor(emulator()), browser, secrets, configDir });
    expect(result.stderr).not.toMatch(/^error/m);
    expect(result.exitCode).toBe(0);
    // Told up front: an error page in the browser never reaches svc.
    expect(result.stderr).toContain('If the browser shows an error instead of the sign-in page, press Ctrl-C');

    const authorize = new URL(browser.opened[0]!);
    expect(authorize.pathname).toBe('/oauth/authorize');
    expect(authorize.searchParams.get('client_id')).toBe('svc_app_cli');
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorize.searchParams.get('state')).toBeTruthy();
    expect(authorize.searchParams.get('scope')).toBe('calls:read account:read');
    expect(authorize.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);

    expect(result.stdout).toContain('Acme');
    expect(result.stdout).toContain('default');
    expect(result.stdout).toContain('calls:read');

    const stored = storedOAuth(secrets)!;
    expect(stored.org_id).toBe(emulator().seed.org_id);
    expect(String(stored.access_token)).toMatch(/^svc_oat_/);
    expect(String(stored.refresh_token)).toMatch(/^svc_ort_/);
    expect(stored.scope).toBe('calls:read account:read');
    expect(stored.client_id).toBe('svc_app_cli');
    expect(stored.expires_at).toBeGreaterThan(Date.now() + 3500_000);
    // Never a token on either stream.
    expect(result.stdout + result.stderr).not.toMatch(/svc_o(at|rt)_/);

    const config = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'));
    expect(config.profiles.default).toMatchObject({
      base_url: emulator().url,
      org_id: emulator().seed.org_id,
      org_name: 'Acme',
      oauth: { client_id: 'svc_app_cli', scopes: ['calls:read', 'account:read'], expires_at: stored.expires_at },
    });
    expect(JSON.stringify(config)).not.toMatch(/svc_o(at|rt)_/);
  });

  it('--json answers the organization, profile and scopes without any token', async () => {
    const result = await runCli(['login', '--json', '--profile', 'ops'], { env: envFor(emulator()), browser: scriptedBrowser(emulator()) });
    expect(result.exitCode).toBe(0);
    const json = JSON.parse(result.stdout);
    expect(json).toMatchObject({ profile: 'ops', org_id: emulator().seed.org_id, org_name: 'Acme', base_url: emulator().url });
    expect(json.scopes).toContain('account:read');
    expect(result.stdout).not.toMatch(/svc_o(at|rt)_/);
  });

  it('without account:read, still signs in, naming the org by id only', async () => {
    const result = await runCli(['login', '--scopes', 'calls:read', '--json'], { env: envFor(emulator()), browser: scriptedBrowser(emulator()) });
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ org_id: emulator().seed.org_id, org_name: null, scopes: ['calls:read'] });
    expect(result.stderr).not.toMatch(/warning/);
  });

  it('--debug shows the OAuth requests with every secret redacted', async () => {
    const result = await runCli(['login', '--debug'], { env: envFor(emulator()), browser: scriptedBrowser(emulator()) });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain('/oauth2/token');
    expect(result.stderr).not.toMatch(/svc_o(at|rt)_[A-Za-z0-9_-]{8,}/);
    expect(result.stderr).not.toMatch(/code_verifier=[A-Za-z0-9_-]{20,}/);
  });

  it('exits 3 when the admin refuses', async () => {
    const secrets = new MemorySecretStore();
    const result = await runCli(['login'], { env: envFor(emulator()), browser: scriptedBrowser(emulator(), { decision: 'deny' }), secrets });
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toMatch(/the admin refused/);
    expect(storedOAuth(secrets)).toBeUndefined();
  });

  it('ignores a callback with the wrong state (400) and keeps waiting for the right one', async () => {
    let wrongStatus = 0;
    const browser = scriptedBrowser(emulator(), {
      beforeCallback: async (callback) => {
        const forged = new URL(callback);
        forged.searchParams.set('state', 'forged');
        wrongStatus = (await fetch(forged)).status;
      },
    });
    const result = await runCli(['login'], { env: envFor(emulator()), browser });
    expect(wrongStatus).toBe(400);
    expect(result.exitCode).toBe(0);
  });

  it("exits 3 when the code is exchanged after it expired, saying the service's code expired without claiming how long it lasts", async () => {
    const secrets = new MemorySecretStore();
    const browser = scriptedBrowser(emulator(), {
      beforeCallback: () => controlPlane(emulator()).advanceClock(601),
    });
    const result = await runCli(['login'], { env: envFor(emulator()), browser, secrets });
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toMatch(/invalid_grant/);
    expect(result.stderr).toContain("the service's code expired before svc exchanged it");
    expect(result.stderr).not.toMatch(/10 minutes/);
    expect(storedOAuth(secrets)).toBeUndefined();
  });

  it('exits 2 naming --port when the port is in use', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const result = await runCli(['login', '--port', String(port)], { env: envFor(emulator()), browser: scriptedBrowser(emulator()) });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain(`port ${port}`);
      expect(result.stderr).toContain('--port');
    } finally {
      blocker.close();
    }
  });

  it('uses the port asked for', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const browser = scriptedBrowser(emulator());
    const result = await runCli(['login', '--port', String(port)], { env: envFor(emulator()), browser });
    expect(result.exitCode).toBe(0);
    expect(new URL(browser.opened[0]!).searchParams.get('redirect_uri')).toBe(`http://127.0.0.1:${port}/callback`);
  });

  it('gives up after --timeout with exit 3, and Ctrl-C exits 130', async () => {
    const idle = { open: async () => {} };
    const timedOut = await runCli(['login', '--timeout', '1s'], { env: envFor(emulator()), browser: idle });
    expect(timedOut.exitCode).toBe(3);
    expect(timedOut.stderr).toMatch(/within 1 s/);

    const controller = new AbortController();
    const interrupted = await runCli(['login'], {
      env: envFor(emulator()),
      // Ctrl-C once the browser was opened: the login is waiting for the redirect.
      browser: { open: async () => controller.abort() },
      signal: controller.signal,
    });
    expect(interrupted.exitCode).toBe(130);
  });

  it('without a browser prints the URL on stderr and accepts the redirect pasted on stdin', async () => {
    let pasted = false;
    const secrets = new MemorySecretStore();
    const result = await runWithPaste(['login', '--no-browser'], {
      env: { SVC_BASE_URL: emulator().url },
      secrets,
      stdinTty: true,
      watch: (stderr, type) => {
        const url = stderr.match(/https?:\/\/\S+\/oauth\/authorize\?\S+/)?.[0];
        if (!url || pasted) return;
        pasted = true;
        // The browser is "on another machine": it never reaches the loopback server.
        void controlPlane(emulator())
          .approve({ email: emulator().seed.admin.email, org_id: emulator().seed.org_id })
          .then(() => authorizeRedirect(url))
          .then((callback) => {
            type('not a url at all');
            type(callback.href);
          });
      },
    });
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toMatch(/paste/i);
    expect(result.stderr).toMatch(/not the redirect of this sign-in/);
    expect(storedOAuth(secrets)?.org_id).toBe(emulator().seed.org_id);
  });

  it('on a terminal, a pasted redirect is accepted even when the opener said it worked but no browser came', async () => {
    let pasted = false;
    const opened: string[] = [];
    const secrets = new MemorySecretStore();
    const result = await runWithPaste(['login'], {
      env: envFor(emulator()),
      secrets,
      stdinTty: true,
      // xdg-open spawned fine, then failed on its own: nothing ever reaches the loopback server.
      browser: { open: async (url) => void opened.push(url) },
      watch: (stderr, type) => {
        const url = stderr.match(/https?:\/\/\S+\/oauth\/authorize\?\S+/)?.[0];
        if (!url || pasted || !/paste/.test(stderr)) return;
        pasted = true;
        void controlPlane(emulator())
          .approve({ email: emulator().seed.admin.email, org_id: emulator().seed.org_id })
          .then(() => authorizeRedirect(url))
          .then((callback) => type(callback.href));
      },
    });
    expect(opened).toHaveLength(1);
    expect(result.stderr).not.toMatch(/^error/m);
    expect(result.exitCode).toBe(0);
    expect(storedOAuth(secrets)?.org_id).toBe(emulator().seed.org_id);
  });

  it('the timeout error points at --no-browser', async () => {
    const result = await runCli(['login', '--timeout', '1s'], { env: envFor(emulator()), browser: { open: async () => {} } });
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain('no sign-in arrived within 1 s');
    expect(result.stderr).toContain('--no-browser');
  });

  it('treats an SSH session or a missing display as no browser', async () => {
    const opened: string[] = [];
    const result = await runCli(['login', '--timeout', '1s'], {
      env: { SVC_BASE_URL: emulator().url, DISPLAY: ':0', SSH_CONNECTION: '10.0.0.1 22 10.0.0.2 22' },
      browser: { open: async (url) => void opened.push(url) },
      tty: true,
    });
    expect(opened).toEqual([]);
    expect(result.stderr).toMatch(/SSH session/);
    expect(result.stderr).toMatch(/\/oauth\/authorize\?/);
    expect(result.exitCode).toBe(3);
  });

  it('with nothing that can complete it (no browser, stdin ended) fails at once, pointing to a key (issue 44)', async () => {
    // A clock whose waits never end: waiting out the 5-minute timeout would hang the test.
    const places: Record<string, string>[] = [
      { SVC_BASE_URL: emulator().url },
      { SVC_BASE_URL: emulator().url, DISPLAY: ':0', SSH_CONNECTION: '10.0.0.1 22 10.0.0.2 22' },
      // A browser that cannot be opened, found out only by trying.
      { SVC_BASE_URL: emulator().url, DISPLAY: ':0' },
    ];
    for (const env of places) {
      const result = await runCli(['login'], { env, clock: neverSleeps() });
      expect(result.exitCode, result.stderr).toBe(2);
      expect(result.stderr).toContain('svc login cannot complete here');
      expect(result.stderr).toContain('stdin ended without');
      expect(result.stderr).toContain('SVC_API_KEY');
      expect(result.stderr).toContain('svc keys add --stdin');
    }
    expect(await connections(emulator().seed.org_id)).toEqual([]);
  });

  it('storing the sign-in fails after the browser step (a full disk): the tokens just issued are revoked at the service', async () => {
    const full = new MemorySecretStore();
    full.set = async () => {
      throw new DiskFullError('cannot write credentials.json: the disk is full', '/nowhere/credentials.json', 'free space on the disk');
    };
    const browser = scriptedBrowser(emulator());
    const result = await runCli(['login'], { env: envFor(emulator()), browser, secrets: full });
    expect(browser.opened).toHaveLength(1);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('the disk is full');
    expect(result.stderr).toContain('The new sign-in was revoked at the service');
    expect(await connections(emulator().seed.org_id)).toEqual([]);
  });

  it('login --test is refused: a sign-in is always live', async () => {
    const result = await runCli(['login', '--test'], { env: { SVC_BASE_URL: 'http://127.0.0.1:9' }, browser: scriptedBrowser(emulator()) });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('always live');
    expect(result.stderr).toContain('svc keys add');
  });

  it('uses a BROWSER set explicitly even without a display; without BROWSER no display means no browser', async () => {
    const browser = scriptedBrowser(emulator());
    const signedIn = await runCli(['login'], { env: { SVC_BASE_URL: emulator().url, BROWSER: 'w3m' }, browser });
    expect(signedIn.exitCode, signedIn.stderr).toBe(0);
    expect(browser.opened).toHaveLength(1);

    const opened: string[] = [];
    const none = await runCli(['login', '--timeout', '1s'], {
      env: { SVC_BASE_URL: emulator().url },
      browser: { open: async (url) => void opened.push(url) },
      tty: true,
    });
    expect(opened).toEqual([]);
    expect(none.stderr).toMatch(/neither DISPLAY nor WAYLAND_DISPLAY is set/);
    expect(none.exitCode).toBe(3);
  });

  it('asks before moving a profile to another organization: without a terminal it fails naming --yes', async () => {
    const secrets = new MemorySecretStore();
    const configDir = tempConfigDir();
    expect((await runCli(['login'], { env: envFor(emulator()), browser: scriptedBrowser(emulator()), secrets, configDir })).exitCode).toBe(0);

    const other = await controlPlane(emulator()).createOrg('Globex');
    const otherOrg = other.id;
    const choice = { email: other.admin.email, org_id: otherOrg };
    const refused = await runCli(['login'], { env: envFor(emulator()), browser: scriptedBrowser(emulator(), choice), secrets, configDir });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('--yes');
    expect(storedOAuth(secrets)?.org_id).toBe(emulator().seed.org_id);
    // The code was exchanged, but the refused connection was revoked: nothing stays connected to Globex.
    expect(await connections(otherOrg)).toEqual([]);
    expect(await connections(emulator().seed.org_id)).toHaveLength(1);

    // Keys of the old organization go with --yes, and the user is told which.
    const { key: testKey } = await controlPlane(emulator()).createKey(emulator().seed.org_id, 'test');
    expect((await runCli(['keys', 'add', '--name', 'ci'], { env: envFor(emulator()), secrets, configDir, stdin: testKey })).exitCode).toBe(0);
    const moved = await runCli(['login', '--yes', '--json'], { env: envFor(emulator()), browser: scriptedBrowser(emulator(), choice), secrets, configDir });
    expect(moved.exitCode).toBe(0);
    expect(moved.stderr).toMatch(/API keys of Acme were removed: test key "ci" \(svc_test_…/);
    expect(moved.stderr).toContain(testKey.slice(-4));
    const json = JSON.parse(moved.stdout);
    expect(json.org_name).toBe('Globex');
    expect(json.removed_keys).toEqual([{ name: 'ci', mode: 'test', redacted: `svc_test_…${testKey.slice(-4)}` }]);
    expect(storedOAuth(secrets)?.org_id).toBe(otherOrg);
    expect(secrets.secrets.has('default:ci')).toBe(false);
    // An ordinary login reports no removed keys.
    const plainLogin = await runCli(['login', '--json'], { env: envFor(emulator()), browser: scriptedBrowser(emulator(), choice), secrets, configDir });
    expect(JSON.parse(plainLogin.stdout).removed_keys).toEqual([]);
  });

  it('a move to another organization keeps the mode the profile was set to (a sign-in never switches it)', async () => {
    const secrets = new MemorySecretStore();
    const configDir = tempConfigDir();
    expect((await runCli(['keys', 'add', '--name', 'ci'], { env: envFor(emulator()), secrets, configDir, stdin: emulator().seed.keys.test })).exitCode).toBe(0);
    expect((await runCli(['mode', 'test'], { env: envFor(emulator()), secrets, configDir })).exitCode).toBe(0);
    const other = await controlPlane(emulator()).createOrg('Globex');
    const choice = { email: other.admin.email, org_id: other.id };
    const moved = await runCli(['login', '--yes'], { env: envFor(emulator()), browser: scriptedBrowser(emulator(), choice), secrets, configDir });
    expect(moved.exitCode, moved.stderr).toBe(0);
    const profile = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles.default;
    expect(profile.org_id).toBe(other.id);
    expect(profile.mode).toBe('test');
    expect(profile.mode_implied).toBeUndefined();
    // Test mode with no test key left: it says so and stops, rather than running live.
    const account = await runCli(['account'], { env: { SVC_BASE_URL: emulator().url }, secrets, configDir });
    expect(account.exitCode).toBe(3);
    expect(account.stderr).toContain('--live');
  });

  it('on a terminal, asks before moving the profile; declining stores nothing', async () => {
    const secrets = new MemorySecretStore();
    const configDir = tempConfigDir();
    expect((await runCli(['login'], { env: envFor(emulator()), browser: scriptedBrowser(emulator()), secrets, configDir })).exitCode).toBe(0);
    const other = await controlPlane(emulator()).createOrg('Initech');
    const choice = { email: other.admin.email, org_id: other.id };
    const asked: string[] = [];
    const prompter = (answer: boolean) => ({
      password: async () => '',
      confirm: async (message: string) => (asked.push(message), answer),
    });

    const declined = await runCli(['login'], {
      env: envFor(emulator()),
      browser: scriptedBrowser(emulator(), choice),
      secrets,
      configDir,
      tty: true,
      columns: 80,
      prompter: prompter(false),
    });
    // At 80 columns the sentence before the question goes above it, so (y/N) stays on the question's line.
    expect(asked[0]).toBe('Move the profile to it (its API keys are removed)?');
    // (wrapped at the terminal's width: words compared, not line breaks)
    expect(declined.stderr.replace(/\n +/g, ' ')).toMatch(
      new RegExp(`profile "default" belongs to Acme \\(${emulator().seed.org_id}\\); this sign-in is for ${other.id}\\.\\n`),
    );
    expect(declined.exitCode).toBe(1);
    expect(declined.stderr).toMatch(/nothing was stored/);
    expect(storedOAuth(secrets)?.org_id).toBe(emulator().seed.org_id);
    expect(await connections(other.id)).toEqual([]);

    const accepted = await runCli(['login'], {
      env: envFor(emulator()),
      browser: scriptedBrowser(emulator(), choice),
      secrets,
      configDir,
      tty: true,
      prompter: prompter(true),
    });
    expect(accepted.exitCode).toBe(0);
    expect(storedOAuth(secrets)?.org_id).toBe(other.id);
    const config = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'));
    expect(config.profiles.default).toMatchObject({ org_id: other.id, org_name: 'Initech' });
  });

  it('exits 9 when the service cannot be reached, before any browser opens', async () => {
    const closed = await startTestEmulator();
    await closed.close();
    const browser = scriptedBrowser(emulator());
    const result = await runCli(['login'], { env: envFor(closed), browser });
    expect(result.exitCode).toBe(9);
    // The words every command uses (issue 32), not Node's `connect ECONNREFUSED`.
    expect(result.stderr).toContain(': nothing answered there (connection refused); nothing was sent');
    expect(result.stderr).toContain('start it with `svc emulator`');
    expect(result.stderr).not.toContain('ECONNREFUSED');
    expect(browser.opened).toEqual([]);
  });

  it('refuses bad flags before doing anything', async () => {
    for (const argv of [
      ['login', '--scopes', 'calls:read,everything'],
      ['login', '--port', '70000'],
      ['login', '--timeout', 'soon'],
      ['login', '--client-id', 'abc'],
    ]) {
      const result = await runCli(argv, { env: envFor(emulator()), browser: scriptedBrowser(emulator()) });
      expect(result.exitCode, argv.join(' ')).toBe(2);
    }
  });
});

// `svc login` on a terminal also reads stdin for a pasted redirect. Whatever ends the login
// (the browser's callback, a refusal, the timeout) must end that read too: a read left
// pending keeps the process alive until Enter (test/real/terminal.test.ts shows it at a
// real terminal). Here stdin is a terminal whose read returns only when its signal aborts.
describe('svc login and the pasted redirect', () => {
  const testEmulator = useTestEmulator();
  const emulator = () => testEmulator().emulator;

  interface Ran {
    exitCode: number;
    stderr: string;
    /** The signal each stdin read was given (undefined: nothing could end it). */
    reads: Array<AbortSignal | undefined>;
  }

  async function login(argv: string[], browser: Runtime['browser'], clock?: Runtime['clock']): Promise<Ran> {
    const configDir = tempConfigDir();
    const reads: Array<AbortSignal | undefined> = [];
    let stderr = '';
    const runtime: Runtime = {
      env: { HOME: configDir, SVC_CONFIG_DIR: configDir, ...envFor(emulator()) },
      stdout: { write: () => {}, isTTY: true },
      stderr: { write: (chunk) => void (stderr += chunk), isTTY: true },
      stdin: {
        isTTY: true,
        readAll: async () => '',
        // A terminal nobody types at: the read ends only through its signal.
        async *lines(signal) {
          reads.push(signal);
          await new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
        },
      },
      clock: clock ?? {
        now: () => Date.now(),
        sleep: (ms, signal) =>
          new Promise<void>((resolve, reject) => {
            const timer = setTimeout(resolve, ms);
            signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
          }),
      },
      random: { bytes: (n) => new Uint8Array(randomBytes(n)) },
      browser,
      signal: new AbortController().signal,
      secrets: new MemorySecretStore(),
    };
    const exitCode = await execute(argv, runtime);
    return { exitCode, stderr, reads };
  }

  function expectReadsEnded(ran: Ran): void {
    expect(ran.reads.length).toBeGreaterThan(0);
    for (const signal of ran.reads) expect(signal?.aborted).toBe(true);
  }

  describe('svc login ends the pending read of a pasted redirect', () => {
    it('after signing in through the browser', async () => {
      const ran = await login(['login'], scriptedBrowser(emulator()));
      expect(ran.exitCode).toBe(0);
      expectReadsEnded(ran);
    });

    it('after a refusal (access_denied)', async () => {
      const ran = await login(['login'], scriptedBrowser(emulator(), { decision: 'deny' }));
      expect(ran.exitCode).toBe(3);
      expectReadsEnded(ran);
    });

    it('after --timeout expires (an injected clock: the wait passes at once)', async () => {
      const clock: Runtime['clock'] = { now: () => Date.now(), sleep: async () => {} };
      const ran = await login(['login', '--no-browser', '--timeout', '5m'], { open: async () => {} }, clock);
      expect(ran.exitCode).toBe(3);
      expect(ran.stderr).toContain('no sign-in arrived within 5 min');
      expectReadsEnded(ran);
    });
  });
});

const { ok, refused } = parsing('login');

describe('svc login: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('login')).toEqual({ browser: true, timeoutSeconds: 300 });
    expect(await ok('login', '--no-browser', '--scopes', 'calls:read,calls:read', '--port', '8123', '--timeout', '90s', '--client-id', 'svc_app_acme')).toEqual(
      {
        browser: false,
        scopes: ['calls:read'],
        port: 8123,
        timeoutSeconds: 90,
        clientId: 'svc_app_acme',
      },
    );
    expect(await refused('login', '--scopes', 'calls:fly')).toContain('unknown scope "calls:fly"');
    expect(await refused('login', '--port', '70000')).toContain('--port "70000" must be a whole number from 1 to 65535');
    expect(await refused('login', '--timeout', 'soon')).toContain('--timeout');
    expect(await refused('login', '--browser')).toContain("unknown option '--browser'");
  });
});
