// The process's one HTTP path (design.md "HTTP"): a single keep-alive undici dispatcher
// (EnvHttpProxyAgent when proxy variables are set), connect/headers timeouts, the
// User-Agent, and --debug logging of each request and response with every secret redacted.
// undici is loaded on the first request, never at start-up.
import type { Dispatcher, Response } from 'undici';
import { redact, redactForm, redactText } from '../io/redact.js';

export type { Response as HttpResponse } from 'undici';

export interface HttpInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  signal?: AbortSignal;
}

export interface HttpTransport {
  fetch(url: string | URL, init?: HttpInit): Promise<Response>;
}

export interface HttpOptions {
  env: Readonly<Record<string, string | undefined>>;
  userAgent: string;
  /** Where --debug lines go (stderr), or undefined when --debug is off. */
  debug?: (line: string) => void;
  now?: () => number;
}

export const CONNECT_TIMEOUT_MS = 10_000;
export const HEADERS_TIMEOUT_MS = 30_000;
/** Between body chunks; event streams send a keepalive every 15 s, so this never cuts a live one. */
export const BODY_TIMEOUT_MS = 60_000;

const PROXY_VARS = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'];

let shared: Promise<{ dispatcher: Dispatcher; fetch: typeof import('undici').fetch }> | undefined;

/** One dispatcher per process, so keep-alive connections are reused across every request. */
function undiciFor(env: HttpOptions['env']) {
  shared ??= (async () => {
    // undici is CommonJS: bundled by esbuild its chunk exports only `default`, while Node's
    // own loader (vitest runs the source) also offers named exports. `default` works in both.
    const loaded = await import('undici');
    const undici = (loaded as unknown as { default?: typeof loaded }).default ?? loaded;
    const options = { connectTimeout: CONNECT_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS, bodyTimeout: BODY_TIMEOUT_MS };
    const proxied = PROXY_VARS.some((name) => env[name]);
    const dispatcher = proxied
      ? new undici.EnvHttpProxyAgent({
          ...options,
          httpProxy: env.HTTP_PROXY ?? env.http_proxy,
          httpsProxy: env.HTTPS_PROXY ?? env.https_proxy,
          // '' rather than undefined: the context's env is the whole truth (undici would read process.env).
    noProxy: env.NO_PROXY ?? env.no_proxy ?? '',
        })
      : new undici.Agent({ ...options, keepAliveTimeout: 10_000 });
    return { dispatcher, fetch: undici.fetch };
  })();
  return shared;
}

/** Closes the shared dispatcher's idle sockets so the process can exit at once. */
export async function closeHttp(): Promise<void> {
  const current = shared;
  shared = undefined;
  if (current) await (await current).dispatcher.close().catch(() => {});
}

function redactHeader(name: string, value: string): string {
  const lower = name.toLowerCase();
  if (lower === 'authorization') {
    const [scheme, ...rest] = value.split(' ');
    return rest.length ? `${scheme} ${redact(rest.join(' '))}` : redact(value);
  }
  if (lower === 'x-api-key' || lower === 'cookie' || lower === 'set-cookie') return redact(value);
  return redactText(value);
}

function debugBody(body: string | Uint8Array | undefined, contentType: string | undefined): string | undefined {
  if (body === undefined) return undefined;
  if (typeof body !== 'string') return `<${body.byteLength} bytes>`;
  if (contentType?.includes('application/x-www-form-urlencoded')) return redactForm(body);
  return redactText(body.length > 4000 ? body.slice(0, 4000) + '…' : body);
}

export function createHttp(options: HttpOptions): HttpTransport {
  const now = options.now ?? Date.now;
  return {
    async fetch(url, init = {}) {
      const { dispatcher, fetch } = await undiciFor(options.env);
      const method = init.method ?? 'GET';
      const headers: Record<string, string> = { 'user-agent': options.userAgent, ...lowerKeys(init.headers ?? {}) };
      const debug = options.debug;
      const started = now();
      if (debug) {
        debug(`> ${method} ${redactText(String(url))}`);
        for (const [name, value] of Object.entries(headers)) debug(`> ${name}: ${redactHeader(name, value)}`);
        const body = debugBody(init.body, headers['content-type']);
        if (body !== undefined) debug(`> ${body}`);
      }
      const response = await fetch(url, { method, headers, body: init.body, signal: init.signal, dispatcher });
      if (debug) {
        debug(`< ${response.status} ${response.statusText} (${now() - started} ms)`);
        response.headers.forEach((value, name) => debug(`< ${name}: ${redactHeader(name, value)}`));
        const type = response.headers.get('content-type') ?? '';
        if (type.includes('json')) {
          const text = await response.clone().text();
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
