// The API client (design.md "HTTP"): Bearer credential, retries (src/api/retry.ts),
// OAuth refresh once on 401, error mapping (src/api/errors.ts), list pagination.
import type { Context } from '../context.js';
import type { ResolvedCredential } from '../credentials/resolve.js';
import type { HttpResponse } from './http.js';
import { ENDPOINTS, fillPath, joinUrl, LIST_LIMIT_MAX } from './endpoints.js';
import type { EndpointName, HttpMethod, ListPage } from './endpoints.js';
import { apiErrorFrom } from './errors.js';
import { decideRetry, parseRetryAfter } from './retry.js';
import { isAbortError, NetworkError, InterruptedError } from '../errors.js';
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

export interface ListRequest extends ApiRequest {
  /** Items per page (1–100); with `all`, the page size. */
  limit?: number;
  /** Follow next_cursor to the end. */
  all?: boolean;
}

export interface ApiClient {
  readonly credential: ResolvedCredential;
  /** The parsed JSON answer (undefined for an empty body); throws ApiError on non-2xx. */
  request<T = unknown>(req: ApiRequest): Promise<T>;
  /** The response after auth and retries, body unread, whatever its status (svc api). */
  send(req: ApiRequest): Promise<HttpResponse>;
  /** Like send, but throws ApiError on non-2xx (event streams: the caller reads the body). */
  stream(req: ApiRequest): Promise<HttpResponse>;
  /** One page, or every page joined when `all` (has_more false, next_cursor null then). */
  list<T = unknown>(req: ListRequest): Promise<ListPage<T>>;
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

async function readBody(response: HttpResponse): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function createApiClient(ctx: Context, credential: ResolvedCredential): ApiClient {
  const bearer = async (forceRefresh: boolean): Promise<string> => {
    if (credential.kind === 'api_key') return credential.apiKey!;
    // src/auth/session.ts (the login helper's) refreshes under the profile lock.
    const session = await import('../auth/session.js');
    return session.getOAuthAccessToken(ctx, credential.profileName, { forceRefresh });
  };

  /** Until when a "rate limited: waiting" notice already speaks for every request. */
  let quietUntil = -Infinity;

  async function send(req: ApiRequest): Promise<HttpResponse> {
    const { method, url, path } = buildUrl(credential.baseUrl, req);
    const headers: Record<string, string> = { accept: 'application/json', ...(req.headers ?? {}) };
    let body: string | Uint8Array | undefined;
    if (req.rawBody !== undefined) body = req.rawBody;
    else if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers['content-type'] ??= 'application/json';
    }
    const signal = req.signal ? AbortSignal.any([req.signal, ctx.signal]) : ctx.signal;
    let token = await bearer(false);
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      let response: HttpResponse;
      try {
        response = await ctx.http.fetch(url, { method, headers: { ...headers, authorization: `Bearer ${token}` }, body, signal });
      } catch (error) {
        if (isAbortError(error) || ctx.signal.aborted) throw new InterruptedError();
        const decision = decideRetry(method, attempt, { networkError: true }, ctx.clock.now(), random01(ctx));
        if (decision.retry) {
          await ctx.clock.sleep(decision.waitMs, ctx.signal);
          continue;
        }
        const cause = (error as { cause?: { code?: string; message?: string } }).cause;
        // Behind a proxy, the connection that failed may be the proxy's: name it.
        const { proxy } = proxyFor(ctx.env, url);
        throw new NetworkError(
          `cannot reach ${url.origin}${proxy ? ` through the proxy ${proxy}` : ''}: ${cause?.code ?? cause?.message ?? (error as Error).message}` +
            (decision.reason === 'not-idempotent' ? ' (not retried: the request may have been processed)' : ` (after ${attempt} attempts)`),
          decision.reason === 'not-idempotent' ? 'check whether it took effect before running it again' : 'check the network, the base URL (--base-url / SVC_BASE_URL) and any proxy settings',
        );
      }
      if (response.status === 401 && credential.kind === 'oauth' && !refreshed) {
        // The token may have been rotated or expired early: refresh once and retry (design.md "Credentials").
        await response.body?.cancel().catch(() => {});
        refreshed = true;
        token = await bearer(true);
        attempt--;
        continue;
      }
      if (response.ok) return response; // (before the jitter's random bytes, which load node:crypto)
      const retryAfter = response.headers.get('retry-after');
      const decision = decideRetry(method, attempt, { status: response.status, retryAfter }, ctx.clock.now(), random01(ctx));
      if (decision.retry) {
        await response.body?.cancel().catch(() => {});
        if (response.status === 429 && ctx.io.stderr.isTTY && ctx.clock.now() >= quietUntil) {
          // Requests in flight together (translate --lines) are refused and wait together: one notice.
          quietUntil = ctx.clock.now() + decision.waitMs;
          ctx.io.stderr.write(`rate limited: waiting ${Math.ceil(decision.waitMs / 1000)} s as the service asks (Retry-After), then retrying\n`);
        }
        await ctx.clock.sleep(decision.waitMs, ctx.signal);
        continue;
      }
      if (response.status === 429 || response.status >= 502) {
        const wait = parseRetryAfter(retryAfter, ctx.clock.now());
        (response as HttpResponse & { svcRetryNote?: string; svcRetryAfter?: number }).svcRetryNote =
          decision.reason === 'retry-after-too-long' ? 'longer than svc waits' : decision.reason === 'not-idempotent' ? 'not retried: a POST may have been processed' : `after ${attempt} attempts`;
        if (wait !== undefined) (response as HttpResponse & { svcRetryAfter?: number }).svcRetryAfter = Math.ceil(wait / 1000);
      }
      void path;
      return response;
    }
  }

  async function checked(req: ApiRequest): Promise<HttpResponse> {
    const response = await send(req);
    if (response.ok) return response;
    const body = await readBody(response);
    const extra = response as HttpResponse & { svcRetryNote?: string; svcRetryAfter?: number };
    const { method, path } = buildUrl(credential.baseUrl, req);
    throw apiErrorFrom(response.status, body, { method, path, credential, retryAfterSeconds: extra.svcRetryAfter, retryNote: extra.svcRetryNote });
  }

  return {
    credential,
    send,
    stream: checked,
    async request<T>(req: ApiRequest): Promise<T> {
      return (await readBody(await checked(req))) as T;
    },
    async list<T>(req: ListRequest): Promise<ListPage<T>> {
      const limit = req.limit ?? (req.all ? LIST_LIMIT_MAX : undefined);
      const first = (await readBody(await checked({ ...req, query: { ...req.query, limit } }))) as ListPage<T>;
      if (!req.all) return first;
      const data = [...first.data];
      let page = first;
      while (page.has_more && page.next_cursor) {
        page = (await readBody(await checked({ ...req, query: { ...req.query, limit, cursor: page.next_cursor } }))) as ListPage<T>;
        data.push(...page.data);
      }
      return { object: 'list', data, has_more: false, next_cursor: null };
    },
  };
}

function random01(ctx: Pick<Context, 'random'>): number {
  const [a = 0, b = 0] = ctx.random.bytes(2);
  return (a * 256 + b) / 65_536;
}
