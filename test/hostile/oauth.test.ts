// The hostile-server suite, OAuth side: a server that speaks enough of RFC 8414 and
// RFC 6749 to sign in, then misbehaves at the token endpoint or on the callback. A refresh
// that meets a 429 is retried; one that may have been processed (a 502, a connection dropped
// after sending) is not sent again, and exits 9 saying its answer may be lost, the sign-in kept; HTML where JSON belongs is exit 1 saying what answered; a
// redirect at the token endpoint is not followed; an error_description cannot act on the
// terminal.
import { describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import type { Browser, Clock } from '../../src/context.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { json, useHostileServers } from './server.js';

// Every case over plain http and over https (a TLS server of the tests' own).
describe.each(['http', 'https'] as const)('over %s', (protocol) => {
  const { server, other } = useHostileServers(protocol);
  let issued = 0;

  function tokens(res: ServerResponse): void {
    issued++;
    json(
      res,
      200,
      {
        access_token: `svc_oat_hostile${issued}aaaaaaaaaaaaaaaa`,
        token_type: 'Bearer',
        expires_in: 3600,
        refresh_token: `svc_ort_hostile${issued}bbbbbbbbbbbbbbbb`,
        scope: 'account:read calls:read',
        org_id: 'org_hostile',
      },
      { 'cache-control': 'no-store' },
    );
  }

  /** The RFC 8414 metadata and /v1/account: what a sign-in needs besides the token endpoint. */
  function speakOAuth(): void {
    server.on('/.well-known/oauth-authorization-server', (_req, res) =>
      json(res, 200, {
        issuer: server.url,
        authorization_endpoint: `${server.url}/oauth/authorize`,
        token_endpoint: `${server.url}/oauth2/token`,
        revocation_endpoint: `${server.url}/oauth2/revoke`,
        response_types_supported: ['code'],
        code_challenge_methods_supported: ['S256'],
      }),
    );
    server.on('/v1/account', (_req, res) =>
      json(res, 200, { object: 'account', id: 'org_hostile', name: 'Hostile', livemode: true, credential: { type: 'oauth', scopes: ['account:read'] } }),
    );
  }

  /** A browser that "approves" at once: it calls the loopback redirect with a code (or the given error parameters). */
  function browser(params: Record<string, string> = { code: 'code_from_hostile' }): Browser {
    return {
      async open(url) {
        const authorize = new URL(url);
        const callback = new URL(authorize.searchParams.get('redirect_uri')!);
        for (const [k, v] of Object.entries(params)) callback.searchParams.set(k, v);
        callback.searchParams.set('state', authorize.searchParams.get('state')!);
        await fetch(callback);
      },
    };
  }

  /** Time runs an hour ahead (the token is due for refresh); sleeps return at once and are recorded. */
  function aheadClock(slept: number[]): Clock {
    return {
      now: () => Date.now() + 3550_000,
      sleep: async (ms) => void slept.push(ms),
    };
  }

  async function signedIn() {
    speakOAuth();
    server.on('/oauth2/token', (_req, res) => tokens(res));
    const secrets = new MemorySecretStore();
    const configDir = tempConfigDir();
    const login = await runCli(['login'], { env: { SVC_BASE_URL: server.url, DISPLAY: ':0' }, browser: browser(), secrets, configDir });
    expect(login.stderr).not.toMatch(/^error/m);
    expect(login.exitCode).toBe(0);
    const stored = () => JSON.parse(secrets.secrets.get('default:oauth')!) as { refresh_token: string };
    const slept: number[] = [];
    const run = (argv: string[]) => runCli(argv, { env: { SVC_BASE_URL: server.url }, secrets, configDir, clock: aheadClock(slept) });
    return { stored, run, slept };
  }

  const refreshes = () => server.seen.filter((s) => s.path === '/oauth2/token' && s.body.includes('grant_type=refresh_token')).length;

  describe('a refresh meeting a transient failure', () => {
    it('a 502: the refresh token is not sent again (it may be spent), exit 9 saying the answer may be lost, the sign-in kept', async () => {
      const session = await signedIn();
      const before = session.stored().refresh_token;
      server.on('/oauth2/token', (_req, res) => json(res, 502, { detail: 'upstream' }));
      const r = await session.run(['auth', 'token']);
      expect(r.exitCode).toBe(9);
      expect(r.stderr).toContain('the token endpoint answered 502');
      expect(r.stderr).toContain('only its answer was lost, so svc did not send the refresh token again');
      expect(refreshes()).toBe(1);
      expect(session.stored().refresh_token).toBe(before);
    });

    it('a 502 that was only the gateway: the next command refreshes with the kept pair', async () => {
      const session = await signedIn();
      let calls = 0;
      server.on('/oauth2/token', (_req, res) => (calls++ === 0 ? json(res, 502, { detail: 'upstream' }) : tokens(res)));
      expect((await session.run(['auth', 'token'])).exitCode).toBe(9);
      const r = await session.run(['auth', 'token']);
      expect(r.stderr).toBe('');
      expect(r.exitCode).toBe(0);
      expect(refreshes()).toBe(2);
    });

    it('429 with Retry-After: waits what it says, then exit 7 when it keeps refusing', async () => {
      const session = await signedIn();
      server.on('/oauth2/token', (_req, res) => json(res, 429, { detail: 'slow down' }, { 'retry-after': '2' }));
      const r = await session.run(['auth', 'token']);
      expect(r.exitCode).toBe(7);
      expect(r.stderr).toContain('asks to wait 2 s');
      expect(session.slept).toEqual([2000, 2000]);
    });

    it('a connection dropped after sending: not repeated, exit 9 saying the answer may be lost', async () => {
      const session = await signedIn();
      server.on('/oauth2/token', (_req, res) => void res.socket?.destroy());
      const r = await session.run(['auth', 'token']);
      expect(r.exitCode).toBe(9);
      expect(refreshes()).toBe(1);
      expect(r.stderr).toContain('did not send the refresh token again');
    });

    it('an HTML 200 from the token endpoint: exit 1 saying what answered, not a refusal', async () => {
      const session = await signedIn();
      server.on('/oauth2/token', (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>portal</html>'));
      const r = await session.run(['auth', 'token']);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain('the token endpoint did not answer JSON: it answered 200 with text/html: "<html>portal</html>"');
    });

    it('invalid_grant is still the one refusal: exit 3', async () => {
      const session = await signedIn();
      server.on('/oauth2/token', (_req, res) => json(res, 400, { error: 'invalid_grant' }));
      const r = await session.run(['auth', 'token']);
      expect(r.exitCode).toBe(3);
      expect(refreshes()).toBe(1);
    });
  });

  describe('sign-in against a hostile server', () => {
    it('a token endpoint redirecting the code to another origin: not followed, exit 1', async () => {
      speakOAuth();
      other.on('/oauth2/token', (_req, res) => tokens(res));
      server.on('/oauth2/token', (_req, res) => res.writeHead(307, { location: `${other.url}/oauth2/token` }).end());
      const r = await runCli(['login'], { env: { SVC_BASE_URL: server.url, DISPLAY: ':0' }, browser: browser() });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain(`redirect (307) to ${other.origin}`);
      expect(other.seen).toEqual([]);
    });

    it('an error_description with escape sequences on the callback: exit 3, inert', async () => {
      speakOAuth();
      const r = await runCli(['login'], {
        env: { SVC_BASE_URL: server.url, DISPLAY: ':0' },
        browser: browser({ error: 'server_error', error_description: '\u001b]0;owned\u0007\u001b[2Jboom\u009b1m' }),
        tty: false,
      });
      expect(r.exitCode).toBe(3);
      expect(r.stderr).toContain('^[]0;owned^G^[[2Jboom^[1m');
      expect(r.stderr).not.toMatch(/[\u001b\u0007\u009b]/);
    });

    it('a pair svc refuses whose revocation fails too: says what stays open and how to end it', async () => {
      speakOAuth();
      server.on('/oauth2/token', (_req, res) =>
        json(res, 200, { access_token: 'a'.repeat(20), token_type: 'Bearer', expires_in: 3600, refresh_token: 'r'.repeat(20), scope: 'account:read' }),
      );
      server.on('/oauth2/revoke', (_req, res) => json(res, 500, { detail: 'down' }));
      const r = await runCli(['login'], { env: { SVC_BASE_URL: server.url, DISPLAY: ':0' }, browser: browser() });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain('the token endpoint answered an invalid "org_id"');
      expect(r.stderr).toContain('revoking the sign-in it issued failed');
      expect(r.stderr).toContain(
        "it stays open until it expires, or an admin of the organization can end it by disconnecting the app in the organization's connected apps",
      );
      // The refresh token is what was sent to be revoked (it ends the grant), and it never shows.
      expect(server.seen.find((s) => s.path === '/oauth2/revoke')?.body).toContain('token_type_hint=refresh_token');
      expect(r.stderr).not.toContain('r'.repeat(20));
    });

    it('a code exchange lost twice: says the service may have issued a sign-in svc never received, and how to end it', async () => {
      speakOAuth();
      server.on('/oauth2/token', (_req, res) => json(res, 502, { detail: 'upstream' }));
      const r = await runCli(['login'], { env: { SVC_BASE_URL: server.url, DISPLAY: ':0' }, browser: browser() });
      expect(r.exitCode).toBe(9);
      expect(r.stderr).toContain('the service may have issued a sign-in that svc never received: it stays open until it expires, or an admin');
      expect(server.seen.filter((s) => s.path === '/oauth2/token')).toHaveLength(2);
    });

    it('an error_description from the token endpoint: inert too', async () => {
      speakOAuth();
      server.on('/oauth2/token', (_req, res) => json(res, 400, { error: 'invalid_request', error_description: 'no\u001b[8m hidden' }));
      const r = await runCli(['login'], { env: { SVC_BASE_URL: server.url, DISPLAY: ':0' }, browser: browser() });
      expect(r.exitCode).toBe(3);
      expect(r.stderr).toContain('no^[[8m hidden');
      expect(r.stderr).not.toContain('\u001b');
    });
  });
});
