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
import { redactText } from '../io/redact.js';
import { UsageError } from '../errors.js';
import { DeadlineError, type DeadlineReach, deadlineFromEnv, UPLOAD_ALLOWANCE_BYTES_PER_S } from './limits.js';
import { anyProxy, proxySettings, type ProxySettings } from './proxy.js';
import { ConnectionError } from './network.js';
import { IDEMPOTENT } from './retry.js';
import { debugBody, headerValueProblem, isHeaderName, redactHeader } from './http-headers.js';
import { nodeTransport, proxiedTransport, HEADERS_TIMEOUT_MS, type Exchange, type HttpResponse, type Transport } from './http-transports.js';

export { headerValueProblem, isHeaderName } from './http-headers.js';
export { BODY_TIMEOUT_MS, CONNECT_TIMEOUT_MS, HEADERS_TIMEOUT_MS, type HttpHeaders, type HttpResponse } from './http-transports.js';

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
  /** The proxy settings the context read from its env when it was made; read from `env` here when not given. */
  proxy?: ProxySettings;
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

/** The transport the proxy variables call for; each createHttp owns one, opened on its first request. */
function openTransport(options: HttpOptions, proxy: ProxySettings): Promise<Transport> {
  return anyProxy(proxy) ? proxiedTransport(proxy) : nodeTransport(options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS);
}

/** What a deadline that passed says of a request that got this far. */
function reachOf(reached: boolean, method: string): DeadlineReach {
  return !reached ? 'not-sent' : IDEMPOTENT.has(method) ? 'sent' : 'may-be-processed';
}

/** The raw stream under a response body: the deadline destroys it and watches it end. */
type RawBody = NonNullable<HttpResponse['body']> & { destroy(error?: Error): unknown; once(event: 'close' | 'end', listener: () => void): unknown };

/**
 * One pool for every request of one invocation, so keep-alive connections are reused; the
 * proxy choice is this transport's own, from the settings read once for it (its context's).
 */
export function createHttp(options: HttpOptions): OwnedHttpTransport {
  const now = options.now ?? Date.now;
  const proxy = options.proxy ?? proxySettings(options.env);
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
      (pool ??= openTransport(options, proxy)).catch(() => {}); // a failure shows on the request itself
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
        if (!isHeaderName(name))
          throw new UsageError(`${JSON.stringify(name)} cannot be sent as a header name: a name is letters, digits and !#$%&'*+-.^_\`|~ only`);
        const problem = headerValueProblem(value);
        if (problem) throw new UsageError(`the ${name} header cannot be sent: its value holds ${problem}`);
      }
      const budget = init.stream ? undefined : (init.deadline ?? startDeadline(Number(headers['content-length'] ?? 0)));
      const deadlineMs = budget?.ms;
      // What is left of it: a retry after a silent try gets only the rest.
      const remainingMs = budget ? budget.at - now() : undefined;
      if (remainingMs !== undefined && remainingMs <= 0) throw new DeadlineError(target.origin, budget!.ms, reachOf(true, method));
      const transport = await (pool ??= openTransport(options, proxy));
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
