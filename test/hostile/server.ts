// A server of the tests' own that misbehaves on purpose (docs/design.md "Tests": the hostile-
// server suite): each test installs the handler for the paths it cares about; anything
// else answers 599 so that an unexpected request shows in the assertion that follows.
// It also counts what it was sent, so a test can assert what never arrived. Over plain http
// or over https (a certificate from the tests' CA, which the test processes trust), the
// path users take: every case of the suite runs against both.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { testServerCertificate } from '../helpers/test-ca.js';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll } from 'vitest';

export type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

export interface Seen {
  method: string;
  path: string;
  authorization: string | undefined;
  body: string;
}

export interface HostileServer {
  url: string;
  origin: string;
  /** Every request received, in order. */
  seen: Seen[];
  /** Installs the handler of a path (exact path, query ignored). */
  on(path: string, handler: Handler): void;
  reset(): void;
  close(): Promise<void>;
}

export type Protocol = 'http' | 'https';

let certificate: ReturnType<typeof testServerCertificate> | undefined;

export async function hostileServer(protocol: Protocol = 'http'): Promise<HostileServer> {
  const handlers = new Map<string, Handler>();
  const seen: Seen[] = [];
  const sockets = new Set<Socket>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      if (body.length < 100_000) body += chunk.toString('utf8');
    });
    await new Promise((resolve) => req.on('end', resolve));
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    seen.push({ method: req.method ?? '', path, authorization: req.headers.authorization, body });
    const handler = handlers.get(path);
    if (!handler) {
      res.writeHead(599, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: `hostile server: no handler for ${path}` }));
      return;
    }
    try {
      await handler(req, res);
    } catch {
      res.destroy();
    }
  };
  const server: Server =
    protocol === 'https' ? (createTlsServer((certificate ??= testServerCertificate()), handle) as unknown as Server) : createServer(handle);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `${protocol}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    origin,
    seen,
    on: (path, handler) => void handlers.set(path, handler),
    reset() {
      handlers.clear();
      seen.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
}

/**
 * Streams `total` bytes of `chunk` repeated, generated as the client reads (backpressure
 * respected), and stops as soon as the client goes away. Resolves with the bytes written.
 */
export function streamLazily(res: ServerResponse, chunk: Buffer, total: number): Promise<number> {
  return new Promise((resolve) => {
    let sent = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      resolve(sent);
    };
    res.on('close', finish);
    const pump = () => {
      while (!done && sent < total) {
        sent += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
      if (!done && sent >= total) res.end(finish);
    };
    pump();
  });
}

/** Writes one byte every `intervalMs` until the client goes away (or `bytes` were sent). */
export function drip(res: ServerResponse, text: string, intervalMs: number): Promise<void> {
  return new Promise((resolve) => {
    let i = 0;
    const timer = setInterval(() => {
      if (i >= text.length) {
        clearInterval(timer);
        res.end();
        resolve();
        return;
      }
      res.write(text[i++]!);
    }, intervalMs);
    res.on('close', () => {
      clearInterval(timer);
      resolve();
    });
  });
}

/**
 * Two hostile servers for the tests of a describe block over `protocol`: `server`, and `other`
 * (another origin, which must receive nothing); started before the tests, their handlers and
 * what they saw cleared after each, closed after all. They can be named before they started.
 */
export function useHostileServers(protocol: Protocol): { server: HostileServer; other: HostileServer } {
  const started: HostileServer[] = [];
  beforeAll(async () => {
    started.push(await hostileServer(protocol), await hostileServer(protocol));
  });
  afterEach(() => started.forEach((s) => s.reset()));
  afterAll(async () => {
    await Promise.all(started.splice(0).map((s) => s.close()));
  });
  const startedAt = (index: number): HostileServer => {
    const running = () => started[index] ?? fail();
    const fail = (): never => {
      throw new Error('the hostile servers are not started yet (use them inside tests or hooks)');
    };
    return {
      get url() {
        return running().url;
      },
      get origin() {
        return running().origin;
      },
      get seen() {
        return running().seen;
      },
      on: (path, handler) => running().on(path, handler),
      reset: () => running().reset(),
      close: () => running().close(),
    };
  };
  return { server: startedAt(0), other: startedAt(1) };
}
