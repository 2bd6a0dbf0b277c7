// The two transports a request may go out on, each opened on its first request: Node's own
// node:http/node:https, or undici's EnvHttpProxyAgent when a proxy applies, given the proxy
// settings the context read once (src/api/proxy.ts); and their answers, read within the limits.
import type { Agent as NodeAgent, ClientRequest, IncomingMessage } from 'node:http';
import type { Dispatcher } from 'undici';
import { lazyRequire } from '../node-require.js';
import { CliError } from '../errors.js';
import { MAX_BODY_BYTES, ResponseTooLargeError } from './limits.js';
import { proxyFor, proxyVariableError, type ProxySettings } from './proxy.js';
import { ConnectionError, connectionError } from './network.js';

/** The slice of a fetch Response that svc uses, over either transport's answer. */
export interface HttpResponse {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  readonly url: string;
  readonly headers: HttpHeaders;
  /** The body as it arrives; `cancel()` drops the rest. */
  readonly body: (AsyncIterable<Uint8Array> & { cancel(): Promise<void> }) | null;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

export interface HttpHeaders {
  get(name: string): string | null;
  forEach(callback: (value: string, name: string) => void): void;
}

export const CONNECT_TIMEOUT_MS = 10_000;
export const HEADERS_TIMEOUT_MS = 30_000;
/** Between body chunks; event streams send a keepalive every 15 s, so this never cuts a live one. */
export const BODY_TIMEOUT_MS = 60_000;

/** How far one exchange got, which decides whether it may be repeated and what its error says. */
export interface Exchange {
  /** The connection (and over https its TLS handshake) was made: the request may have reached the service. */
  reached: boolean;
}

/**
 * What one request needs from a transport: the answer, or svc's own error (a ConnectionError,
 * through the one mapping of src/api/network.ts); an abort stays an abort.
 */
export type Send = (
  target: URL,
  method: string,
  headers: Record<string, string>,
  body: string | Uint8Array | undefined,
  /** The caller's abort (Ctrl-C) and the deadline's: either ends the request, and the body's reading. */
  signals: readonly AbortSignal[],
  /** An event stream (init.stream), read for as long as it lasts. */
  stream: boolean,
  exchange: Exchange,
) => Promise<HttpResponse>;
export interface Transport {
  send: Send;
  close(): Promise<void>;
}

function abortErrorOf(signal: AbortSignal): Error {
  return Object.assign(new Error('This operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR', cause: signal.reason as unknown });
}

export async function nodeTransport(headersTimeoutMs: number): Promise<Transport> {
  const http = lazyRequire('node:http');
  // https (and TLS) load only for an https address.
  type Client = { request: typeof http.request; agent: NodeAgent };
  const clients = new Map<string, Client>();
  const clientFor = (protocol: string): Client => {
    let client = clients.get(protocol);
    if (!client) {
      const module = protocol === 'https:' ? lazyRequire('node:https') : http;
      client = { request: module.request, agent: new module.Agent({ keepAlive: true }) };
      clients.set(protocol, client);
    }
    return client;
  };
  const send: Send = async (target, method, headers, body, signals, stream, exchange) => {
    const { request: open, agent } = clientFor(target.protocol);
    return new Promise<HttpResponse>((resolve, reject) => {
      const request: ClientRequest = open(target, { method, headers, agent });
      // An abort ends the request, or once answered the body (its reader sees the abort, as
      // with fetch). Listeners, not AbortSignal.any: a delivery loop sends thousands of
      // requests under one long-lived signal.
      let response: IncomingMessage | undefined;
      const onAbort = (event: Event) => (response ?? request).destroy(abortErrorOf(event.target as AbortSignal));
      for (const signal of signals) {
        if (signal.aborted) {
          request.destroy(abortErrorOf(signal));
          break;
        }
        signal.addEventListener('abort', onAbort, { once: true });
      }
      const release = () => {
        for (const signal of signals) signal.removeEventListener('abort', onAbort);
      };
      request.once('close', () => response ?? release());
      const timedOut = (failure: 'connect-timeout' | 'no-answer', waitedMs: number) =>
        request.destroy(new ConnectionError({ failure, origin: target.origin, reached: exchange.reached, waitedMs }));
      // A stream has no deadline: its head has a limit of its own. Other requests' is their deadline.
      const headersTimer = stream ? setTimeout(() => timedOut('no-answer', headersTimeoutMs), headersTimeoutMs) : undefined;
      request.on('socket', (socket) => {
        // A pooled socket is connected (and secured) already; a new one is once its handshake is done.
        if (!socket.connecting) {
          exchange.reached = true;
          return;
        }
        socket.once(target.protocol === 'https:' ? 'secureConnect' : 'connect', () => (exchange.reached = true));
        const connectTimer = setTimeout(() => timedOut('connect-timeout', CONNECT_TIMEOUT_MS), CONNECT_TIMEOUT_MS);
        socket.once('connect', () => clearTimeout(connectTimer));
        socket.once('close', () => clearTimeout(connectTimer));
      });
      request.on('error', (error) => {
        clearTimeout(headersTimer);
        // A request cut by the pool's close (the command is over) is asked nothing more: a
        // probe of the server would hold the finished process for its time.
        if (error.name === 'AbortError') reject(error);
        else if (closed) reject(Object.assign(new Error('the request was ended with the command'), { name: 'AbortError', code: 'ABORT_ERR', cause: error }));
        else void connectionError(error, { url: target, reached: exchange.reached }).then(reject);
      });
      request.on('response', (answer: IncomingMessage) => {
        clearTimeout(headersTimer);
        response = answer;
        answer.once('close', release);
        // Silence between body chunks ends the body, as undici's bodyTimeout does.
        answer.setTimeout(BODY_TIMEOUT_MS, () =>
          answer.destroy(new ConnectionError({ failure: 'stalled', origin: target.origin, reached: true, waitedMs: BODY_TIMEOUT_MS })),
        );
        // (A socket back in the pool gets the agent's own timeout again: none.)
        resolve(nodeResponse(target.href, answer, http.STATUS_CODES));
      });
      request.end(body);
    });
  };
  let closed = false;
  return {
    send,
    async close() {
      closed = true;
      for (const client of clients.values()) client.agent.destroy();
    },
  };
}

export async function proxiedTransport(proxy: ProxySettings): Promise<Transport> {
  // A variable that is no proxy's address is the user's to fix (exit 2), not a network failure.
  const invalid = proxyVariableError(proxy);
  if (invalid) throw invalid;
  const { httpProxy, httpsProxy, noProxy } = proxy;
  // undici is CommonJS: bundled by esbuild its namespace has only `default`, while Node's
  // own loader (vitest runs the source) also offers named exports. `default` is in both.
  const loaded = await import('undici');
  const undici = (loaded as unknown as { default?: typeof loaded }).default ?? loaded;
  const statusTexts = lazyRequire('node:http').STATUS_CODES;
  const dispatcher = new undici.EnvHttpProxyAgent({
    connectTimeout: CONNECT_TIMEOUT_MS,
    headersTimeout: HEADERS_TIMEOUT_MS,
    bodyTimeout: BODY_TIMEOUT_MS,
    httpProxy,
    httpsProxy,
    noProxy,
  });
  return {
    async send(target, method, headers, body, signals, stream, exchange) {
      const signal = signals.length > 1 ? AbortSignal.any([...signals]) : signals[0];
      // undici does not say how far it got: the request may have been sent, unless an error's
      // code says no connection was made (src/api/network.ts).
      exchange.reached = true;
      let answer: Dispatcher.ResponseData;
      try {
        answer = await dispatcher.request({
          origin: target.origin,
          path: target.pathname + target.search,
          method: method as Dispatcher.HttpMethod,
          headers,
          body: body ?? null,
          signal: signal ?? null,
          // As nodeTransport: only a stream's head has a limit of its own (0: none but the deadline).
          headersTimeout: stream ? HEADERS_TIMEOUT_MS : 0,
        });
      } catch (error) {
        if (signal?.aborted) throw error;
        throw await connectionError(error, { url: target, reached: true, ...proxyOf(proxy, target) });
      }
      return wrapResponse(target.href, answer.statusCode, statusTexts[answer.statusCode] ?? '', answer.headers, answer.body, () =>
        readCapped(answer.body, target, answer.headers['content-length'], proxyOf(proxy, target)),
      );
    },
    close: () => dispatcher.close(),
  };
}

/** The proxy a request goes through, for its errors. */
function proxyOf(settings: ProxySettings, target: URL): { proxy?: string } {
  const { proxy } = proxyFor(settings, target);
  return proxy ? { proxy } : {};
}

function nodeResponse(url: string, response: IncomingMessage, statusTexts: Readonly<Record<number, string | undefined>>): HttpResponse {
  const status = response.statusCode ?? 0;
  // The server's own reason phrase, printable ASCII only (it may reach a terminal).
  const reason = (response.statusMessage ?? '').replace(/[^\x20-\x7e]/g, '') || (statusTexts[status] ?? '');
  return wrapResponse(url, status, reason, response.headers, response, () => readCapped(response, new URL(url), response.headers['content-length']));
}

/**
 * The whole body as text, up to MAX_BODY_BYTES: past that the connection is destroyed at
 * once (memory stays flat whatever the server sends) and the error names the limit.
 */
async function readCapped(
  body: AsyncIterable<Uint8Array> & { destroy(): unknown },
  url: URL,
  declared: string | string[] | undefined,
  through: { proxy?: string } = {},
): Promise<string> {
  const what = `the answer from ${url.origin}`;
  if (typeof declared === 'string' && Number(declared) > MAX_BODY_BYTES) {
    body.destroy();
    throw new ResponseTooLargeError(`${what} (Content-Length ${declared})`, MAX_BODY_BYTES);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of body) {
      total += chunk.byteLength;
      if (total > MAX_BODY_BYTES) {
        body.destroy();
        throw new ResponseTooLargeError(what, MAX_BODY_BYTES);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    // Cut mid-body: the answer had begun, so the request reached the service.
    if (error instanceof CliError || (error as { name?: unknown }).name === 'AbortError') throw error;
    throw await connectionError(error, { url, reached: true, answered: true, ...through });
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A Response-like view of an answer; the body is read at most once and kept. */
function wrapResponse(
  url: string,
  status: number,
  statusText: string,
  headers: Record<string, string | string[] | undefined>,
  body: AsyncIterable<Uint8Array> & { destroy(): unknown; on(event: 'error', listener: () => void): unknown },
  readAll: () => Promise<string>,
): HttpResponse {
  let text: Promise<string> | undefined;
  const readText = () => (text ??= readAll());
  // A body destroyed by the deadline while nobody reads it must not be an uncaught 'error'.
  body.on('error', () => {});
  const headerValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);
  return {
    status,
    statusText,
    ok: status >= 200 && status < 300,
    url,
    headers: {
      get: (name) => headerValue(headers[name.toLowerCase()]) ?? null,
      forEach(callback) {
        for (const [name, value] of Object.entries(headers)) {
          const joined = headerValue(value);
          if (joined !== undefined) callback(joined, name);
        }
      },
    },
    body: Object.assign(body, {
      async cancel() {
        // A destroyed body may still report the abort as an 'error' event; nobody waits for it.
        body.on('error', () => {});
        body.destroy();
      },
    }),
    text: readText,
    json: async () => JSON.parse(await readText()) as unknown,
  };
}
