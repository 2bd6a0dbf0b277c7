// The API client (design.md "HTTP"): Bearer credential, retries (src/api/retry.ts),
// OAuth refresh once on 401, error mapping (src/api/errors.ts).
import type { ResolvedCredential } from '../credentials/resolve.js';
import type { Io } from '../io/io.js';
import type { Clock, Env, Random } from '../shared/runtime.js';
import type { HttpResponse, HttpTransport } from './http.js';
import { ENDPOINTS, fillPath, joinUrl } from './endpoints.js';
import type { EndpointName, HttpMethod } from './endpoints.js';
import { apiErrorFrom } from './errors.js';
import { decideRetry, parseRetryAfter } from './retry.js';
import { CliError, isAbortError, NetworkError, InterruptedError, UsageError } from '../errors.js';
import { UnexpectedAnswerError } from './limits.js';
import { snippet } from '../io/sanitize.js';
import { proxyFor } from './proxy.js';

export type QueryValue = string | number | boolean | undefined | null | readonly string[];

export interface ApiRequest {
  /** A row of the endpoint table… */
  endpoint?: EndpointName;
  /** …or a raw method and path (`svc api`). */
  method?: HttpMethod | string;
  path?: string;
  params?: Record<string, string>;
  query?: Record<string, QueryValue>;
  /** JSON body. */
  body?: unknown;
  /** A body sent as is (voice audio, `svc api --input`); set content-type in headers. */
  rawBody?: Uint8Array | string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export interface ApiClient {
  readonly credential: ResolvedCredential;
  /** The parsed JSON answer (undefined for an empty body); throws ApiError on non-2xx. */
  request<T = unknown>(req: ApiRequest): Promise<T>;
  /** The response after auth and retries, body unread, whatever its status (svc api). */
  send(req: ApiRequest): Promise<HttpResponse>;
  /** Like send, but throws ApiError on non-2xx (event streams: the caller reads the body). */
  stream(req: ApiRequest): Promise<HttpResponse>;
}

/** What the client uses (the context has all of it). */
export interface ApiClientDeps {
  http: HttpTransport;
  clock: Clock;
  random: Random;
  /** The proxy variables, to name a proxy that did not answer. */
  env: Env;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  /** The 429 wait notice. */
  io: Pick<Io, 'progress'>;
  /** An OAuth credential's access token, refreshed when needed (src/auth/session.ts). */
  accessToken(profile: string, opts: { forceRefresh: boolean; failedToken?: string }): Promise<string>;
}

function buildUrl(baseUrl: string, req: ApiRequest): { method: string; url: URL; path: string } {
  let method: string;
  let path: string;
  if (req.endpoint) {
    const e = ENDPOINTS[req.endpoint];
    method = e.method;
    path = fillPath(e.path, req.params);
  } else {
    if (!req.method || !req.path) throw new Error('an ApiRequest needs an endpoint, or a method and a path');
    method = req.method.toUpperCase();
    path = req.path.startsWith('/') ? req.path : `/${req.path}`;
  }
  const url = joinUrl(baseUrl, path);
  for (const [name, value] of Object.entries(req.query ?? {})) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const v of value) url.searchParams.append(name, v);
    else url.searchParams.set(name, String(value));
  }
  return { method, url, path: url.pathname };
}

/**
 * The parsed JSON of an answer. A 2xx that is not JSON (a captive portal's page, a wrong
 * address, a body cut short) is an error that says what did answer; an error status keeps
 * a short, printable excerpt of a non-JSON body for its message.
 */
async function readBody(response: HttpResponse): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    if (!response.ok) return snippet(text, 200);
    throw notJson(response, text);
  }
}

function notJson(response: HttpResponse, text: string): UnexpectedAnswerError {
  const type = response.headers.get('content-type') || 'no content type';
  const where = response.url ? new URL(response.url).origin : 'the service';
  const looks = type.includes('json') ? 'JSON that does not parse (cut short?)' : type;
  return new UnexpectedAnswerError(`${where} answered ${response.status} with ${looks} instead of the service's JSON: "${snippet(text)}"`);
}

/** Codes of a connection that was never made: nothing was sent, so any request may be repeated. */
const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

function failureCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown; errors?: Array<{ code?: unknown }> } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  // Happy eyeballs (several addresses tried): one code for all of them.
  const codes = new Set(cause?.errors?.map((e) => e.code));
  return codes.size === 1 ? String([...codes][0]) || undefined : undefined;
}

/** A credential goes in a header: a pasted line break or a non-ASCII character would fail there, as a usage error. */
function checkHeaderSafe(value: string, credential: ResolvedCredential): void {
  if (/^[\x21-\x7e]+$/.test(value)) return;
  const problem = /[\r\n]/.test(value)
    ? 'a line break'
    : /\s/.test(value)
      ? 'a space or tab'
      : /[^\x00-\x7e]/.test(value)
        ? 'a non-ASCII character'
        : 'a control character';
  if (credential.source === 'env') {
    throw new UsageError(`SVC_API_KEY contains ${problem}, so it cannot be sent`, 'set it to the key alone, e.g. SVC_API_KEY=$(tr -d "[:space:]" < key.txt)');
  }
  if (credential.kind === 'api_key') {
    throw new UsageError(
      `the stored key "${credential.keyName}" of profile "${credential.profileName}" contains ${problem}, so it cannot be sent`,
      `store it again: svc keys add --profile ${credential.profileName} --name ${credential.keyName}`,
    );
  }
  throw new UsageError(
    `the stored OAuth token of profile "${credential.profileName}" contains ${problem}, so it cannot be sent`,
    `run \`svc login --profile ${credential.profileName}\``,
  );
}

export function createApiClient(ctx: ApiClientDeps, credential: ResolvedCredential): ApiClient {
  const tokensUnderWay = new Map<string, Promise<string>>();
  /** The credential to send; `failed` is the token the service just refused (401). */
  const bearer = async (forceRefresh: boolean, failed?: string): Promise<string> => {
    if (credential.kind === 'api_key') {
      checkHeaderSafe(credential.apiKey!, credential);
      return credential.apiKey!;
    }
    // Refreshed under the profile lock (src/auth/session.ts). Requests of this command that
    // need a token at the same moment (svc account's two) share one look-up, so they cause
    // one refresh, and one failure; a 401 names the token refused, so another process's
    // rotation meanwhile is taken rather than refreshed again.
    const key = forceRefresh ? `refused:${failed ?? ''}` : 'current';
    let pending = tokensUnderWay.get(key);
    if (!pending) {
      pending = ctx.accessToken(credential.profileName, { forceRefresh, ...(failed !== undefined ? { failedToken: failed } : {}) });
      tokensUnderWay.set(key, pending);
      const settled = () => void tokensUnderWay.delete(key);
      pending.then(settled, settled);
    }
    const token = await pending;
    checkHeaderSafe(token, credential);
    return token;
  };

  /** Until when a "rate limited: waiting" notice already speaks for every request. */
  let quietUntil = -Infinity;

  async function send(req: ApiRequest, stream = false): Promise<HttpResponse> {
    const { method, url, path } = buildUrl(credential.baseUrl, req);
    const headers: Record<string, string> = { accept: 'application/json', ...(req.headers ?? {}) };
    let body: string | Uint8Array | undefined;
    if (req.rawBody !== undefined) body = req.rawBody;
    else if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers['content-type'] ??= 'application/json';
    }
    const signal = req.signal ? AbortSignal.any([req.signal, ctx.signal]) : ctx.signal;
    // One deadline for the request and its retries (design.md "HTTP"): a silent server
    // holds a command for SVC_HTTP_TIMEOUT in all, not that much per try.
    const deadline = stream ? undefined : ctx.http.deadline?.(body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
    let token = await bearer(false);
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      let response: HttpResponse;
      try {
        response = await ctx.http.fetch(url, {
          method,
          headers: { ...headers, authorization: `Bearer ${token}` },
          body,
          signal,
          ...(stream ? { stream } : {}),
          ...(deadline ? { deadline } : {}),
        });
      } catch (error) {
        if (isAbortError(error) || ctx.signal.aborted) throw new InterruptedError();
        // The deadline, an unsendable header, a refused certificate: final, and already worded.
        if (error instanceof CliError) throw error;
        const code = failureCode(error);
        // Refused (or no such host): nothing reached a server, so even a POST may be repeated.
        const neverConnected = code !== undefined && NEVER_CONNECTED.has(code);
        const decision = decideRetry(neverConnected ? 'GET' : method, attempt, { networkError: true }, ctx.clock.now(), random01(ctx));
        if (decision.retry) {
          await ctx.clock.sleep(decision.waitMs, ctx.signal);
          continue;
        }
        // Behind a proxy, the connection that failed may be the proxy's: name it.
        const { proxy } = proxyFor(ctx.env, url);
        const through = proxy ? ` through the proxy ${proxy}` : '';
        if (neverConnected) {
          throw new NetworkError(
            code === 'ECONNREFUSED' || code === 'UND_ERR_CONNECT_TIMEOUT'
              ? `cannot reach ${url.origin}${through}: nothing answered (${code}, ${attempt} attempts; nothing was sent); ${proxy ? 'is the proxy running?' : 'is the service or emulator running?'}`
              : `cannot reach ${url.origin}${through}: no such host (${code}, ${attempt} attempts; nothing was sent)`,
            'check the base URL (--base-url / SVC_BASE_URL) and any proxy settings; for a local emulator, start it with `svc emulator`',
          );
        }
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        throw new NetworkError(
          `cannot reach ${url.origin}${through}: ${cause?.code ?? cause?.message ?? (error as Error).message}` +
            (decision.reason === 'not-idempotent' ? ' (not retried: the request may have been processed)' : ` (after ${attempt} attempts)`),
          decision.reason === 'not-idempotent'
            ? 'check whether it took effect before running it again'
            : 'check the network, the base URL (--base-url / SVC_BASE_URL) and any proxy settings',
        );
      }
      if (response.status === 401 && credential.kind === 'oauth' && !refreshed) {
        // The token may have been rotated or expired early: refresh once and retry (design.md "Credentials").
        await response.body?.cancel().catch(() => {});
        refreshed = true;
        token = await bearer(true, token);
        attempt--;
        continue;
      }
      if (response.ok) return response; // (before the jitter's random bytes, which load node:crypto)
      if (response.status >= 300 && response.status < 400) {
        // Never followed: the credential must not travel to wherever a server points (design.md "Credentials").
        await response.body?.cancel().catch(() => {});
        const location = response.headers.get('location');
        let target = 'no Location';
        if (location) target = URL.canParse(location, url.href) ? new URL(location, url).origin : snippet(location);
        throw new CliError(
          `${url.origin} answered ${method} ${path} with a redirect (${response.status}) to ${target}; svc does not follow redirects, so the credential stays with ${url.origin}`,
          1,
          'if the service has moved, set its new address with --base-url / SVC_BASE_URL (and `svc login` again for a stored sign-in)',
        );
      }
      const retryAfter = response.headers.get('retry-after');
      let decision = decideRetry(method, attempt, { status: response.status, retryAfter }, ctx.clock.now(), random01(ctx));
      // A wait that outlasts the request's deadline would only end in it: the answer now, with the figure.
      if (decision.retry && deadline && ctx.clock.now() + decision.waitMs >= deadline.at) decision = { retry: false, reason: 'retry-after-too-long' };
      if (decision.retry) {
        await response.body?.cancel().catch(() => {});
        if (response.status === 429 && ctx.clock.now() >= quietUntil) {
          // Requests in flight together (translate --lines) are refused and wait together: one notice.
          quietUntil = ctx.clock.now() + decision.waitMs;
          ctx.io.progress(`rate limited: waiting ${Math.ceil(decision.waitMs / 1000)} s as the service asks (Retry-After), then retrying`);
        }
        await ctx.clock.sleep(decision.waitMs, ctx.signal);
        continue;
      }
      if (response.status === 429 || response.status >= 502) {
        const wait = parseRetryAfter(retryAfter, ctx.clock.now());
        (response as HttpResponse & { svcRetryNote?: string; svcRetryAfter?: number }).svcRetryNote =
          decision.reason === 'retry-after-too-long'
            ? 'longer than svc waits'
            : decision.reason === 'not-idempotent'
              ? 'not retried: a POST may have been processed'
              : `after ${attempt} attempts`;
        if (wait !== undefined) (response as HttpResponse & { svcRetryAfter?: number }).svcRetryAfter = Math.ceil(wait / 1000);
      }
      return response;
    }
  }

  async function checked(req: ApiRequest, stream = false): Promise<HttpResponse> {
    const response = await send(req, stream);
    if (response.ok) return response;
    const body = await readBody(response);
    const extra = response as HttpResponse & { svcRetryNote?: string; svcRetryAfter?: number };
    const { method, path } = buildUrl(credential.baseUrl, req);
    throw apiErrorFrom(response.status, body, { method, path, credential, retryAfterSeconds: extra.svcRetryAfter, retryNote: extra.svcRetryNote });
  }

  return {
    credential,
    send: (req) => send(req),
    stream: (req) => checked(req, true),
    async request<T>(req: ApiRequest): Promise<T> {
      return (await readBody(await checked(req))) as T;
    },
  };
}

function random01(ctx: { random: Random }): number {
  const [a = 0, b = 0] = ctx.random.bytes(2);
  return (a * 256 + b) / 65_536;
}
