// The dashboard's Requests page: every request the emulator served, in a bounded ring (the
// oldest entry is overwritten), with its credential named by id (never a secret) and its
// bodies cut short and stripped of secrets.
import type { Context, MiddlewareHandler } from 'hono';
import { PREFIX } from '../../contract/constants.js';
import { presentedSecret } from '../auth.js';
import type { EmulatorEnv } from '../http.js';
import { sha256 } from '../ids.js';
import { basicCredentials } from '../oauth.js';
import type { State } from '../state.js';

export interface RequestEntry {
  /** Numbered from 1 since the emulator started: the ring's newest entry has the highest. */
  n: number;
  /** Emulator clock, ms. */
  at: number;
  method: string;
  path: string;
  status: number;
  /** `key_… (test)`, `app svc_app_… (name) (live)`, `revoked key key_… (name) (test)`, `unknown key`…; null when none was sent (credentialSent). */
  credential: string | null;
  latency_ms: number;
  request_body: string | null;
  response_body: string | null;
}

/** Entries kept; the memory bound with 100,000 requests is this many entries of at most 2 × BODY_CHARS. */
export const REQUEST_LOG_SIZE = 1000;
/** Bodies are kept up to this many characters (then cut with a note). */
export const BODY_CHARS = 4096;

export class RequestLog {
  private readonly ring: (RequestEntry | undefined)[];
  private readonly listeners = new Set<() => void>();
  /** How many requests were logged since start (the ring keeps the last `size`). */
  total = 0;

  constructor(readonly size = REQUEST_LOG_SIZE) {
    this.ring = new Array<RequestEntry | undefined>(size);
  }

  add(entry: Omit<RequestEntry, 'n'>): void {
    this.total++;
    this.ring[(this.total - 1) % this.size] = { n: this.total, ...entry };
    for (const listener of this.listeners) listener();
  }

  /** Newest first. */
  *newest(): Generator<RequestEntry> {
    for (let n = this.total; n > 0 && n > this.total - this.size; n--) {
      const entry = this.ring[(n - 1) % this.size];
      if (entry) yield entry;
    }
  }

  /** Forgets the kept entries that `forget` picks (their numbers are not given out again). */
  forget(forget: (entry: RequestEntry) => boolean): void {
    for (let i = 0; i < this.size; i++) if (this.ring[i] && forget(this.ring[i]!)) this.ring[i] = undefined;
    for (const listener of this.listeners) listener();
  }

  get length(): number {
    return Math.min(this.total, this.size);
  }

  clear(): void {
    this.ring.fill(undefined);
    this.total = 0;
    for (const listener of this.listeners) listener();
  }

  /** Tells the listeners that something changed without a logged request (a dashboard action). */
  touch(): void {
    for (const listener of this.listeners) listener();
  }

  /** Called after each added request; returns the function that stops it. */
  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

const SECRET_FIELDS = /^(key|client_secret|access_token|refresh_token|password|code|code_verifier|csrf)$/;
const SECRET_PREFIXES = [PREFIX.liveKey, PREFIX.testKey, PREFIX.clientSecret, PREFIX.accessToken, PREFIX.refreshToken];
const REDACTED = '[secret: not shown]';

/** A JSON or form body with every secret replaced: fields that hold one, and any value that looks like one. */
export function redactBody(text: string, contentType: string): string {
  if (/json/i.test(contentType)) {
    try {
      return JSON.stringify(
        JSON.parse(text),
        (name, value: unknown) => {
          if (SECRET_FIELDS.test(name) && value !== null && typeof value !== 'object') return REDACTED;
          if (typeof value === 'string' && SECRET_PREFIXES.some((prefix) => value.startsWith(prefix))) return REDACTED;
          return value;
        },
        2,
      );
    } catch {
      // Not JSON after all (the emulator answered it 422): the text is cut of anything secret-looking below.
    }
  }
  if (/x-www-form-urlencoded/i.test(contentType)) {
    const form = new URLSearchParams(text);
    for (const [name, value] of [...form]) {
      if (SECRET_FIELDS.test(name) || SECRET_PREFIXES.some((prefix) => value.startsWith(prefix))) form.set(name, REDACTED);
    }
    return form.toString();
  }
  return text
    .replace(/("(?:key|client_secret|access_token|refresh_token|password|code|code_verifier|csrf)"\s*:\s*")[^"]*/g, `$1${REDACTED}`)
    .replace(/svc_(live|test|cs|oat|ort)_[A-Za-z0-9_-]+/g, REDACTED);
}

/** Bodies longer than this are not read for secrets at all (a state export, say): only their size is kept. */
const READ_CHARS = 64 * 1024;

/** What the Requests page keeps of a body: stripped of secrets, then cut short. */
function kept(text: string, contentType: string): string {
  if (text.length > READ_CHARS) return `(${text.length} characters, not kept)`;
  const shown = redactBody(text, contentType);
  return shown.length > BODY_CHARS ? `${shown.slice(0, BODY_CHARS)}\n… (${shown.length - BODY_CHARS} more characters not kept)` : shown;
}

const TEXT_BODY = /json|x-www-form-urlencoded|^text\/(plain|html)/i;

/**
 * The credential a request sent, named as the Requests page says it (never the secret): the key
 * or app that was accepted, or what was refused ("revoked key key_… (name)", "unknown key"), or
 * the app of HTTP Basic on the token endpoint. Null when none was sent.
 */
export function credentialSent(state: State, c: Context<EmulatorEnv>): string | null {
  const used = c.get('credential');
  if (used?.key_id) return `${used.key_id} (${used.mode})`;
  const appName = (clientId: string) => `app ${clientId}${state.apps.get(clientId) ? ` (${state.apps.get(clientId)!.name})` : ''}`;
  if (used?.client_id) return `${appName(used.client_id)} (${used.mode})`;
  const authorization = c.req.header('authorization') ?? '';
  const basic = /^Basic\s+(\S+)\s*$/i.exec(authorization)?.[1];
  if (basic) {
    let clientId: string;
    try {
      clientId = basicCredentials(basic).id;
    } catch {
      return 'malformed client credentials';
    }
    return state.apps.has(clientId) ? appName(clientId) : 'unknown app';
  }
  const secret = presentedSecret({ authorization, apiKey: c.req.header('x-api-key') });
  if (!secret) return null;
  const hash = sha256(secret);
  const key = state.keysByHash.get(hash);
  if (key) return `${key.revoked ? 'revoked key' : 'key'} ${key.id}${key.name ? ` (${key.name})` : ''} (${key.mode})`;
  const token = state.accessTokens.get(hash);
  if (token) {
    const grant = state.grants.get(token.grant_id);
    return `${token.revoked || !grant?.active ? 'ended' : 'expired'} token of ${grant ? appName(grant.client_id) : 'an app'}`;
  }
  return secret.startsWith(PREFIX.accessToken) ? 'unknown token' : 'unknown key';
}

/** Records each request into `log`, except those `skip` names (the dashboard's own). */
export function requestLogger(log: RequestLog, state: State, skip: (path: string) => boolean): MiddlewareHandler<EmulatorEnv> {
  const now = () => state.clock.now();
  return async (c, next) => {
    if (skip(c.req.path)) return next();
    const started = performance.now();
    const at = now();
    const requestType = c.req.header('content-type') ?? '';
    const declared = Number(c.req.header('content-length') ?? NaN);
    // A small text body is read from a copy before the route reads it; a large or chunked one is not kept.
    let requestBody: string | null = null;
    if (declared > 0 && declared <= 4 * BODY_CHARS && TEXT_BODY.test(requestType)) {
      requestBody = await c.req.raw
        .clone()
        .text()
        .catch(() => null);
    }
    // The answer's body as the route gave it (c.json's object, c.body's text): cheaper than
    // copying the Response, and an event stream or a page is never read.
    let answered: { object: unknown } | { text: string } | null = null;
    const { json, body } = c;
    c.json = ((object: unknown, ...rest: unknown[]) => {
      answered = { object };
      return (json as (...args: unknown[]) => Response)(object, ...rest);
    }) as typeof c.json;
    c.body = ((data: unknown, ...rest: unknown[]) => {
      answered = typeof data === 'string' ? { text: data } : null;
      return (body as (...args: unknown[]) => Response)(data, ...rest);
    }) as typeof c.body;
    try {
      await next();
    } finally {
      const responseType = c.res.headers.get('content-type') ?? '';
      let responseBody: string | null = null;
      const given = answered as { object: unknown } | { text: string } | null;
      if (/event-stream/i.test(responseType)) responseBody = '(an event stream)';
      else if (given && TEXT_BODY.test(responseType) && !/html/i.test(responseType)) {
        responseBody = 'object' in given ? JSON.stringify(given.object) : given.text;
      }
      log.add({
        at,
        method: c.req.method,
        path: c.req.path + (c.req.url.includes('?') ? c.req.url.slice(c.req.url.indexOf('?')) : ''),
        status: c.res.status,
        credential: credentialSent(state, c),
        latency_ms: Math.round((performance.now() - started) * 10) / 10,
        request_body: requestBody === null ? null : kept(requestBody, requestType),
        response_body: responseBody === null ? null : kept(responseBody, responseType),
      });
    }
  };
}
