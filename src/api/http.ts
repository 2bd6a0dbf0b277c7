// The process's one HTTP stack (docs/design.md "HTTP"): one keep-alive pool per invocation (the
// context opens and closes it), connect/headers/body timeouts, the overall deadline, the
// User-Agent, and --debug logging of each request and response with every secret redacted.
//
// Every request, short ones, event streams and --forward-to deliveries alike, goes through
// Node's own node:http/node:https (its native llhttp parser has met every hostile server
// before ours did); https and TLS load only for an https address. With proxy variables set,
// undici's EnvHttpProxyAgent, for its CONNECT tunnelling and NO_PROXY rules. Why not undici
// for every request: its HTTP/1 parser is llhttp built as WebAssembly, compiled at each start,
// a cost every short command would pay. Each is loaded on its first request, never at start-up.
import type { Agent as NodeAgent, ClientRequest, IncomingMessage } from 'node:http';
import type { Dispatcher } from 'undici';
import { redact, redactForm, redactText } from '../io/redact.js';
import { lazyRequire } from '../node-require.js';
import { CliError, UsageError } from '../errors.js';
import {
  DeadlineError,
  type DeadlineReach,
  deadlineFromEnv,
  formatBytes,
  MAX_BODY_BYTES,
  MAX_HEADER_BYTES,
  ResponseTooLargeError,
  UPLOAD_ALLOWANCE_BYTES_PER_S,
} from './limits.js';
import { anyProxy, proxyFor, proxySettings, proxyVariableError } from './proxy.js';
import { ConnectionError, connectionError } from './network.js';
import { IDEMPOTENT } from './retry.js';

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

export interface HttpInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
  /**
   * An event stream, read for as long as it lasts: no overall deadline (its reader's
   * heartbeat rule cuts a silent one). Every other request has one (src/api/limits.ts).
   */
  stream?: boolean;
  /**
   * The deadline this request shares with its earlier tries (HttpTransport.deadline): a retry
   * gets what is left of it. Without one, the request has a deadline of its own.
   */
  deadline?: RequestDeadline;
}

/** One overall deadline for a request and all its retries (docs/design.md "HTTP"). */
export interface RequestDeadline {
  /** Its length, as the error names it. */
  readonly ms: number;
  /** When it passes, on the transport's clock. */
  readonly at: number;
}

export interface HttpTransport {
  fetch(url: string | URL, init?: HttpInit): Promise<HttpResponse>;
  /** Starts the overall deadline of a request of `bodyBytes` (a large upload gets more time), shared by its retries. */
  deadline?(bodyBytes: number): RequestDeadline;
  /** Loads the transport (node:http, or undici behind a proxy) ahead of the first request, to overlap a wait. */
  prepare?(): void;
}

/** A transport with a connection pool of its own, which its owner (the context) closes. */
export interface OwnedHttpTransport extends HttpTransport {
  /** Closes the pool's idle sockets so the process can exit at once; a later fetch opens a new pool. */
  close(): Promise<void>;
}

export interface HttpOptions {
  env: Readonly<Record<string, string | undefined>>;
  userAgent: string;
  /** Where --debug lines go (stderr), or undefined when --debug is off. */
  debug?: (line: string) => void;
  now?: () => number;
  /** The overall deadline of a non-streaming request; default: SVC_HTTP_TIMEOUT, else 60 s. */
  deadlineMs?: number;
  /**
   * How long an event stream's try waits for the answer's head (tests shorten it). Every other
   * request waits for its head as long as its deadline leaves: one limit, SVC_HTTP_TIMEOUT, so
   * raising it lets a slow server answer.
   */
  headersTimeoutMs?: number;
}

export const CONNECT_TIMEOUT_MS = 10_000;
export const HEADERS_TIMEOUT_MS = 30_000;
/** Between body chunks; event streams send a keepalive every 15 s, so this never cuts a live one. */
export const BODY_TIMEOUT_MS = 60_000;

/** How far one exchange got, which decides whether it may be repeated and what its error says. */
interface Exchange {
  /** The connection (and over https its TLS handshake) was made: the request may have reached the service. */
  reached: boolean;
}

/**
 * What one request needs from a transport: the answer, or svc's own error (a ConnectionError,
 * through the one mapping of src/api/network.ts); an abort stays an abort.
 */
type Send = (
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
interface Transport {
  send: Send;
  close(): Promise<void>;
}

/** The transport the proxy variables call for; each createHttp owns one, opened on its first request. */
function openTransport(options: HttpOptions): Promise<Transport> {
  return anyProxy(options.env) ? proxiedTransport(options.env) : nodeTransport(options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS);
}

function abortErrorOf(signal: AbortSignal): Error {
  return Object.assign(new Error('This operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR', cause: signal.reason as unknown });
}

async function nodeTransport(headersTimeoutMs: number): Promise<Transport> {
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

async function proxiedTransport(env: HttpOptions['env']): Promise<Transport> {
  // A variable that is no proxy's address is the user's to fix (exit 2), not a network failure.
  const invalid = proxyVariableError(env);
  if (invalid) throw invalid;
  const { httpProxy, httpsProxy, noProxy } = proxySettings(env);
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
        throw await connectionError(error, { url: target, reached: true, ...proxyOf(env, target) });
      }
      return wrapResponse(target.href, answer.statusCode, statusTexts[answer.statusCode] ?? '', answer.headers, answer.body, () =>
        readCapped(answer.body, target, answer.headers['content-length'], proxyOf(env, target)),
      );
    },
    close: () => dispatcher.close(),
  };
}

/** What a deadline that passed says of a request that got this far. */
function reachOf(reached: boolean, method: string): DeadlineReach {
  return !reached ? 'not-sent' : IDEMPOTENT.has(method) ? 'sent' : 'may-be-processed';
}

/** The proxy a request goes through, for its errors. */
function proxyOf(env: HttpOptions['env'], target: URL): { proxy?: string } {
  const { proxy } = proxyFor(env, target);
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

/**
 * Request headers --debug shows whole: the ones svc sends itself, none of them a secret. Any
 * other was given by the user (`svc api -H`, `--forward-header`) and may be a token for a
 * proxy or a handler, so only its last four characters and its length are shown.
 */
const SHOWN_REQUEST_HEADERS = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'content-encoding',
  'content-length',
  'content-type',
  'last-event-id',
  'svc-event-id',
  'svc-event-type',
  // A MAC of one body at one second, which the handler's developer compares: not the secret.
  'svc-signature',
  'user-agent',
]);

function redactHeader(name: string, value: string, sent: boolean): string {
  const lower = name.toLowerCase();
  if (lower === 'authorization') {
    const [scheme, ...rest] = value.split(' ');
    return rest.length ? `${scheme} ${redact(rest.join(' '))}` : redact(value);
  }
  if (lower === 'x-api-key' || lower === 'cookie' || lower === 'set-cookie') return redact(value);
  if (sent && !SHOWN_REQUEST_HEADERS.has(lower)) return `${redact(value)} (${value.length} characters)`;
  return redactText(value);
}

function debugBody(body: string | Uint8Array | undefined, contentType: string | undefined): string | undefined {
  if (body === undefined) return undefined;
  if (typeof body !== 'string') return `<${body.byteLength} bytes>`;
  if (contentType?.includes('application/x-www-form-urlencoded')) return redactForm(body);
  return redactText(body.length > 4000 ? body.slice(0, 4000) + '…' : body);
}

/** A header's name: an RFC 9110 §5.6.2 token. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Whether `name` may be sent as a header's name (the one rule: every header svc sends, `-H` and `--forward-header` too). */
export function isHeaderName(name: string): boolean {
  return HEADER_NAME.test(name);
}

/** A credential's most: far beyond any key or token (a few dozen characters), well within a server's 16 KiB of headers. */
const MAX_CREDENTIAL_CHARS = 4096;

/**
 * Why `value` cannot be sent as a header value, or undefined when it can: the one rule (RFC
 * 9110 §5.5 field-value, plus obs-text, as Node's http accepts), no longer than a server
 * reads. `token`: a credential (RFC 7235 token68-like), visible ASCII only.
 */
export function headerValueProblem(value: string, token = false): string | undefined {
  if (/[\r\n]/.test(value)) return 'a line break';
  if (token ? /[\t ]/.test(value) : false) return 'a space or tab';
  if (/[\x00-\x08\x0a-\x1f\x7f]/.test(value)) return 'a control character';
  if (token ? /[^\x00-\x7e]/.test(value) : /[^\x00-\xff]/.test(value)) return token ? 'a non-ASCII character' : 'a character beyond Latin-1';
  if (token && value.length > MAX_CREDENTIAL_CHARS) return `${formatBytes(value.length)} of text, far more than a key or token holds`;
  if (value.length > MAX_HEADER_BYTES)
    return `${formatBytes(value.length)} of text, more than the ${formatBytes(MAX_HEADER_BYTES)} a server reads in a request's headers`;
  return undefined;
}

/** The raw stream under a response body: the deadline destroys it and watches it end. */
type RawBody = NonNullable<HttpResponse['body']> & { destroy(error?: Error): unknown; once(event: 'close' | 'end', listener: () => void): unknown };

/**
 * One pool for every request of one invocation, so keep-alive connections are reused; the
 * proxy choice is this transport's own, made from its options' env on the first request.
 */
export function createHttp(options: HttpOptions): OwnedHttpTransport {
  const now = options.now ?? Date.now;
  let deadline = options.deadlineMs;
  let pool: Promise<Transport> | undefined;
  const startDeadline = (bodyBytes: number): RequestDeadline => {
    // An upload of more than 1 MiB (voice) gets more time, so a slow uplink is not cut off.
    const allowanceMs = bodyBytes > 1024 * 1024 ? Math.ceil(bodyBytes / UPLOAD_ALLOWANCE_BYTES_PER_S) * 1000 : 0;
    const ms = (deadline ??= deadlineFromEnv(options.env)) + allowanceMs;
    return { ms, at: now() + ms };
  };
  return {
    deadline: startDeadline,
    prepare() {
      (pool ??= openTransport(options)).catch(() => {}); // a failure shows on the request itself
    },
    async close() {
      const current = pool;
      pool = undefined;
      // A transport that never opened (a bad proxy variable) has nothing to close: its failure was the request's to report.
      if (current) await current.then((transport) => transport.close()).catch(() => {});
    },
    async fetch(url, init = {}) {
      const target = new URL(url);
      const method = init.method ?? 'GET';
      const headers: Record<string, string> = { 'user-agent': options.userAgent, ...lowerKeys(init.headers ?? {}) };
      if (init.body !== undefined && headers['content-length'] === undefined) {
        headers['content-length'] = String(typeof init.body === 'string' ? Buffer.byteLength(init.body) : init.body.byteLength);
      }
      // Checked here, where it is a local mistake (exit 2), rather than thrown by Node
      // inside the request, where it would pass for a network failure and be retried.
      for (const [name, value] of Object.entries(headers)) {
        if (!HEADER_NAME.test(name))
          throw new UsageError(`${JSON.stringify(name)} cannot be sent as a header name: a name is letters, digits and !#$%&'*+-.^_\`|~ only`);
        const problem = headerValueProblem(value);
        if (problem) throw new UsageError(`the ${name} header cannot be sent: its value holds ${problem}`);
      }
      const budget = init.stream ? undefined : (init.deadline ?? startDeadline(Number(headers['content-length'] ?? 0)));
      const deadlineMs = budget?.ms;
      // What is left of it: a retry after a silent try gets only the rest.
      const remainingMs = budget ? budget.at - now() : undefined;
      if (remainingMs !== undefined && remainingMs <= 0) throw new DeadlineError(target.origin, budget!.ms, reachOf(true, method));
      const transport = await (pool ??= openTransport(options));
      const debug = options.debug;
      const started = now();
      if (debug) {
        debug(`> ${method} ${redactText(String(url))}`);
        for (const [name, value] of Object.entries(headers)) debug(`> ${name}: ${redactHeader(name, value, true)}`);
        const body = debugBody(init.body, headers['content-type']);
        if (body !== undefined) debug(`> ${body}`);
      }
      // One deadline for the whole exchange, body included: a server dripping a byte now
      // and then never trips the per-chunk timeout, but it cannot hold a command forever.
      const expired = new AbortController();
      const exchange: Exchange = { reached: false };
      let timer: ReturnType<typeof setTimeout> | undefined;
      let rawBody: RawBody | undefined;
      if (deadlineMs !== undefined) {
        timer = setTimeout(() => {
          // The body first, so its reader sees this error rather than the request's abort.
          rawBody?.destroy(new DeadlineError(target.origin, deadlineMs, reachOf(true, method)));
          expired.abort();
        }, remainingMs);
        timer.unref?.();
      }
      const signals = [...(init.signal ? [init.signal] : []), ...(timer === undefined ? [] : [expired.signal])];
      let response: HttpResponse;
      try {
        response = await transport.send(target, method, headers, init.body, signals, init.stream === true, exchange);
      } catch (error) {
        clearTimeout(timer);
        // Ctrl-C stays an abort; the deadline says whether the request could have been sent;
        // anything else the transport already made svc's own error.
        if (init.signal?.aborted) throw error;
        if (expired.signal.aborted) throw new DeadlineError(target.origin, deadlineMs!, reachOf(exchange.reached, method));
        if (debug && error instanceof ConnectionError && error.facts.code) debug(`! ${error.facts.code}`);
        throw error;
      }
      if (timer !== undefined) {
        if (response.body) {
          rawBody = response.body as RawBody;
          const done = () => clearTimeout(timer);
          rawBody.once('end', done);
          rawBody.once('close', done);
        } else clearTimeout(timer);
      }
      if (debug) {
        debug(`< ${response.status} ${response.statusText} (${now() - started} ms)`);
        response.headers.forEach((value, name) => debug(`< ${name}: ${redactHeader(name, value, false)}`));
        const type = response.headers.get('content-type') ?? '';
        if (type.includes('json')) {
          const text = await response.text(); // kept: the caller's text() answers it again
          debug(`< ${redactText(text.length > 4000 ? text.slice(0, 4000) + '…' : text)}`);
        }
      }
      return response;
    },
  };
}

function lowerKeys(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v;
  return out;
}
