// Origin binding (docs/design.md "Credentials"): a stored key or OAuth token goes only to the
// origin of the profile it belongs to. A recorder server plays the "unrelated local server"
// and must never see a stored secret.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { useTestEmulator } from '../helpers/emulator.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { canonicalBaseUrl, sameOrigin } from '../../src/credentials/origin.js';
import { validateMetadata } from '../../src/auth/discovery.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { control, envFor, scriptedBrowser } from '../auth/support.js';
import type { Prompter } from '../../src/io/interactive.js';

interface Recorder {
  url: string;
  requests: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: string }>;
  /** The metadata document it serves, when a test makes it pose as an authorization server. */
  metadata?: Record<string, unknown>;
  close(): Promise<void>;
}

/** A server that records everything and answers 200 `{}` (or its metadata). */
async function recorder(): Promise<Recorder> {
  const rec: Recorder = { url: '', requests: [], close: async () => {} };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      rec.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(req.url?.startsWith('/.well-known/') && rec.metadata ? rec.metadata : {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  rec.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  rec.close = () => new Promise((resolve) => server.close(() => resolve()));
  return rec;
}

/** Every svc secret the recorder saw, in any header or body. */
function secretsSeen(rec: Recorder): string[] {
  return rec.requests.flatMap((r) => `${JSON.stringify(r.headers)} ${r.body}`.match(/svc_(?:test|live|oat|ort)_[A-Za-z0-9]+/g) ?? []);
}

const firstEmulator = useTestEmulator({ resetEach: true });
const otherEmulator = useTestEmulator({ resetEach: true });
const emulator = () => firstEmulator().emulator;
const other = () => otherEmulator().emulator;
let foreign: Recorder;
beforeAll(async () => {
  foreign = await recorder();
});
afterAll(async () => {
  await foreign.close();
});
beforeEach(() => {
  foreign.requests.length = 0;
});

/** A config dir with profile "default" bound to `emulator`, holding its test key. */
async function withTestKey(secrets = new MemorySecretStore(), configDir = tempConfigDir(), profile = 'default', at = emulator()) {
  const added = await runCli(['keys', 'add', '--stdin', '--profile', profile], { env: { SVC_BASE_URL: at.url }, stdin: at.seed.keys.test, secrets, configDir });
  expect(added.exitCode, added.stderr).toBe(0);
  return { secrets, configDir };
}

async function withLogin(secrets = new MemorySecretStore(), configDir = tempConfigDir(), profile = 'default', at = emulator()) {
  const login = await runCli(['login', '--profile', profile], { env: envFor(at), browser: scriptedBrowser(at), secrets, configDir });
  expect(login.exitCode, login.stderr).toBe(0);
  return { secrets, configDir };
}

describe("a stored credential goes only to its profile's origin", () => {
  it('--base-url naming another server: exit 2 naming both addresses and the fixes; the key is never sent', async () => {
    const { secrets, configDir } = await withTestKey();
    const r = await runCli(['calls', 'list', '--base-url', foreign.url], { secrets, configDir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(`profile "default" is bound to ${emulator().url}`);
    expect(r.stderr).toContain(`--base-url names ${foreign.url}`);
    expect(r.stderr).toMatch(/--profile|svc login --base-url/);
    expect(r.stderr).toContain('SVC_API_KEY');
    expect(foreign.requests).toEqual([]);
  });

  it('SVC_BASE_URL naming another server: the OAuth token is neither used nor refreshed there', async () => {
    const { secrets, configDir } = await withLogin();
    for (const args of [
      ['account', '--live'],
      ['auth', 'token'],
    ]) {
      const r = await runCli(args, { env: { SVC_BASE_URL: foreign.url }, secrets, configDir });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr).toContain(`SVC_BASE_URL names ${foreign.url}`);
      expect(r.stdout).not.toMatch(/svc_oat_/);
    }
    expect(secretsSeen(foreign)).toEqual([]);
  });

  it('an explicit --profile bound elsewhere is refused, even when another profile is bound to that address', async () => {
    const { secrets, configDir } = await withTestKey();
    await withTestKey(secrets, configDir, 'second', other());
    const r = await runCli(['calls', 'list', '--profile', 'default', '--base-url', other().url], { secrets, configDir });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('choose one of the profiles of');
    expect(r.stderr).toContain('second');
  });

  it("without --profile, the one profile bound to the address is used (as GH_HOST picks that host's token)", async () => {
    const { secrets, configDir } = await withTestKey();
    await withTestKey(secrets, configDir, 'second', other());
    const r = await runCli(['account', '--json', '--base-url', other().url], { secrets, configDir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).id).toBe(other().seed.org_id);
    // Two profiles at one address: no guess.
    await withTestKey(secrets, configDir, 'third', other());
    const ambiguous = await runCli(['account', '--base-url', other().url], { secrets, configDir });
    expect(ambiguous.exitCode).toBe(2);
    expect(ambiguous.stderr).toMatch(/second, third|third, second/);
  });

  it('SVC_API_KEY goes where the user points it', async () => {
    const { secrets, configDir } = await withTestKey();
    const r = await runCli(['api', 'GET', '/v1/account'], { env: { SVC_API_KEY: 'svc_test_pointedhere1234', SVC_BASE_URL: foreign.url }, secrets, configDir });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(secretsSeen(foreign)).toEqual(['svc_test_pointedhere1234']);
  });

  it('the same origin spelled differently is the same; localhost is not 127.0.0.1', async () => {
    const { secrets, configDir } = await withTestKey();
    const port = new URL(emulator().url).port;
    const same = await runCli(['account', '--json', '--base-url', `HTTP://127.0.0.1:${port}/`], { secrets, configDir });
    expect(same.exitCode, same.stderr).toBe(0);
    const named = await runCli(['account', '--base-url', `http://localhost:${port}`], { secrets, configDir });
    expect(named.exitCode).toBe(2);
    expect(canonicalBaseUrl('https://API.example.com:443/v1/')).toBe('https://api.example.com/v1');
    expect(sameOrigin('https://a.example', 'https://a.example:443/x')).toBe(true);
    expect(sameOrigin('http://a.example', 'https://a.example')).toBe(false);
    expect(() => canonicalBaseUrl('file:///etc/passwd')).toThrow(/http/);
  });

  it('keys add never moves a profile: a key for another address is refused before any request', async () => {
    const { secrets, configDir } = await withTestKey();
    const r = await runCli(['keys', 'add', '--stdin', '--base-url', foreign.url], { stdin: 'svc_test_foreignkey12345678', secrets, configDir });
    expect(r.exitCode).toBe(2);
    expect(foreign.requests).toEqual([]);
    const after = await runCli(['account', '--json'], { secrets, configDir });
    expect(after.exitCode, after.stderr).toBe(0);
  });

  it('login at another address moves the profile only when asked: refused without a terminal, --yes moves it and drops its old keys', async () => {
    const { secrets, configDir } = await withTestKey();
    const refused = await runCli(['login'], { env: envFor(other()), browser: scriptedBrowser(other()), secrets, configDir });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(`bound to ${emulator().url}`);
    expect(refused.stderr).toContain('--yes');
    // Asked before the browser opens: nothing happened at the other service.
    expect((await control<{ tokens_issued: number }>(other(), 'GET', '/_emulator/stats')).tokens_issued).toBe(0);

    const declined: Prompter = { password: async () => '', confirm: async () => false };
    const no = await runCli(['login'], { env: envFor(other()), browser: scriptedBrowser(other()), secrets, configDir, tty: true, prompter: declined });
    expect(no.exitCode).toBe(1);
    expect(no.stderr).toContain('nothing was changed');

    const moved = await runCli(['login', '--yes'], { env: envFor(other()), browser: scriptedBrowser(other()), secrets, configDir });
    expect(moved.exitCode, moved.stderr).toBe(0);
    expect(moved.stderr).toMatch(/API keys .* were removed/);
    expect(secrets.secrets.has('default:test')).toBe(false);
    const status = await runCli(['auth', 'status', '--json'], { secrets, configDir });
    expect(JSON.parse(status.stdout).profiles.find((p: { name: string }) => p.name === 'default').base_url).toBe(other().url);
  });

  it('discovery: a token or revocation endpoint on another origin than the issuer is refused, and login sends nothing there', async () => {
    const base = {
      issuer: 'http://127.0.0.1:4010',
      authorization_endpoint: 'http://auth.example/oauth/authorize',
      token_endpoint: 'http://127.0.0.1:4010/oauth2/token',
      revocation_endpoint: 'http://127.0.0.1:4010/oauth2/revoke',
      // A sign-in page on another origin needs RFC 9207's iss (test/auth/tokens.test.ts): not what this test is about.
      authorization_response_iss_parameter_supported: true,
    };
    expect(validateMetadata(base, 'http://127.0.0.1:4010').token_endpoint).toBe(base.token_endpoint);
    expect(() => validateMetadata({ ...base, token_endpoint: 'http://127.0.0.1:9/oauth2/token' }, 'http://127.0.0.1:4010')).toThrow(
      /token_endpoint.*another origin/,
    );
    expect(() => validateMetadata({ ...base, revocation_endpoint: 'https://evil.example/revoke' }, 'http://127.0.0.1:4010')).toThrow(
      /revocation_endpoint.*another origin/,
    );

    // A server that names itself the issuer but sends the code exchange elsewhere.
    const poser = await recorder();
    try {
      poser.metadata = {
        ...base,
        issuer: poser.url,
        authorization_endpoint: `${emulator().url}/oauth/authorize`,
        token_endpoint: `${foreign.url}/oauth2/token`,
      };
      const r = await runCli(['login'], { env: envFor(emulator(), { SVC_BASE_URL: poser.url }), browser: scriptedBrowser(emulator()) });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain('another origin');
      expect(foreign.requests).toEqual([]);
    } finally {
      await poser.close();
    }
  });

  it('a stored entry whose token or revocation endpoint is on another origin: nothing is sent there', async () => {
    const { secrets, configDir } = await withLogin();
    const entry = JSON.parse(secrets.secrets.get('default:oauth')!) as Record<string, unknown>;
    secrets.secrets.set(
      'default:oauth',
      JSON.stringify({ ...entry, expires_at: 0, token_endpoint: `${foreign.url}/oauth2/token`, revocation_endpoint: `${foreign.url}/oauth2/revoke` }),
    );
    const refresh = await runCli(['account', '--live'], { secrets, configDir });
    expect(refresh.exitCode).toBe(3);
    expect(refresh.stderr).toContain('token endpoint on');
    const logout = await runCli(['logout'], { secrets, configDir });
    expect(logout.stderr).toContain('the token was not sent');
    expect(logout.exitCode).toBe(1);
    expect(secrets.secrets.has('default:oauth')).toBe(true);
    expect(foreign.requests).toEqual([]);
  });
});

describe('logout of one profile of a shared connection', () => {
  it('names the other profiles it ends; asks on a terminal, needs --yes otherwise', async () => {
    const secrets = new MemorySecretStore();
    const configDir = tempConfigDir();
    await withLogin(secrets, configDir, 'default');
    await withLogin(secrets, configDir, 'ops');

    const refused = await runCli(['logout'], { secrets, configDir });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('also ends the sign-in of profile "ops"');
    expect(refused.stderr).toContain('--yes');
    const stillWorks = await runCli(['account', '--live', '--profile', 'ops', '--json'], { secrets, configDir });
    expect(stillWorks.exitCode, stillWorks.stderr).toBe(0);

    let asked = '';
    const declined: Prompter = { password: async () => '', confirm: async (message) => ((asked = message), false) };
    const no = await runCli(['logout'], { secrets, configDir, tty: true, prompter: declined });
    expect(no.exitCode).toBe(1);
    // Too long for one line: the sentence naming "ops" above, the question alone beside (y/N).
    // (wrapped at the terminal's width: words compared, not line breaks)
    expect(no.stderr.replace(/\n +/g, ' ')).toContain('also ends the sign-in of profile "ops" (same organization, same app).\n');
    expect(asked).toBe('Log out anyway?');

    const yes = await runCli(['logout', '--yes'], { secrets, configDir });
    expect(yes.exitCode, yes.stderr).toBe(0);
    expect(yes.stderr).toContain('"ops"');
    // --all logs out every profile: nobody else to warn about.
    const all = await runCli(['logout', '--all'], { secrets, configDir });
    expect(all.exitCode, all.stderr).toBe(0);
    expect(all.stderr).not.toContain('also ends');
  });
});
