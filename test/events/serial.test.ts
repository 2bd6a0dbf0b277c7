// The lean connection `--forward-to` deliveries use (src/api/serial.ts), against real
// servers: node:http ones, and raw sockets for the answers node:http never sends (split
// heads, 1xx, answers without a length, garbage).
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttp } from '../../src/api/http.js';
import { ANSWER_READ_LIMIT, openSerialConnection, type SerialConnection } from '../../src/api/serial.js';
import { DeadlineError } from '../../src/api/limits.js';
import { UsageError } from '../../src/errors.js';
import { rawServer, recordingServer } from '../helpers/http-servers.js';

const closers: Array<() => void> = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

const options = { userAgent: 'svc/test', deadlineMs: 5000, connectTimeoutMs: 2000, idleTimeoutMs: 3000 };

function open(url: string, overrides: Partial<typeof options> = {}): SerialConnection {
  const connection = openSerialConnection(new URL(url), { ...options, ...overrides });
  closers.push(() => connection.close());
  return connection;
}

const post = (c: SerialConnection, body = '{}', headers: Record<string, string> = {}, signal = new AbortController().signal) => c.post(body, headers, signal);

/** A node:http receiver that records each request and answers as `answer` says. */
async function httpReceiver(answer: (n: number, res: ServerResponse) => void = (_n, res) => res.end()) {
  const server = await recordingServer(
    (res, _request, n) => answer(n, res),
    (close) => closers.push(close),
  );
  return { ...server, url: `${server.origin}/hooks?x=1` };
}

/** A raw TCP server: `onRequest(socket, n)` is called once per complete request (bodies are small). */
async function rawReceiver(onRequest: (socket: Socket, n: number) => void) {
  const server = await rawServer(onRequest, (close) => closers.push(close));
  return { ...server, url: `${server.origin}/hooks` };
}

describe('serial connection', () => {
  it('POSTs one request after another on one keep-alive connection, with its headers and the body intact', async () => {
    const r = await httpReceiver((n, res) => {
      res.statusCode = n === 2 ? 500 : 204;
      res.end();
    });
    const c = open(r.url);
    const body = JSON.stringify({ id: 'evt_1', text: 'héllo — ☎' });
    expect(await post(c, body, { 'content-type': 'application/json', 'Svc-Event-Id': 'evt_1', 'x-latin': 'caf\xe9' })).toBe(204);
    expect(await post(c, '{"n":2}')).toBe(500);
    expect(await post(c, '{"n":3}')).toBe(204);
    expect(r.connections()).toBe(1);
    const first = r.requests[0]!;
    expect(first).toMatchObject({ method: 'POST', url: '/hooks?x=1', body });
    expect(first.headers).toMatchObject({
      host: new URL(r.url).host,
      'user-agent': 'svc/test',
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      connection: 'keep-alive',
      'svc-event-id': 'evt_1',
      'x-latin': 'caf\xe9',
    });
    expect(r.requests.map((q) => q.body)).toEqual([body, '{"n":2}', '{"n":3}']);
  });

  it('a user-agent given replaces its own; host, length and connection are always its own', async () => {
    const r = await httpReceiver();
    const c = open(r.url);
    await post(c, 'abc', { 'User-Agent': 'mine/1', 'content-length': '999', host: 'elsewhere', connection: 'close' });
    expect(r.requests[0]!.headers).toMatchObject({ 'user-agent': 'mine/1', 'content-length': '3', host: new URL(r.url).host, connection: 'keep-alive' });
  });

  it('reads chunked answers, with trailers, to their end and keeps the connection', async () => {
    const r = await httpReceiver((n, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', trailer: 'x-done' });
      res.write('a'.repeat(10));
      res.write('b'.repeat(5000));
      res.addTrailers({ 'x-done': String(n) });
      res.end();
    });
    const c = open(r.url);
    for (let i = 0; i < 3; i++) expect(await post(c)).toBe(200);
    expect(r.connections()).toBe(1);
  });

  it('reads an answer however it is split across reads, and skips 1xx answers before the final one', async () => {
    const answer = 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 201 Created\r\ncontent-length: 5\r\n\r\nhello';
    const chunked = 'HTTP/1.1 202 Accepted\r\ntransfer-encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n0\r\nx-t: 1\r\n\r\n';
    const r = await rawReceiver((socket, n) => {
      const text = n % 2 ? answer : chunked;
      // A byte at a time, each in its own write.
      void (async () => {
        for (const ch of text) {
          socket.write(ch);
          await delay(0);
        }
      })();
    });
    const c = open(r.url);
    expect(await post(c)).toBe(201);
    expect(await post(c)).toBe(202);
    expect(await post(c)).toBe(201);
    expect(r.connections()).toBe(1);
  });

  it('an answer with Connection: close, or with no length (read to the close), and HTTP/1.0: the next request connects again', async () => {
    const answers = [
      'HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok',
      'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nread until the close',
      'HTTP/1.0 200 OK\r\ncontent-length: 0\r\n\r\n',
      'HTTP/1.0 204 No Content\r\nconnection: keep-alive\r\n\r\n',
      'HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n',
    ];
    const r = await rawReceiver((socket, n) => {
      const text = answers[n - 1]!;
      socket.write(text);
      if (n === 2) socket.end();
    });
    const c = open(r.url);
    for (let i = 0; i < answers.length; i++) expect(await post(c)).toBe(answers[i]!.includes('204') ? 204 : 200);
    // 1 → close, 2 → close, 3 → HTTP/1.0 closes, 4 → HTTP/1.0 keep-alive kept for 5.
    expect(r.connections()).toBe(4);
  });

  it('a connection the server closed while idle is replaced without a failed request', async () => {
    const r = await rawReceiver((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n');
      // As a server's keep-alive timeout does, a moment after the answer.
      setTimeout(() => socket.end(), 20);
    });
    const c = open(r.url);
    expect(await post(c)).toBe(200);
    await delay(100);
    expect(await post(c)).toBe(200);
    expect(r.connections()).toBe(2);
  });

  it('an answer body past the read limit: the status counts and the connection is dropped', async () => {
    const r = await httpReceiver((n, res) => res.end(n === 1 ? 'x'.repeat(ANSWER_READ_LIMIT * 4) : 'small'));
    const c = open(r.url);
    expect(await post(c)).toBe(200);
    expect(await post(c)).toBe(200);
    expect(r.connections()).toBe(2);
  });

  it('a refused connection fails as the general transport does: a TypeError with the socket error as its cause', async () => {
    const r = await httpReceiver();
    closers.splice(0).forEach((close) => close());
    const c = open(r.url);
    const error = await post(c).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).cause).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('a server that closes without answering: socket hang up; a garbage answer: a parse error', async () => {
    const r = await rawReceiver((socket, n) => (n === 1 ? socket.destroy() : socket.write('SMTP ready\r\n\r\n')));
    const c = open(r.url);
    const hangUp = await post(c).catch((e: unknown) => e);
    expect((hangUp as Error).cause).toMatchObject({ code: 'ECONNRESET', message: 'socket hang up' });
    const garbage = await post(c).catch((e: unknown) => e);
    expect((garbage as Error).cause).toMatchObject({ code: 'HPE_INVALID_CONSTANT' });
  });

  it('a cut in the middle of the body: the status stands (the body is dropped anyway)', async () => {
    const r = await rawReceiver((socket) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial');
      setTimeout(() => socket.destroy(), 20);
    });
    expect(await post(open(r.url))).toBe(200);
  });

  it('an abort fails the request with an AbortError whose cause is the reason, and the next request connects again', async () => {
    const r = await rawReceiver((socket, n) => {
      if (n > 1) socket.write('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n');
    });
    const c = open(r.url);
    const controller = new AbortController();
    const pending = post(c, '{}', {}, controller.signal);
    await delay(20);
    controller.abort(new Error('no answer within 10 s'));
    const error = await pending.catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'AbortError', cause: { message: 'no answer within 10 s' } });
    expect(await post(c)).toBe(200);
    expect(r.connections()).toBe(2);
  });

  it('no answer: the deadline, then the silence limit, end the request', async () => {
    const r = await rawReceiver(() => {});
    const deadline = await post(open(r.url, { deadlineMs: 50 })).catch((e: unknown) => e);
    expect(deadline).toBeInstanceOf(DeadlineError);
    const silent = await post(open(r.url, { idleTimeoutMs: 50 })).catch((e: unknown) => e);
    expect((silent as Error).cause).toMatchObject({ code: 'UND_ERR_HEADERS_TIMEOUT' });
  });

  it('a header value with a line break is a usage error, and nothing is sent', async () => {
    const r = await rawReceiver(() => {});
    const c = open(r.url);
    await expect(post(c, '{}', { 'svc-event-id': 'evt_1\r\nx-injected: 1' })).rejects.toBeInstanceOf(UsageError);
    await delay(20);
    expect(r.connections()).toBe(0);
  });

  it('the transport offers it only where fetch would go straight to the address over plain http, without --debug', () => {
    const base = { userAgent: 'svc/test' };
    expect(createHttp({ ...base, env: {} }).serial?.('http://127.0.0.1:3000/hooks')).toBeDefined();
    expect(createHttp({ ...base, env: {} }).serial?.('https://127.0.0.1:3000/hooks')).toBeUndefined();
    expect(createHttp({ ...base, env: { HTTP_PROXY: 'http://proxy:8080' } }).serial?.('http://127.0.0.1:3000/hooks')).toBeUndefined();
    expect(createHttp({ ...base, env: { https_proxy: 'http://proxy:8080' } }).serial?.('http://127.0.0.1:3000/hooks')).toBeUndefined();
    expect(createHttp({ ...base, env: {}, debug: () => {} }).serial?.('http://127.0.0.1:3000/hooks')).toBeUndefined();
  });

  it("the transport's close closes its serial connections, so the process can exit", async () => {
    const r = await httpReceiver();
    const http = createHttp({ userAgent: 'svc/test', env: {} });
    const c = http.serial!(r.url)!;
    expect(await post(c)).toBe(200);
    const open = () => new Promise<number>((resolve, reject) => r.server.getConnections((error, n) => (error ? reject(error) : resolve(n))));
    expect(await open()).toBe(1);
    await http.close();
    for (let i = 0; i < 100 && (await open()) > 0; i++) await delay(10);
    expect(await open()).toBe(0);
  });
});
