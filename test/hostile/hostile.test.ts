// The hostile-server suite (docs/design.md "Tests", "HTTP" Bounded), in process: huge bodies,
// endless event-stream lines, drips, HTML and truncated JSON where JSON belongs, redirects
// to another origin, escape sequences in what the server says. Every failure is a clear
// message and its documented exit code; no secret reaches another origin; nothing the
// server sent reaches the terminal able to act on it. (Memory, measured on the spawned
// binary: memory.test.ts.)
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { drip, hostileServer, json, streamLazily, useHostileServers } from './server.js';

const KEY = 'svc_test_hostile0000000000000000';
const MiB = 1024 * 1024;
const ESC = '\u001b';
const CSI = '\u009b';

/** No character a terminal would act on: ESC, C1 (CSI among them), BEL. */
function expectInert(text: string): void {
  expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
}

const account = { object: 'account', id: 'org_hostile', name: 'Hostile', livemode: false, credential: { type: 'api_key', scopes: ['account:read'] } };

// Every case, over plain http and over https (a TLS server of the tests' own).
describe.each(['http', 'https'] as const)('over %s', (protocol) => {
  const { server, other } = useHostileServers(protocol);

  const env = (extra: Record<string, string> = {}) => ({ SVC_API_KEY: KEY, SVC_BASE_URL: server.url, ...extra });

  describe('bodies beyond the cap', () => {
    it('a JSON answer that never ends: exit 9 naming the 8 MiB limit, the server stopped early', async () => {
      let sent: Promise<number> | undefined;
      server.on('/v1/account', (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"object":"account","name":"');
        sent = streamLazily(res, Buffer.alloc(64 * 1024, 'a'), 1536 * MiB);
      });
      const r = await runCli(['account'], { env: env() });
      expect(r.exitCode).toBe(9);
      expect(r.stderr).toContain('larger than 8 MiB');
      expect(r.stderr).toContain(server.origin);
      expect(await sent!).toBeLessThan(64 * MiB);
    });

    it('a declared Content-Length beyond the cap is refused before reading', async () => {
      server.on('/v1/account', (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(2 * 1024 * MiB) });
        res.write('{');
      });
      const r = await runCli(['account'], { env: env() });
      expect(r.exitCode).toBe(9);
      expect(r.stderr).toMatch(/Content-Length 2147483648\) is larger than 8 MiB/);
    });

    it('an error body beyond the cap: exit 9 too, not a 404 with megabytes of detail', async () => {
      server.on('/v1/calls/call_abcdef123456', (_req, res) => {
        res.writeHead(404, { 'content-type': 'text/plain' });
        void streamLazily(res, Buffer.alloc(64 * 1024, 'x'), 100 * MiB);
      });
      const r = await runCli(['calls', 'get', 'call_abcdef123456'], { env: env() });
      expect(r.exitCode).toBe(9);
      expect(r.stderr).toContain('larger than 8 MiB');
    });

    it('svc api reads at most 8 MiB too', async () => {
      server.on('/v1/big', (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        void streamLazily(res, Buffer.alloc(64 * 1024, 'b'), 64 * MiB);
      });
      const r = await runCli(['api', 'GET', '/v1/big'], { env: env() });
      expect(r.exitCode).toBe(9);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('larger than 8 MiB');
    });

    it('an event-stream line that never ends: exit 9 naming the 1 MiB limit, no reconnect', async () => {
      server.on('/v1/account', (_req, res) => json(res, 200, account));
      let sent: Promise<number> | undefined;
      server.on('/v1/events/stream', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: ');
        sent = streamLazily(res, Buffer.alloc(16 * 1024, 'z'), 1536 * MiB);
      });
      const r = await runCli(['events', 'tail'], { env: env() });
      expect(r.exitCode).toBe(9);
      expect(r.stderr).toContain('a line or event of the event stream is larger than 1 MiB');
      expect(server.seen.filter((s) => s.path === '/v1/events/stream')).toHaveLength(1);
      expect(await sent!).toBeLessThan(32 * MiB);
    });

    it('an event of endless short data lines (no blank line) is bounded the same way', async () => {
      server.on('/v1/account', (_req, res) => json(res, 200, account));
      server.on('/v1/events/stream', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        void streamLazily(res, Buffer.from('data: 0123456789012345678901234567890123456789\n'.repeat(200)), 256 * MiB);
      });
      const r = await runCli(['events', 'tail', '--json'], { env: env() });
      expect(r.exitCode).toBe(9);
      expect(r.stderr).toContain('larger than 1 MiB');
    });
  });

  describe('deadline', () => {
    it('a server dripping one byte at a time is given up after the deadline (SVC_HTTP_TIMEOUT): exit 9', async () => {
      server.on('/v1/account', (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        void drip(res, JSON.stringify(account), 100);
      });
      const started = Date.now();
      const r = await runCli(['account'], { env: env({ SVC_HTTP_TIMEOUT: '1' }) });
      expect(r.exitCode).toBe(9);
      expect(r.stderr).toContain(`no complete answer from ${server.origin} within 1 s`);
      expect(r.stderr).toContain('SVC_HTTP_TIMEOUT');
      expect(Date.now() - started).toBeLessThan(10_000);
    });

    it('a server that never answers the headers: the same deadline', async () => {
      server.on('/v1/account', () => new Promise(() => {}));
      const r = await runCli(['account'], { env: env({ SVC_HTTP_TIMEOUT: '500ms' }) });
      expect(r.exitCode).toBe(9);
      expect(r.stderr).toContain('within 0.5 s');
      // Not retried: it would only take as long again.
      expect(server.seen.filter((s) => s.path === '/v1/account')).toHaveLength(1);
    });

    it('an event stream is not cut by the deadline (its heartbeat rule applies instead)', async () => {
      const event = {
        object: 'event',
        id: 'evt_000000000001',
        type: 'call.started',
        created_at: '2026-01-01T00:00:00Z',
        livemode: false,
        data: { id: 'call_1' },
      };
      server.on('/v1/account', (_req, res) => json(res, 200, account));
      server.on('/v1/events/stream', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': hello\n\n');
        // The event comes only after twice the deadline.
        setTimeout(() => res.write(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`), 1200);
      });
      const r = await runCli(['events', 'tail', '--json', '--max-events', '1'], { env: env({ SVC_HTTP_TIMEOUT: '0.5' }) });
      expect(r.stderr).not.toContain('no complete answer');
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(r.stdout).id).toBe(event.id);
    });

    it('a Retry-After that outlasts the deadline is not waited for: exit 7 at once, with the figure', async () => {
      server.on('/v1/account', (_req, res) => json(res, 429, { detail: 'slow down' }, { 'retry-after': '5' }));
      const r = await runCli(['account'], { env: env({ SVC_HTTP_TIMEOUT: '2' }) });
      expect(r.exitCode).toBe(7);
      expect(r.stderr).toContain('5 s');
      expect(server.seen.filter((s) => s.path === '/v1/account')).toHaveLength(1);
    });

    it('a malformed SVC_HTTP_TIMEOUT is a usage error', async () => {
      const r = await runCli(['account'], { env: env({ SVC_HTTP_TIMEOUT: 'soon' }) });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('SVC_HTTP_TIMEOUT');
    });
  });

  describe('not the service: HTML and broken JSON where JSON belongs', () => {
    it("a captive portal's HTML 200: exit 1 saying what answered", async () => {
      server.on('/v1/account', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><title>Hotel Wi-Fi ${ESC}[31mlogin</title></html>`);
      });
      const r = await runCli(['account'], { env: env() });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain(`${server.origin} answered 200 with text/html; charset=utf-8 instead of the service's JSON`);
      expect(r.stderr).toContain('<!doctype html>');
      expect(r.stderr).not.toContain('TypeError');
      expectInert(r.stderr);
    });

    it('JSON cut short: exit 1, not a TypeError', async () => {
      server.on('/v1/calls', (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list","data":[{"id":"call_'));
      const r = await runCli(['calls', 'list'], { env: env() });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain('JSON that does not parse');
      expect(r.stderr).not.toMatch(/TypeError|unexpected failure/);
    });

    it('an HTML error page keeps only a short excerpt in the message', async () => {
      server.on('/v1/account', (_req, res) => res.writeHead(404, { 'content-type': 'text/html' }).end(`<html>${'x'.repeat(50_000)}</html>`));
      const r = await runCli(['account'], { env: env() });
      expect(r.exitCode).toBe(5);
      expect(r.stderr.length).toBeLessThan(2000);
    });

    it('discovery answering HTML (svc login at a wrong address): exit 1 naming the content type', async () => {
      server.on('/.well-known/oauth-authorization-server', (_req, res) =>
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html>Please sign in to the Wi-Fi</html>'),
      );
      // (At a terminal, where a pasted redirect could finish a sign-in: without one, login stops before discovery.)
      const r = await runCli(['login', '--no-browser'], { env: { SVC_BASE_URL: server.url }, tty: true });
      expect(r.exitCode).toBe(1);
      expect(r.stderr.replace(/\s+/g, ' ')).toMatch(/did not answer JSON: it answered 200 with text\/html: "<html>Please sign in/);
    });
  });

  describe('redirects are never followed with the credential', () => {
    it('a 302 to another origin: exit 1 naming it; the other origin receives nothing', async () => {
      other.on('/steal', (_req, res) => json(res, 200, account));
      server.on('/v1/account', (_req, res) => res.writeHead(302, { location: `${other.url}/steal` }).end());
      const r = await runCli(['account'], { env: env() });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain(`redirect (302) to ${other.origin}`);
      expect(other.seen).toEqual([]);
      expect(r.stderr).not.toContain(KEY);
    });

    it('a 307 on a POST: the same, and the body is not re-sent', async () => {
      server.on('/v1/calls', (_req, res) => res.writeHead(307, { location: `${other.url}/v1/calls` }).end());
      const r = await runCli(['calls', 'start', '--languages', 'en,es'], { env: env() });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain(`to ${other.origin}`);
      expect(other.seen).toEqual([]);
    });

    it('svc api does not follow either', async () => {
      server.on('/v1/anything', (_req, res) => res.writeHead(301, { location: `${other.url}/v1/anything` }).end());
      const r = await runCli(['api', 'GET', '/v1/anything'], { env: env() });
      expect(r.exitCode).toBe(1);
      expect(other.seen).toEqual([]);
    });

    it('through undici (proxy variables set, the host exempted): no redirect followed either', async () => {
      // Each invocation's context opens its own transport: these proxy variables choose undici.
      other.on('/steal', (_req, res) => json(res, 200, account));
      server.on('/v1/account', (_req, res) => res.writeHead(302, { location: `${other.url}/steal` }).end());
      const r = await runCli(['account'], { env: env({ HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: '127.0.0.1' }) });
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain(`redirect (302) to ${other.origin}`);
      expect(other.seen).toEqual([]);
    });
  });

  describe('escape sequences in what the server says never reach the terminal', () => {
    const nasty = `${ESC}]0;owned${'\u0007'}${ESC}[2J${CSI}31mred\u007f`;

    it('an error detail: inert on stderr, exit code as documented', async () => {
      server.on('/v1/account', (_req, res) => json(res, 404, { detail: `gone ${nasty}` }));
      const r = await runCli(['account'], { env: env(), tty: true });
      expect(r.exitCode).toBe(5);
      expectInert(r.stderr);
      expect(r.stderr).toContain('gone ^[]0;owned^G^[[2J^[31mred^?');
    });

    it('a 422 list detail and a 502 detail too', async () => {
      server.on('/v1/account', (_req, res) => json(res, 422, { detail: [{ loc: ['query', nasty], msg: nasty, type: 'x' }] }));
      const r = await runCli(['account'], { env: env(), tty: true });
      expect(r.exitCode).toBe(2);
      expectInert(r.stderr);
      server.on('/v1/account', (_req, res) => json(res, 502, { detail: nasty }));
      const again = await runCli(['account'], { env: env(), tty: true });
      expect(again.exitCode).toBe(9);
      expectInert(again.stderr);
    });

    it('table cells on a terminal and TSV when piped', async () => {
      const call = {
        object: 'call',
        id: 'call_abc',
        title: `t ${nasty}`,
        languages: ['en', 'es'],
        status: 'active',
        livemode: false,
        created_at: '2026-01-01T00:00:00Z',
      };
      server.on('/v1/calls', (_req, res) => json(res, 200, { object: 'list', data: [call], has_more: false, next_cursor: null }));
      for (const tty of [true, false]) {
        const r = await runCli(['calls', 'list'], { env: env({ NO_COLOR: '1' }), tty });
        expect(r.exitCode).toBe(0);
        expectInert(r.stdout);
        expect(r.stdout).toContain('^[]0;owned');
      }
    });

    it('--json stays exact JSON: the same value, with no raw ESC or C1', async () => {
      server.on('/v1/account', (_req, res) => json(res, 200, { ...account, name: nasty }));
      server.on('/v1/balance', (_req, res) => json(res, 200, { object: 'balance', currency: 'usd', available: 1, livemode: false }));
      const r = await runCli(['account', '--json'], { env: env(), tty: true });
      expect(r.exitCode).toBe(0);
      expect(JSON.parse(r.stdout).name).toBe(nasty);
      expectInert(r.stdout.replace(/\n/g, ''));
    });

    it('event fields, human lines and --json', async () => {
      const event = {
        object: 'event',
        id: 'evt_000000000001',
        type: `call.started`,
        created_at: '2026-01-01T00:00:00Z',
        livemode: false,
        data: { id: 'call_1', title: nasty },
      };
      server.on('/v1/account', (_req, res) => json(res, 200, account));
      server.on('/v1/events/stream', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // The raw C1 and DEL are valid inside a JSON string; JSON.stringify leaves them raw.
        res.end(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      });
      const human = await runCli(['events', 'tail', '--max-events', '1'], { env: env({ NO_COLOR: '1' }), tty: true });
      expect(human.exitCode).toBe(0);
      expectInert(human.stdout.replace(/\n/g, ''));
      expect(human.stdout).toContain('^[31mred');
      const ndjson = await runCli(['events', 'tail', '--json', '--max-events', '1'], { env: env() });
      expect(ndjson.exitCode).toBe(0);
      expectInert(ndjson.stdout.replace(/\n/g, ''));
      expect(JSON.parse(ndjson.stdout).data.title).toBe(nasty);
    });

    it("events list and events get show them as ^[ like every other line, never as JSON's \\u001b", async () => {
      const event = {
        object: 'event',
        id: 'evt_000000000001',
        type: 'call.started',
        livemode: false,
        created_at: '2026-01-01T00:00:00Z',
        data: { id: 'call_1', title: nasty, [`k${ESC}`]: [nasty] },
      };
      server.on('/v1/events', (_req, res) => json(res, 200, { object: 'list', data: [event], has_more: false, next_cursor: null }));
      for (const tty of [true, false]) {
        for (const argv of [
          ['events', 'list'],
          ['events', 'get', event.id],
        ]) {
          const r = await runCli(argv, { env: env({ NO_COLOR: '1' }), tty });
          expect(r.exitCode).toBe(0);
          expectInert(r.stdout.replace(/\n/g, ''));
          expect(r.stdout, argv.join(' ')).toContain('^[]0;owned^G^[[2J^[31mred^?');
          expect(r.stdout, argv.join(' ')).not.toContain('\\u00');
        }
      }
    });

    it("the organization's name, stored and shown by every command that names it", async () => {
      server.on('/v1/account', (_req, res) => json(res, 200, { ...account, name: nasty }));
      server.on('/v1/events/stream', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(
          `id: evt_000000000001\nevent: call.started\ndata: ${JSON.stringify({ object: 'event', id: 'evt_000000000001', type: 'call.started', created_at: '2026-01-01T00:00:00Z', livemode: false, data: {} })}\n\n`,
        );
      });
      const configDir = tempConfigDir();
      const secrets = new MemorySecretStore();
      const runs = [
        await runCli(['keys', 'add', '--stdin'], { env: { SVC_BASE_URL: server.url }, stdin: KEY, secrets, configDir, tty: true }),
        await runCli(['auth', 'status', '--offline'], { configDir, secrets, tty: true }),
        await runCli(['profiles', 'list'], { configDir, secrets, tty: true, env: { NO_COLOR: '1' } }), // (svc's own bold header aside)
        await runCli(['auth', 'switch', 'default'], { configDir, secrets, tty: true }),
        await runCli(['doctor'], { configDir, secrets, tty: true, env: { SVC_BASE_URL: server.url } }),
        await runCli(['events', 'tail', '--max-events', '1'], { env: env({ NO_COLOR: '1' }), tty: true }),
        await runCli(['profiles', 'remove', 'default'], { configDir, secrets, tty: true, env: { SVC_BASE_URL: server.url } }),
      ];
      for (const r of runs) {
        expectInert(r.stdout.replace(/\n/g, ''));
        expectInert(r.stderr.replace(/\n/g, ''));
      }
      expect(runs.map((r) => r.stdout + r.stderr).join('')).toContain('^[]0;owned');
    });

    it('a chat message in human output (and one that is not JSON is skipped, not a crash)', async () => {
      const message = {
        object: 'message',
        id: 'msg_1',
        chat_id: 'chat_abcdef123456',
        kind: 'text',
        text: `hi ${nasty}`,
        language: 'en',
        translation: null,
        transcript: null,
        created_at: '2026-01-01T00:00:00Z',
      };
      let gets = 0;
      server.on('/v1/chats/chat_abcdef123456', (_req, res) =>
        json(res, 200, {
          object: 'chat',
          id: 'chat_abcdef123456',
          status: gets++ === 0 ? 'open' : 'closed',
          language: 'en',
          subject: null,
          livemode: false,
          created_at: '2026-01-01T00:00:00Z',
        }),
      );
      server.on('/v1/chats/chat_abcdef123456/messages', (_req, res) => json(res, 200, { object: 'list', data: [], has_more: false, next_cursor: null }));
      server.on('/v1/chats/chat_abcdef123456/stream', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`event: message\ndata: <html>not json\u001b[2J</html>\n\nevent: message\ndata: ${JSON.stringify(message)}\n\n`);
      });
      const r = await runCli(['chats', 'stream', 'chat_abcdef123456'], { env: env({ NO_COLOR: '1' }), tty: true });
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toContain('skipped a stream message that is not a chat message: <html>not json^[[2J</html>');
      expect(r.stdout).toContain('hi ^[]0;owned');
      expectInert(r.stdout.replace(/\n/g, ''));
      expectInert(r.stderr.replace(/\n/g, ''));
    });
  });

  describe('credentials that cannot be a header value', () => {
    it('SVC_API_KEY with a line break: exit 2 at once, nothing sent, the key not echoed', async () => {
      const bad = `${KEY}\r\nX-Injected: 1`;
      const r = await runCli(['account'], { env: env({ SVC_API_KEY: bad }) });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('SVC_API_KEY contains a line break');
      expect(r.stderr).not.toContain(KEY);
      expect(server.seen).toEqual([]);
    });

    it('SVC_API_KEY with a non-ASCII character: exit 2', async () => {
      const r = await runCli(['account'], { env: env({ SVC_API_KEY: `${KEY}é` }) });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('a non-ASCII character');
      expect(server.seen).toEqual([]);
    });
  });

  describe('a stored key that cannot be a header value', () => {
    it('exit 2 naming the key and how to store it again; nothing sent', async () => {
      server.on('/v1/account', (_req, res) => json(res, 200, { ...account, credential: { type: 'api_key', scopes: ['account:read'] } }));
      const secrets = new MemorySecretStore();
      const configDir = tempConfigDir();
      const added = await runCli(['keys', 'add', '--stdin'], { env: { SVC_BASE_URL: server.url }, stdin: KEY, secrets, configDir });
      expect(added.exitCode).toBe(0);
      const [entry] = [...secrets.secrets.keys()];
      secrets.secrets.set(entry!, `${KEY}\n`); // e.g. written by hand, or by an older version
      server.reset();
      const r = await runCli(['account'], { env: { SVC_BASE_URL: server.url }, secrets, configDir });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/the stored key "test" of profile "default" contains a line break/);
      expect(r.stderr).toContain('svc keys add --profile default --name test');
      expect(server.seen).toEqual([]);
    });
  });

  describe('a refused connection', () => {
    it('is retried even for a POST (nothing was sent) and reported plainly: exit 9', async () => {
      const closed = await hostileServer();
      const address = closed.url;
      await closed.close();
      const r = await runCli(['calls', 'start', '--languages', 'en,es'], { env: env({ SVC_BASE_URL: address }) });
      expect(r.exitCode).toBe(9);
      expect(r.stderr).toContain(`cannot reach ${address}: nothing answered there (connection refused); 3 attempts, nothing was sent`);
      expect(r.stderr).toContain('start it with `svc emulator`');
      expect(r.stderr).not.toContain('ECONNREFUSED');
      expect(r.stderr).not.toContain('may have been processed');
    });
  });

  describe('an answer whose headers are too large (issue 24)', () => {
    it("is the server's fault: said once, exit 9, not retried", async () => {
      server.on('/v1/account', (_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'x-padding': 'a'.repeat(64 * 1024) }).end('{}'));
      const r = await runCli(['account'], { env: env() });
      expect(r.exitCode).toBe(9);
      expect(r.stderr).toContain(`${server.origin} answered with headers larger than 16 KiB, the most Node reads; not retried`);
      expect(r.stderr).not.toContain('cannot reach');
      expect(server.seen.filter((s) => s.path === '/v1/account')).toHaveLength(1);
    });
  });
});
