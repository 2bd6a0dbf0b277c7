// The API client (docs/design.md "HTTP"): Bearer credential, retries (src/api/retry.ts),
// OAuth refresh once on 401, error mapping (src/api/errors.ts).
import type { ApiCredential } from './credential.js';
import type { Io } from '../io/io.js';
import type { Clock, Env, Random } from '../shared/runtime.js';
import type { HttpResponse, HttpTransport } from './http.js';
import { ENDPOINTS, endpointFor, fillPath, IDEMPOTENCY_HEADER, isCreate, joinUrl } from '../contract/endpoints.js';
import type { EndpointName, HttpMethod } from '../contract/endpoints.js';
import { answerProblem, isAnswered } from '../contract/answers.js';
import { apiErrorFrom } from './errors.js';
import { withRetries, type Outcome, type RetryFacts, type Tried } from './retry.js';
import { CliError, isAbortError, InterruptedError, UsageError } from '../errors.js';
import { DeadlineError, UnexpectedAnswerError } from './limits.js';
import { snippet } from '../io/sanitize.js';
import { proxyFor, proxySettings, type ProxySettings } from './proxy.js';
import { headerValueProblem } from './http.js';
import { ConnectionError, connectionError } from './network.js';

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

/** `C`: the caller's fuller credential (a ResolvedCredential), handed back as given. */
export interface ApiClient<C extends ApiCredential = ApiCredential> {
  readonly credential: C;
  /** The parsed JSON answer (undefined for an empty body); throws ApiError on non-2xx. */
  request<T = unknown>(req: ApiRequest): Promise<T>;
  /** The response after auth and retries, body unread, whatever its status (svc api). */
  send(req: ApiRequest): Promise<HttpResponse>;
  /** One try, throwing ApiError on non-2xx (event streams: the caller reads the body; follow() alone reconnects). */
  stream(req: ApiRequest): Promise<HttpResponse>;
}

/** What the client uses (the context has all of it). */
export interface ApiClientDeps {
  http: HttpTransport;
  clock: Clock;
  random: Random;
  /** The proxy variables, to name a proxy that did not answer (read from them when `proxy` is not given). */
  env: Env;
  /** The proxy settings the context read from its env when it was made. */
  proxy?: ProxySettings;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  /** The 429 wait notice. */
  io: Pick<Io, 'progress'>;
  /** An OAuth credential's access token, refreshed when needed (src/auth/session.ts). */
  accessToken(profile: string, opts: { forceRefresh: boolean; failedToken?: string }): Promise<string>;
  /**
   * The Idempotency-Key of this client's first create (`.2`, `.3`… after it for the next ones),
   * chosen by whoever may have to send the same creates again (svc mcp); else each create
   * draws its own.
   */
  idempotencyKey?: string | undefined;
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

/** An answer of the wrong shape is one error naming the endpoint and what was wrong, never a crash further on or an `undefined` printed. */
function checkShape(req: ApiRequest, response: HttpResponse, answer: unknown): void {
  if (!req.endpoint || !isAnswered(req.endpoint)) return;
  const problem = answerProblem(req.endpoint, answer);
  if (!problem) return;
  const { method, path } = ENDPOINTS[req.endpoint];
  const where = response.url ? new URL(response.url).origin : 'the service';
  throw new UnexpectedAnswerError(
    `${where} answered ${method} ${path} (${req.endpoint}) with ${response.status} and JSON svc cannot use: ${problem}`,
    'check that the address (--base-url / SVC_BASE_URL) is the service; if it is, the service and this svc disagree on docs/contract.md (`svc version`, and update svc)',
  );
}

/** A credential goes in a header: a pasted line break or a non-ASCII character would fail there, as a usage error. */
function checkHeaderSafe(value: string, credential: ApiCredential): void {
  const problem = headerValueProblem(value, true);
  if (!problem) return;
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

/** The credential to send; `failed` is the token the service just refused (401). */
type Bearer = (forceRefresh: boolean, failed?: string) => Promise<string>;

/**
 * The key, or the OAuth access token refreshed under the profile lock (src/auth/session.ts).
 * Requests of one command that need a token at the same moment (svc account's two) share one
 * look-up, so they cause one refresh, and one failure; a 401 names the token refused, so
 * another process's rotation meanwhile is taken rather than refreshed again.
 */
function bearerOf(ctx: ApiClientDeps, credential: ApiCredential): Bearer {
  const tokensUnderWay = new Map<string, Promise<string>>();
  return async (forceRefresh, failed) => {
    if (credential.kind === 'api_key') {
      checkHeaderSafe(credential.apiKey!, credential);
      return credential.apiKey!;
    }
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
}

/** One request as it goes out, whatever try it is. */
interface Outgoing {
  method: string;
  url: URL;
  path: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
  signal: AbortSignal;
  stream: boolean;
  deadline: ReturnType<NonNullable<HttpTransport['deadline']>> | undefined;
}

/** The create a request is, when it is one (a raw `svc api` request by its method and path). */
function createOf(req: ApiRequest, method: string, path: string): EndpointName | undefined {
  const name = req.endpoint ?? endpointFor(method, path);
  return name && isCreate(name) ? name : undefined;
}

function outgoing(ctx: ApiClientDeps, baseUrl: string, req: ApiRequest, stream: boolean, nextKey: () => string): Outgoing {
  const { method, url, path } = buildUrl(baseUrl, req);
  const headers: Record<string, string> = { accept: 'application/json', ...(req.headers ?? {}) };
  // Every create carries a key, the same on each try: a POST sent again makes nothing more.
  if (createOf(req, method, path) && !Object.keys(headers).some((name) => name.toLowerCase() === IDEMPOTENCY_HEADER)) headers[IDEMPOTENCY_HEADER] = nextKey();
  let body: string | Uint8Array | undefined;
  if (req.rawBody !== undefined) body = req.rawBody;
  else if (req.body !== undefined) {
    body = JSON.stringify(req.body);
    headers['content-type'] ??= 'application/json';
  }
  const signal = req.signal ? AbortSignal.any([req.signal, ctx.signal]) : ctx.signal;
  // One deadline for the request and its retries (docs/design.md "HTTP"): a silent server
  // holds a command for SVC_HTTP_TIMEOUT in all, not that much per try.
  const deadline = stream ? undefined : ctx.http.deadline?.(body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  return { method, url, path, headers, body, signal, stream, deadline };
}

/** A connection that failed may be tried again; the deadline, an unsendable header, a refused certificate are final, and already worded. */
async function failedTry(ctx: ApiClientDeps, error: unknown, url: URL): Promise<Tried<ConnectionError>> {
  if (isAbortError(error) || ctx.signal.aborted) throw new InterruptedError();
  const failure =
    error instanceof CliError ? error : await connectionError(error, { url, reached: true, ...proxyFor(ctx.proxy ?? proxySettings(ctx.env), url) });
  if (!(failure instanceof ConnectionError)) throw failure;
  return { value: failure, outcome: { networkError: true, reached: failure.facts.reached, retryable: failure.retryable } };
}

/** A redirect is never followed: the credential must not travel to wherever a server points (docs/design.md "Credentials"). */
async function refusedRedirect(response: HttpResponse, out: Outgoing): Promise<CliError> {
  await response.body?.cancel().catch(() => {});
  const location = response.headers.get('location');
  let target = 'no Location';
  if (location) target = URL.canParse(location, out.url.href) ? new URL(location, out.url).origin : snippet(location);
  const origin = out.url.origin;
  return new CliError(
    `${origin} answered ${out.method} ${out.path} with a redirect (${response.status}) to ${target}; svc does not follow redirects, so the credential stays with ${origin}`,
    1,
    'if the service has moved, set its new address with --base-url / SVC_BASE_URL (and `svc login` again for a stored sign-in)',
  );
}

/** Each try of one request: the token it carries, refreshed once when the service refuses an OAuth token. */
function triesOf(ctx: ApiClientDeps, credential: ApiCredential, bearer: Bearer, out: Outgoing, first: string) {
  let token = first;
  let refreshed = false;
  const tryOnce = async (): Promise<Tried<HttpResponse | ConnectionError>> => {
    let response: HttpResponse;
    try {
      response = await ctx.http.fetch(out.url, {
        method: out.method,
        headers: { ...out.headers, authorization: `Bearer ${token}` },
        body: out.body,
        signal: out.signal,
        ...(out.stream ? { stream: true } : {}),
        ...(out.deadline ? { deadline: out.deadline } : {}),
      });
    } catch (error) {
      return failedTry(ctx, error, out.url);
    }
    if (response.status === 401 && credential.kind === 'oauth' && !refreshed) {
      // The token may have been rotated or expired early: refresh once and try again (docs/design.md "Credentials").
      await response.body?.cancel().catch(() => {});
      refreshed = true;
      token = await bearer(true, token);
      return tryOnce();
    }
    if (response.status >= 300 && response.status < 400) throw await refusedRedirect(response, out);
    return response.ok ? { value: response } : { value: response, outcome: { status: response.status, retryAfter: response.headers.get('retry-after') } };
  };
  return tryOnce;
}

/** The 429 wait notice: requests refused together (translate --lines) wait together, under one notice. */
function rateLimitNotice(ctx: ApiClientDeps): (waitMs: number, outcome: Outcome) => void {
  let quietUntil = -Infinity;
  return (waitMs, outcome) => {
    if (!('status' in outcome) || outcome.status !== 429 || ctx.clock.now() < quietUntil) return;
    quietUntil = ctx.clock.now() + waitMs;
    ctx.io.progress(`rate limited: waiting ${Math.ceil(waitMs / 1000)} s as the service asks (Retry-After), then retrying`);
  };
}

/** `org`: the organization the service confirmed for the credential, named in error messages. */
export function createApiClient<C extends ApiCredential>(ctx: ApiClientDeps, credential: C, org?: string): ApiClient<C> {
  const bearer = bearerOf(ctx, credential);
  const onWait = rateLimitNotice(ctx);
  let creates = 0;
  const nextKey = (): string => {
    creates += 1;
    if (ctx.idempotencyKey) return creates === 1 ? ctx.idempotencyKey : `${ctx.idempotencyKey}.${creates}`;
    return `svc_${Buffer.from(ctx.random.bytes(16)).toString('hex')}`;
  };

  /** The answer after auth and retries, whatever its status, and how its tries ended. */
  async function exchange(req: ApiRequest, stream = false): Promise<{ response: HttpResponse; retry: RetryFacts }> {
    const out = outgoing(ctx, credential.baseUrl, req, stream, nextKey);
    const tryOnce = triesOf(ctx, credential, bearer, out, await bearer(false));
    if (stream) {
      // One try: a stream's reconnects (and their backoff) are follow()'s alone (src/api/reconnect.ts).
      const { value } = await tryOnce();
      if (value instanceof ConnectionError) throw value;
      return { response: value, retry: { attempts: 1 } };
    }
    const { value, retry } = await withRetries(out.method, tryOnce, {
      clock: ctx.clock,
      random: ctx.random,
      signal: ctx.signal,
      ...(out.deadline ? { deadlineAt: out.deadline.at } : {}),
      discard: async (tried) => {
        if (!(tried instanceof ConnectionError)) await tried.body?.cancel().catch(() => {});
      },
      onWait,
      idempotent: Object.keys(out.headers).some((name) => name.toLowerCase() === IDEMPOTENCY_HEADER),
    });
    if (value instanceof ConnectionError) {
      // Retries cut short by the overall deadline: that is what the user is told, as when a try outlasts it.
      if (retry.stopped === 'deadline' && out.deadline) throw new DeadlineError(out.url.origin, out.deadline.ms, value.facts.reached ? 'sent' : 'not-sent');
      throw value.after({ attempts: retry.attempts, notRepeated: retry.stopped === 'not-idempotent' });
    }
    return { response: value, retry };
  }

  async function checked(req: ApiRequest, stream = false): Promise<HttpResponse> {
    const { response, retry } = await exchange(req, stream);
    if (response.ok) return response;
    const body = await readBody(response);
    const { method, path } = buildUrl(credential.baseUrl, req);
    throw apiErrorFrom(response.status, body, { method, path, credential, org, origin: new URL(credential.baseUrl).origin, retry });
  }

  return {
    credential,
    send: async (req) => (await exchange(req)).response,
    stream: (req) => checked(req, true),
    async request<T>(req: ApiRequest): Promise<T> {
      const response = await checked(req);
      const answer = await readBody(response);
      checkShape(req, response, answer);
      return answer as T;
    },
  };
}
