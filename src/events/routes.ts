// Where `--forward-to` sends events: `URL` (every event) or `PATTERN=URL` (only the
// types PATTERN selects, e.g. `call.*=http://localhost:3000/calls`), as Stripe's
// per-kind routes; and the extra headers of `--forward-header 'Name: value'`.
import { UsageError } from '../errors.js';
import { headerValueProblem, isHeaderName } from '../api/http.js';
import { matchesType, parseTypePattern, type TypePattern } from './filter.js';
import { SIGNATURE_HEADER } from './sign.js';

export interface ForwardRoute {
  url: string;
  /** Empty: every event. */
  patterns: TypePattern[];
  /** As given, for messages (`call.*=http://…`). */
  label: string;
}

/** Headers svc sets itself: a --forward-header may not replace them. */
const RESERVED_HEADERS = new Set([
  SIGNATURE_HEADER,
  'svc-event-id',
  'svc-event-type',
  'content-type',
  'content-length',
  'host',
  'transfer-encoding',
  'connection',
]);

function parseUrl(text: string, flag: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `${flag} "${text}" is not a URL`,
      'give a full URL, e.g. http://localhost:3000/webhooks, or TYPE=URL such as call.*=http://localhost:3000/calls',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${flag} "${text}" must be an http or https URL`, 'e.g. http://localhost:3000/webhooks');
  }
  if (url.username || url.password) throw new UsageError(`${flag} must not carry a user name or password in the URL`, 'pass credentials with --forward-header');
  return url.toString();
}

export function parseForwardRoute(raw: string, flag = '--forward-to'): ForwardRoute {
  const text = raw.trim();
  // `call.*=http://…`: the part before `=` is a type pattern only when what follows is a URL
  // (a bare URL may carry `=` in its query).
  const routed = /^([A-Za-z0-9_.*,]+)=([a-z][a-z0-9+.-]*:.*)$/.exec(text);
  if (!routed) return { url: parseUrl(text, flag), patterns: [], label: text };
  const patterns: TypePattern[] = [];
  for (const part of routed[1]!.split(',').filter(Boolean)) {
    const pattern = parseTypePattern(part);
    if ('error' in pattern) throw new UsageError(`${flag} ${JSON.stringify(text)}: ${pattern.error.replace(/^--type /, '')}`);
    patterns.push(pattern);
  }
  return { url: parseUrl(routed[2]!, flag), patterns, label: text };
}

export function routeWants(route: ForwardRoute, type: string): boolean {
  return matchesType(type, route.patterns);
}

export function parseForwardHeader(raw: string): [string, string] {
  const colon = raw.indexOf(':');
  const name = colon > 0 ? raw.slice(0, colon).trim() : '';
  const value = colon > 0 ? raw.slice(colon + 1).trim() : '';
  if (!isHeaderName(name)) {
    throw new UsageError(`--forward-header ${JSON.stringify(raw)} is not "Name: value"`, "e.g. --forward-header 'Authorization: Bearer dev-token'");
  }
  const problem = headerValueProblem(value);
  if (problem) throw new UsageError(`--forward-header ${name}: the value has ${problem}, which cannot be sent in a header`);
  if (RESERVED_HEADERS.has(name.toLowerCase())) throw new UsageError(`--forward-header ${name}: svc sets this header itself`);
  return [name.toLowerCase(), value];
}
