// The transport straight to a plain-http address (src/api/http.ts over node:http): what
// svc's callers rely on, checked against real servers: node:http ones, and raw sockets for
// the bytes node:http never sends.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttp, type OwnedHttpTransport } from '../../src/api/http.js';
import { rawServer as rawTcpServer, recordingServer, type SeenRequest } from '../helpers/http-servers.js';

const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function transport(env: Record<string, string> = {}): OwnedHttpTransport {
  const http = createHttp({ env, userAgent: 'svc/test' });
  closers.push(() => http.close());
  return http;
}

async function httpServer(answer: (request: SeenRequest, res: ServerResponse) => void) {
  const server = await recordingServer(
    (res, request) => answer(request, res),
    (close) => closers.push(close),
  );
  return { url: server.origin, seen: server.requests };
}

async function rawServer(onRequest: (socket: Socket, n: number) => void) {
  const server = await rawTcpServer(onRequest, (close) => closers.push(close));
  return { url: server.origin, connections: server.connections };
}

describe('plain http straight to the address', () => {
  it('sends method, path, query, headers and body as node:http would, and reuses one keep-alive connection', async () => {
    const server = await httpServer((_req, res) => res.end('ok'));
    const http = transport();
    const get = await http.fetch(`${server.url}/v1/account?x=1`, { headers: { Authorization: 'Bearer k', accept: 'application/json' } });
    expect(await get.text()).toBe('ok');
    const post = await http.fetch(`${server.url}/v1/calls`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"é":1}' });
    expect(await post.text()).toBe('ok');
    const empty = await http.fetch(`${server.url}/v1/keys/k1/revoke`, { method: 'POST' });
    await empty.text();
    const [a, b, c] = server.seen;
    expect(a).toMatchObject({ method: 'GET', url: '/v1/account?x=1', body: '', socket: 1 });
    expect(a!.headers).toMatchObject({
      host: server.url.slice('http://'.length),
      authorization: 'Bearer k',
      'user-agent': 'svc/test',
      connection: 'keep-alive',
    });
    expect(a!.headers['content-length']).toBeUndefined(); // a GET without a body has none, as with node:http
    expect(b).toMatchObject({ method: 'POST', body: '{"é":1}', socket: 1 });
    expect(b!.headers['content-length']).toBe(String(Buffer.byteLength('{"é":1}')));
    expect(c).toMatchObject({ method: 'POST', body: '', socket: 1 });
    expect(c!.headers['content-length']).toBe('0');
  });

  it('answers status, headers (lower-case, repeats joined, set-cookie apart) and the body, chunked or not', async () => {
    const server = await httpServer((req, res) => {
      res.writeHead(201, 'Made It', [
        ['X-Thing', 'a'],
        ['x-thing', 'b'],
        ['Set-Cookie', 'c=1'],
        ['Set-Cookie', 'd=2'],
        ['Content-Type', 'application/json'],
      ]);
      if (req.url === '/chunked') {
        res.write('{"a":');
        setTimeout(() => res.end('1}'), 5);
      } else res.end('{"a":1}');
    });
    const http = transport();
    for (const path of ['/plain', '/chunked']) {
      const response = await http.fetch(`${server.url}${path}`);
      expect(response).toMatchObject({ status: 201, statusText: 'Made It', ok: true, url: `${server.url}${path}` });
      expect(response.headers.get('X-Thing')).toBe('a, b');
      expect(response.headers.get('content-type')).toBe('application/json');
      const names: string[] = [];
      response.headers.forEach((_value, name) => names.push(name));
      expect(names).toContain('set-cookie');
      expect(await response.json()).toEqual({ a: 1 });
    }
    expect(new Set(server.seen.map((s) => s.socket))).toEqual(new Set([1]));
  });

  it('a HEAD, a 204 and a 304 have no body, and the connection is kept', async () => {
    const server = await httpServer((req, res) => {
      res.writeHead(req.url === '/none' ? 204 : req.url === '/same' ? 304 : 200, { 'content-length': '5' });
      res.end(req.method === 'HEAD' ? undefined : req.url === '/none' || req.url === '/same' ? undefined : 'hello');
    });
    const http = transport();
    expect(await (await http.fetch(`${server.url}/x`, { method: 'HEAD' })).text()).toBe('');
    expect(await (await http.fetch(`${server.url}/none`)).text()).toBe('');
    expect(await (await http.fetch(`${server.url}/same`)).text()).toBe('');
    expect(await (await http.fetch(`${server.url}/x`)).text()).toBe('hello');
    expect(server.seen.map((s) => s.socket)).toEqual([1, 1, 1, 1]);
  });

  it('requests at the same time each get a connection of their own; afterwards the idle ones are reused', async () => {
    const server = await httpServer((_req, res) => setTimeout(() => res.end('x'), 10));
    const http = transport();
    await Promise.all([1, 2, 3].map(async () => (await http.fetch(server.url)).text()));
    await (await http.fetch(server.url)).text();
    expect(new Set(server.seen.slice(0, 3).map((s) => s.socket)).size).toBe(3);
    expect(server.seen[3]!.socket).toBeLessThanOrEqual(3);
  });

  it('a body larger than its reader takes at once, read and then another request on the connection (it was paused)', async () => {
    const page = JSON.stringify({ data: 'x'.repeat(40_000) });
    const server = await httpServer((_req, res) => res.end(page));
    const http = transport();
    for (let i = 0; i < 3; i++) expect(await (await http.fetch(server.url)).text()).toBe(page);
    expect(server.seen.map((s) => s.socket)).toEqual([1, 1, 1]);
  });

  it('a body read to the close (no length) is whole, and the next request connects again', async () => {
    const server = await rawServer((socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nall of it'));
    const http = transport();
    expect(await (await http.fetch(server.url)).text()).toBe('all of it');
    expect(await (await http.fetch(server.url)).text()).toBe('all of it');
    expect(server.connections()).toBe(2);
  });

  it('a body cut short fails its reading, as node:http does; the next request connects again', async () => {
    const server = await rawServer((socket, n) => {
      if (n === 1) {
        socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial');
        setTimeout(() => socket.destroy(), 10);
      } else socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
    });
    const http = transport();
    const cut = await http.fetch(server.url);
    expect(cut.status).toBe(200);
    await expect(cut.text()).rejects.toMatchObject({ message: `cannot reach ${server.url}: the connection ended before the answer`, exitCode: 9 });
    expect(await (await http.fetch(server.url)).text()).toBe('ok');
  });

  it('cancelling a body drops its connection (the rest is never read); the next request connects again', async () => {
    const server = await rawServer((socket, n) => {
      if (n === 1) socket.write('HTTP/1.1 200 OK\r\ncontent-length: 1000000\r\n\r\nbegin');
      else socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
    });
    const http = transport();
    const first = await http.fetch(server.url);
    await first.body!.cancel();
    expect(await (await http.fetch(server.url)).text()).toBe('ok');
    expect(server.connections()).toBe(2);
  });

  it("an abort before the answer fails the request as an abort; after the head, the body's reading", async () => {
    const early = new AbortController();
    // Aborted once the server holds the request, unanswered: a step, not a delay a busy machine could outrun.
    const server = await rawServer((socket, n) => {
      if (n === 1) early.abort(new Error('enough'));
      if (n === 2) socket.write('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhalf');
    });
    const http = transport();
    const waiting = http.fetch(server.url, { signal: early.signal });
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    const late = new AbortController();
    const answer = await http.fetch(server.url, { signal: late.signal });
    const reading = answer.text();
    late.abort();
    await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('a header name that is not a token is a usage error (exit 2), before anything is sent', async () => {
    const server = await rawServer(() => {});
    await expect(transport().fetch(server.url, { headers: { 'bad name': 'x' } })).rejects.toMatchObject({
      message: expect.stringContaining('"bad name" cannot be sent as a header name'),
      exitCode: 2,
    });
    expect(server.connections()).toBe(0);
  });

  it('a reason phrase keeps printable ASCII only', async () => {
    const server = await rawServer((socket) => socket.write('HTTP/1.1 418 I\x1b[31m am\x07 a teapot\r\ncontent-length: 0\r\n\r\n'));
    expect((await transport().fetch(server.url)).statusText).toBe('I[31m am a teapot');
  });
});
