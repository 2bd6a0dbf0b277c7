// svc login, refresh and logout against a certified authorization server nobody here wrote
// (panva's oidc-provider 9, test/auth/certified-server.ts), configured as the service's server
// would be with only `org_id` added. The emulator's suite (test/commands/login.test.ts) shares svc's reading
// of the spec; this one is the world's. Its tokens are opaque strings of oidc-provider's own
// shape, or JWTs for a resource server; its codes last 60 s; it detects refresh token reuse.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Browser, Clock } from '../../src/context.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { runWithPaste } from './support.js';
import { browse, ORG_ID, ORG_NAME, startCertifiedServer, type CertifiedOptions, type CertifiedServer } from './certified-server.js';

const ALL_SCOPES = 'calls:read calls:write sessions:read sessions:write translate events:read account:read';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function certified(options: CertifiedOptions = {}): Promise<CertifiedServer> {
  const server = await startCertifiedServer(options);
  servers.push(server);
  return server;
}

interface PersonBrowser extends Browser {
  opened: string[];
  /** Pages the browser stopped at instead of reaching svc (the server's error pages). */
  pages: { status: number; page: string }[];
  /** Where the sign-in sent the browser back to svc, with its parameters. */
  callbacks: URL[];
}

/** The person's browser: the server's pages answered as the admin, then the redirect delivered to svc's loopback. */
function personBrowser(opts: { beforeCallback?: (callback: URL) => void; onErrorPage?: () => void } = {}): PersonBrowser {
  const opened: string[] = [];
  const pages: { status: number; page: string }[] = [];
  const callbacks: URL[] = [];
  return {
    opened,
    pages,
    callbacks,
    async open(url) {
      opened.push(url);
      const redirectUri = new URL(new URL(url).searchParams.get('redirect_uri')!);
      const end = await browse(url, (next) => next.origin === redirectUri.origin);
      if (!end.stoppedAt) {
        pages.push({ status: end.status, page: end.page });
        opts.onErrorPage?.();
        return;
      }
      callbacks.push(end.stoppedAt);
      opts.beforeCallback?.(end.stoppedAt);
      await fetch(end.stoppedAt);
    },
  };
}

/** Time an hour ahead: the access token is due for refresh (the server's own clock is real). */
const hourAhead: Clock = {
  now: () => Date.now() + 3550_000,
  sleep: () => new Promise<void>(() => {}),
};

async function signedIn(server: CertifiedServer) {
  const secrets = new MemorySecretStore();
  const configDir = tempConfigDir();
  const env = { SVC_BASE_URL: server.issuer, DISPLAY: ':0' };
  const login = await runCli(['login'], { env, browser: personBrowser(), secrets, configDir });
  expect(login.stderr).not.toMatch(/^error/m);
  expect(login.exitCode).toBe(0);
  const stored = () => JSON.parse(secrets.secrets.get('default:oauth')!) as { access_token: string; refresh_token: string; scope: string };
  const run = (argv: string[], clock?: Clock) => runCli(argv, { env: { SVC_BASE_URL: server.issuer }, secrets, configDir, ...(clock ? { clock } : {}) });
  return { secrets, configDir, stored, run, login };
}

describe('svc login against a certified server', () => {
  it('signs in through the loopback: the full scope list named, its opaque tokens taken as given, org_id kept, no token shown', async () => {
    const server = await certified();
    const secrets = new MemorySecretStore();
    const browser = personBrowser();
    const r = await runCli(['login'], { env: { SVC_BASE_URL: server.issuer, DISPLAY: ':0' }, browser, secrets });
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.exitCode).toBe(0);
    // A standard server grants nothing to a request that names no scope.
    expect(new URL(browser.opened[0]!).searchParams.get('scope')).toBe(ALL_SCOPES);
    // RFC 9207: the answer named its issuer, and svc took it.
    expect(browser.callbacks[0]!.searchParams.get('iss')).toBe(server.issuer);
    const stored = JSON.parse(secrets.secrets.get('default:oauth')!);
    expect(stored).toMatchObject({
      org_id: ORG_ID,
      scope: ALL_SCOPES,
      token_endpoint: `${server.issuer}/token`,
      revocation_endpoint: `${server.issuer}/token/revocation`,
    });
    expect(stored.access_token).not.toMatch(/^svc_/);
    expect(r.stdout).toContain(ORG_NAME);
    expect(r.stdout + r.stderr).not.toContain(stored.access_token);
    expect(r.stdout + r.stderr).not.toContain(stored.refresh_token);
  });

  it('signs in by a pasted redirect (no browser here), the pasted answer checked for its issuer too', async () => {
    const server = await certified();
    const secrets = new MemorySecretStore();
    let pasted = false;
    const r = await runWithPaste(['login', '--no-browser'], {
      env: { SVC_BASE_URL: server.issuer },
      secrets,
      watch: (stderr, type) => {
        const address = /^\s+(http:\/\/\S+\/auth\?\S+)$/m.exec(stderr)?.[1];
        if (!address || pasted) return;
        pasted = true;
        const redirectUri = new URL(new URL(address).searchParams.get('redirect_uri')!);
        // The browser is on another machine: its redirect never reaches the loopback, it is copied from the address bar.
        void browse(address, (next) => next.origin === redirectUri.origin).then((end) => type(end.stoppedAt!.href));
      },
    });
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(secrets.secrets.get('default:oauth')!).org_id).toBe(ORG_ID);
  });

  it('an issuer with a path: its metadata found where RFC 8414 §3.1 puts it, with one request', async () => {
    const server = await certified({ path: '/tenant' });
    const { login } = await signedIn(server);
    expect(login.stdout).toContain(ORG_NAME);
    expect(server.seen.filter((s) => s.path.includes('.well-known')).map((s) => s.path)).toEqual(['/.well-known/oauth-authorization-server/tenant']);
  });

  it('a JWT access token (resource indicators): stored as given, never shown, also not under --debug', async () => {
    const server = await certified({ jwtAccessTokens: true });
    const secrets = new MemorySecretStore();
    const r = await runCli(['--debug', 'login'], { env: { SVC_BASE_URL: server.issuer, DISPLAY: ':0' }, browser: personBrowser(), secrets });
    expect(r.stderr).not.toMatch(/^error/m);
    expect(r.exitCode).toBe(0);
    const stored = JSON.parse(secrets.secrets.get('default:oauth')!);
    expect(stored.access_token.split('.')).toHaveLength(3);
    expect(JSON.parse(Buffer.from(stored.access_token.split('.')[1], 'base64url').toString())).toMatchObject({
      org_id: ORG_ID,
      aud: 'https://api.world.example',
    });
    expect(r.stderr).toContain(`> POST ${server.issuer}/token`);
    expect(r.stdout + r.stderr).not.toContain(stored.access_token);
    expect(r.stdout + r.stderr).not.toContain(stored.access_token.split('.')[2]);
    expect(r.stdout + r.stderr).not.toContain(stored.refresh_token);
  });
});

describe('refresh, reuse and logout against a certified server', () => {
  it('refreshes with rotation: one request, a new pair stored, the old refresh token spent', async () => {
    const server = await certified();
    const session = await signedIn(server);
    const before = session.stored();
    const tokenCalls = () => server.seen.filter((s) => s.path === '/token').length;
    const calls = tokenCalls();
    const r = await session.run(['auth', 'token'], hourAhead);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(tokenCalls()).toBe(calls + 1);
    const after = session.stored();
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(after.access_token).not.toBe(before.access_token);
    expect(r.stdout.trim()).toBe(after.access_token);
    expect(after.scope).toBe(ALL_SCOPES);
  });

  it('reuse detection: a stale copy of the pair ends the sign-in, and svc says a copy of the token may have been used', async () => {
    const server = await certified();
    const session = await signedIn(server);
    const stale = session.secrets.secrets.get('default:oauth')!;
    expect((await session.run(['auth', 'token'], hourAhead)).exitCode).toBe(0);
    const current = session.secrets.secrets.get('default:oauth')!;
    session.secrets.secrets.set('default:oauth', stale); // a backup restored, or a copy taken elsewhere
    const r = await session.run(['auth', 'token'], hourAhead);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('the connection to World Org has ended; run svc login');
    expect(r.stderr).toContain('a copy of it may have been used elsewhere');
    // The server ended the whole grant: the rotated pair is dead too.
    const rotated = JSON.parse(current) as { access_token: string; refresh_token: string };
    expect(await server.provider.AccessToken.find(rotated.access_token)).toBeUndefined();
    expect(await server.provider.RefreshToken.find(rotated.refresh_token)).toBeUndefined();
    expect(await server.grantActive(server.grants[0]!)).toBe(false);
  });

  it('a refresh whose answer a gateway lost (502): said, and the spent token is not sent again', async () => {
    const server = await certified();
    const session = await signedIn(server);
    const refreshes = () => server.seen.filter((s) => s.path === '/token').length;
    const before = refreshes();
    server.faults.badGatewayNextTokenAnswer = true;
    const r = await session.run(['auth', 'token'], hourAhead);
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toContain('the token endpoint answered 502');
    expect(r.stderr).toContain('only its answer was lost, so svc did not send the refresh token again');
    expect(refreshes()).toBe(before + 1);
    // The server did rotate: the next command learns the sign-in is lost, and why.
    const next = await session.run(['auth', 'token'], hourAhead);
    expect(next.exitCode).toBe(3);
    expect(next.stderr).toContain('the last refresh of profile "default" was interrupted before its new tokens were stored');
  });

  it('a refreshed pair svc refuses (no org_id): revoked at the server, the sign-in recorded as ended', async () => {
    const server = await certified();
    const session = await signedIn(server);
    server.faults.noOrgId = true;
    const r = await session.run(['auth', 'token'], hourAhead);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('the token endpoint answered an invalid "org_id"');
    expect(r.stderr).toContain('what it issued was revoked at the service, nothing of it stays open');
    expect(await server.grantActive(server.grants[0]!)).toBe(false);
    const status = await session.run(['auth', 'status']);
    expect(status.exitCode).toBe(3);
    expect(status.stdout).toContain('ended');
  });

  it('refreshes a JWT access token like any other: one request, a new JWT stored', async () => {
    const server = await certified({ jwtAccessTokens: true });
    const session = await signedIn(server);
    const before = session.stored();
    const r = await session.run(['auth', 'token'], hourAhead);
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    const after = session.stored();
    expect(after.access_token.split('.')).toHaveLength(3);
    expect(after.access_token).not.toBe(before.access_token);
    expect(after.refresh_token).not.toBe(before.refresh_token);
  });

  it('logout revokes at the server (RFC 7009): the grant is gone there', async () => {
    const server = await certified();
    const session = await signedIn(server);
    const { access_token } = session.stored();
    expect(await server.provider.AccessToken.find(access_token)).toBeDefined();
    const r = await session.run(['logout']);
    expect(r.exitCode).toBe(0);
    expect(server.seen.some((s) => s.method === 'POST' && s.path === '/token/revocation')).toBe(true);
    expect(await server.provider.AccessToken.find(access_token)).toBeUndefined();
    expect(await server.grantActive(server.grants[0]!)).toBe(false);
    expect(session.secrets.secrets.has('default:oauth')).toBe(false);
  });
});

describe('errors against a certified server, each with a fix that works', () => {
  it('the admin refuses: exit 3, said so', async () => {
    const server = await certified();
    server.decision = 'deny';
    const r = await runCli(['login'], { env: { SVC_BASE_URL: server.issuer, DISPLAY: ':0' }, browser: personBrowser() });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('the admin refused the sign-in (access_denied)');
  });

  it('invalid_scope names the scope, and the login its hint gives succeeds', async () => {
    const granted = ['calls:read', 'calls:write', 'sessions:read', 'sessions:write', 'events:read', 'account:read'];
    const server = await certified({ clientScopes: granted });
    const r = await runCli(['login'], { env: { SVC_BASE_URL: server.issuer, DISPLAY: ':0' }, browser: personBrowser() });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('the service refused the scope translate');
    expect(r.stderr).not.toContain('run `svc login` again');
    const hint = /svc login --scopes (\S+)/.exec(r.stderr)![1]!;
    expect(hint).toBe(granted.join(','));
    const again = await runCli(['login', '--scopes', hint], { env: { SVC_BASE_URL: server.issuer, DISPLAY: ':0' }, browser: personBrowser() });
    expect(again.exitCode).toBe(0);
  });

  it("an expired code: the service's code expired, with no claim of how long codes last", async () => {
    const server = await certified();
    const secrets = new MemorySecretStore();
    const browser = personBrowser({ beforeCallback: () => server.expireCodes() });
    const r = await runCli(['login'], { env: { SVC_BASE_URL: server.issuer, DISPLAY: ':0' }, browser, secrets });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain("the service's code expired before svc exchanged it");
    expect(r.stderr).not.toMatch(/10 minutes/);
    expect(secrets.secrets.has('default:oauth')).toBe(false);
  });

  it('an unknown client id: the server shows an error page and never redirects; svc said up front to press Ctrl-C', async () => {
    const server = await certified();
    const interrupt = new AbortController();
    const browser = personBrowser({ onErrorPage: () => interrupt.abort() });
    const r = await runCli(['login', '--client-id', 'svc_app_unknown'], {
      env: { SVC_BASE_URL: server.issuer, DISPLAY: ':0' },
      browser,
      signal: interrupt.signal,
    });
    expect(browser.pages[0]!.status).toBe(400);
    expect(browser.pages[0]!.page).toContain('invalid_client');
    expect(r.stderr).toContain('If the browser shows an error instead of the sign-in page, press Ctrl-C');
    expect(r.exitCode).toBe(130);
  });

  it('a stock token response (no org_id) is refused, and the pair it issued is revoked at once, and said', async () => {
    const server = await certified();
    server.faults.noOrgId = true;
    const secrets = new MemorySecretStore();
    const r = await runCli(['login'], { env: { SVC_BASE_URL: server.issuer, DISPLAY: ':0' }, browser: personBrowser(), secrets });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('the token endpoint answered an invalid "org_id"');
    expect(r.stderr).toContain('the sign-in it issued was revoked at the service, nothing of it stays open');
    expect(secrets.secrets.has('default:oauth')).toBe(false);
    expect(await server.grantActive(server.grants[0]!)).toBe(false);
  });

  it('Ctrl-C after the server issued the pair, before svc kept it: the pair is kept before svc exits 130, so nothing is open that nothing holds', async () => {
    const server = await certified();
    const interrupt = new AbortController();
    const secrets = new MemorySecretStore();
    const configDir = tempConfigDir();
    const r = await runCli(['login'], {
      configDir,
      env: { SVC_BASE_URL: server.issuer, DISPLAY: ':0' },
      browser: personBrowser(),
      secrets,
      signal: interrupt.signal,
      transactionSteps: async (step) => {
        if (step === 'signed-in') interrupt.abort();
      },
    });
    expect(r.exitCode).toBe(130);
    expect(secrets.secrets.has('default:oauth')).toBe(true);
    expect(await server.grantActive(server.grants[0]!)).toBe(true);
    const next = await runCli(['logout', '--yes'], { env: { SVC_BASE_URL: server.issuer }, secrets, configDir });
    expect(next.exitCode, next.stderr).toBe(0);
    expect(await server.grantActive(server.grants[0]!)).toBe(false);
  });

  it('Ctrl-C while a slow token endpoint answers: the code sent once more, the server ends what it issued, and svc says so', async () => {
    const server = await certified();
    const interrupt = new AbortController();
    let release!: () => void;
    server.faults.holdNextTokenAnswer = { held: () => interrupt.abort(), release: new Promise<void>((resolve) => (release = resolve)) };
    const secrets = new MemorySecretStore();
    const r = await runCli(['login'], { env: { SVC_BASE_URL: server.issuer, DISPLAY: ':0' }, browser: personBrowser(), secrets, signal: interrupt.signal });
    release();
    expect(r.exitCode).toBe(130);
    expect(r.stderr).toContain('its code, sent once more, was refused as used, which makes the service end what it issued');
    expect(secrets.secrets.has('default:oauth')).toBe(false);
    expect(server.grants).toHaveLength(1);
    expect(await server.grantActive(server.grants[0]!)).toBe(false);
  });

  it('a code exchange whose answer is lost: the code sent once more, which the server refuses and so ends what it issued', async () => {
    const server = await certified();
    server.faults.dropNextTokenAnswer = true;
    const secrets = new MemorySecretStore();
    const r = await runCli(['login'], { env: { SVC_BASE_URL: server.issuer, DISPLAY: ':0' }, browser: personBrowser(), secrets });
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toContain('sent once more, the code was refused as used, which makes the service end whatever the first exchange issued');
    expect(r.stderr).not.toContain('list` command');
    expect(secrets.secrets.has('default:oauth')).toBe(false);
    expect(server.grants).toHaveLength(1);
    expect(await server.grantActive(server.grants[0]!)).toBe(false);
  });
});

/** A server of the attacker's at --base-url: its metadata sends the sign-in to the genuine server, its token endpoint waits for the loot. */
async function attackerServer(genuine: CertifiedServer, advertiseIss: boolean) {
  const received: { path: string; body: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      received.push({ path, body });
      if (path === '/.well-known/oauth-authorization-server') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            issuer: url,
            authorization_endpoint: `${genuine.issuer}/auth`,
            token_endpoint: `${url}/token`,
            revocation_endpoint: `${url}/revoke`,
            code_challenge_methods_supported: ['S256'],
            ...(advertiseIss ? { authorization_response_iss_parameter_supported: true } : {}),
          }),
        );
        return;
      }
      res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  servers.push({ close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) });
  return { url, received };
}

describe('the mix-up attack (RFC 9700 §4.4) must fail to steal anything', () => {
  it('an attacker at --base-url sending the person to the genuine sign-in page: the answer names the genuine issuer, svc refuses it, the attacker gets neither code nor verifier', async () => {
    const genuine = await certified();
    const attacker = await attackerServer(genuine, true);
    const secrets = new MemorySecretStore();
    const browser = personBrowser();
    const r = await runCli(['login', '--base-url', attacker.url], { env: { DISPLAY: ':0' }, browser, secrets });
    // The person did sign in at the genuine server, which answered with its code and its name.
    const callback = browser.callbacks[0]!;
    expect(callback.searchParams.get('iss')).toBe(genuine.issuer);
    const code = callback.searchParams.get('code')!;
    expect(code).toBeTruthy();
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`the sign-in's answer came from ${genuine.issuer}, not from ${attacker.url}, where this login started`);
    expect(r.stderr).toContain(`the server at ${attacker.url} may be trying to capture your sign-in`);
    expect(r.stderr).not.toContain('Signed in');
    // Nothing but the metadata reached the attacker: no code, no verifier.
    expect(attacker.received.map((x) => x.path)).toEqual(['/.well-known/oauth-authorization-server']);
    expect(attacker.received.map((x) => x.body).join('')).not.toContain(code);
    expect(attacker.received.some((x) => x.body.includes('code_verifier'))).toBe(false);
    expect(secrets.secrets.size).toBe(0);
  });

  it('the same attacker not advertising iss: refused before the browser opens, the sign-in page being on another origin', async () => {
    const genuine = await certified();
    const attacker = await attackerServer(genuine, false);
    const browser = personBrowser();
    const r = await runCli(['login', '--base-url', attacker.url], { env: { DISPLAY: ':0' }, browser });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`sends the sign-in to ${genuine.origin}, another origin than the issuer ${attacker.url}`);
    expect(browser.opened).toEqual([]);
    expect(attacker.received.map((x) => x.path)).toEqual(['/.well-known/oauth-authorization-server']);
  });
});
