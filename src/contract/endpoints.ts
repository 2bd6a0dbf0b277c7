// The single table of docs/contract.md: every path, method and scope, for both sides.
// The CLI's commands name an endpoint and never build URL strings; the emulator's routes
// are registered from the same rows (src/emulator/routes/wire.ts), and a test fails when
// a row has no route or a route no row. Adjusting to the real service is a change here.
import { LIMITS } from './constants.js';
import type { Scope } from './constants.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

export interface Endpoint {
  method: HttpMethod;
  /** Path with `{name}` placeholders filled from `params`. */
  path: string;
  /** The scope the service requires (docs/contract.md "Resources"); null for OAuth endpoints. */
  scope: Scope | null;
  /** A list endpoint (`limit`/`cursor`, `{object:"list"}` answers). */
  list?: boolean;
  /** Billable in live mode (402 at zero balance). */
  billable?: boolean;
  /** The answer is `text/event-stream`. */
  stream?: boolean;
  /** Form-encoded body (RFC 6749 endpoints). */
  form?: boolean;
  /** Creates an object: takes an `Idempotency-Key` (docs/contract.md "Idempotent creates"). */
  create?: boolean;
}

export const ENDPOINTS = {
  // Authorization server (docs/contract.md "Token endpoint", "Revocation" and "Authorization server").
  'oauth.metadata': { method: 'GET', path: '/.well-known/oauth-authorization-server', scope: null },
  'oauth.token': { method: 'POST', path: '/oauth2/token', scope: null, form: true },
  'oauth.revoke': { method: 'POST', path: '/oauth2/revoke', scope: null, form: true },

  'account.get': { method: 'GET', path: '/v1/account', scope: 'account:read' },
  'balance.get': { method: 'GET', path: '/v1/balance', scope: 'account:read' },
  'prices.list': { method: 'GET', path: '/v1/prices', scope: 'account:read', list: true },

  'calls.list': { method: 'GET', path: '/v1/calls', scope: 'calls:read', list: true },
  'calls.get': { method: 'GET', path: '/v1/calls/{id}', scope: 'calls:read' },
  'calls.create': { method: 'POST', path: '/v1/calls', scope: 'calls:write', billable: true, create: true },
  'calls.end': { method: 'POST', path: '/v1/calls/{id}/end', scope: 'calls:write' },
  'calls.dial': { method: 'POST', path: '/v1/calls/{id}/dial', scope: 'calls:write', billable: true, create: true },

  'links.list': { method: 'GET', path: '/v1/links', scope: 'calls:read', list: true },
  'links.create': { method: 'POST', path: '/v1/links', scope: 'calls:write', create: true },

  'lines.list': { method: 'GET', path: '/v1/lines', scope: 'calls:write', list: true },
  'lines.create': { method: 'POST', path: '/v1/lines', scope: 'calls:write', billable: true, create: true },
  'lines.release': { method: 'DELETE', path: '/v1/lines/{id}', scope: 'calls:write' },

  'chats.list': { method: 'GET', path: '/v1/chats', scope: 'sessions:read', list: true },
  'chats.get': { method: 'GET', path: '/v1/chats/{id}', scope: 'sessions:read' },
  'chats.create': { method: 'POST', path: '/v1/chats', scope: 'sessions:write', create: true },
  'chats.close': { method: 'POST', path: '/v1/chats/{id}/close', scope: 'sessions:write' },
  'chats.messages.list': { method: 'GET', path: '/v1/chats/{id}/messages', scope: 'sessions:read', list: true },
  'chats.messages.create': { method: 'POST', path: '/v1/chats/{id}/messages', scope: 'sessions:write', billable: true, create: true },
  'chats.voice': { method: 'POST', path: '/v1/chats/{id}/voice', scope: 'sessions:write', billable: true, create: true },
  'chats.stream': { method: 'GET', path: '/v1/chats/{id}/stream', scope: 'sessions:read', stream: true },

  translate: { method: 'POST', path: '/v1/translate', scope: 'translate', billable: true, create: true },

  'events.list': { method: 'GET', path: '/v1/events', scope: 'events:read', list: true },
  'events.stream': { method: 'GET', path: '/v1/events/stream', scope: 'events:read', stream: true },
} as const satisfies Record<string, Endpoint>;

export type EndpointName = keyof typeof ENDPOINTS;

/** The header a create carries so that sending it again makes nothing more (docs/contract.md "Idempotent creates"). */
export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** How long the service remembers a key: its answer is given again within this. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** A key is 1–255 printable ASCII characters (spaces inside it, none at its ends, which HTTP would trim). */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/;

/** Whether `name` creates an object (and so takes an Idempotency-Key). */
export function isCreate(name: EndpointName): boolean {
  return (ENDPOINTS[name] as Endpoint).create === true;
}

/** List answers (docs/contract.md "Conventions"). */
export interface ListPage<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export const LIST_LIMIT_MAX = LIMITS.listLimitMax;

/** Fills `{name}` placeholders, each URL-encoded; a missing one is a programming error. */
export function fillPath(path: string, params: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`missing path parameter {${name}} for ${path}`);
    return encodeURIComponent(value);
  });
}

/** The endpoint a raw request (`svc api`) is, by method and path (`/v1/calls/call_1/dial` is calls.dial); undefined for none. */
export function endpointFor(method: string, path: string): EndpointName | undefined {
  const upper = method.toUpperCase();
  return (Object.keys(ENDPOINTS) as EndpointName[]).find((name) => {
    const endpoint: Endpoint = ENDPOINTS[name];
    if (endpoint.method !== upper) return false;
    const segments = endpoint.path.split('/');
    const given = path.split('/');
    return segments.length === given.length && segments.every((segment, i) => (/^\{\w+\}$/.test(segment) ? given[i] !== '' : segment === given[i]));
  });
}

/** Joins a base URL (which may carry a path prefix) and an absolute path. */
export function joinUrl(baseUrl: string, path: string): URL {
  const base = baseUrl.endsWith('/') ? baseUrl.slice(0, -1) : baseUrl;
  return new URL(base + path);
}
