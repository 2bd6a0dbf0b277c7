// Every status of docs/contract.md "Errors" becomes a message naming the cause and the next
// step, with docs/design.md's exit code. The message names profile, organization and mode,
// so it is never unclear which account a failure concerns (stripe-cli#1135).
import { ApiError } from '../errors.js';
import { exitOf } from '../error-codes.js';
import type { ApiCredential } from './credential.js';
import { ENDPOINTS, endpointFor } from '../contract/endpoints.js';
import { redactText } from '../io/redact.js';
import type { RetryFacts } from './retry.js';

/** The most of a server's error text quoted in a message. */
const MAX_DETAIL_CHARS = 1000;

export interface ErrorSubject {
  method: string;
  path: string;
  credential?: Pick<ApiCredential, 'kind' | 'source' | 'mode' | 'profileName' | 'otherMode'>;
  /** The organization the service confirmed for the credential (src/credentials/confirmed.ts), to name it. */
  org?: string | undefined;
  /** The origin asked, to name it when what answered may not be the service. */
  origin?: string;
  /** How the request's tries ended (src/api/retry.ts), for a 429 or 5xx. */
  retry?: RetryFacts;
}

/** Why a 429/502 was not tried further, in the message's parentheses. */
function retryNote(retry: RetryFacts | undefined): string | undefined {
  if (!retry) return undefined;
  if (retry.stopped === 'retry-after-too-long' || retry.stopped === 'deadline') return 'longer than svc waits';
  if (retry.stopped === 'not-idempotent') return 'not retried: a POST may have been processed';
  return retry.attempts > 1 || retry.stopped === 'attempts' ? `after ${retry.attempts} attempts` : undefined;
}

/** The service's own error body (`{"detail": …}`, docs/contract.md "Errors"), as against a page from whatever else answered. */
function isServiceError(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'detail' in body;
}

interface ValidationItem {
  loc?: unknown[];
  msg?: string;
  type?: string;
}

/** The `detail` of an error body as text; a 422 list becomes "field: problem" lines. */
export function detailText(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim() || undefined;
  if (typeof body !== 'object' || body === null) return undefined;
  const detail = (body as { detail?: unknown }).detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) return (detail as ValidationItem[]).map(validationLine).join('; ');
  const oauth = body as { error?: unknown; error_description?: unknown };
  if (typeof oauth.error === 'string') return typeof oauth.error_description === 'string' ? `${oauth.error}: ${oauth.error_description}` : oauth.error;
  return undefined;
}

function validationLine(item: ValidationItem): string {
  const loc = Array.isArray(item.loc) ? item.loc.filter((p, i) => !(i === 0 && (p === 'body' || p === 'query'))).join('.') : '';
  return `${loc || 'request'}: ${item.msg ?? item.type ?? 'invalid'}`;
}

/** `this key or app lacks the <scope> scope` → the scope. */
export function missingScope(detail: string | undefined): string | undefined {
  return detail ? /lacks the (\S+) scope/.exec(detail)?.[1] : undefined;
}

/**
 * The scope the service itself said a credential lacks: a 403 with the spec's JSON
 * `{"detail":"… lacks the <scope> scope"}` (docs/contract.md "Conventions"). A 403 of another
 * kind (a proxy's HTML page, a firewall) says nothing of the credential.
 */
export function refusedScope(status: number, body: unknown): string | undefined {
  if (status !== 403 || !isServiceError(body)) return undefined;
  const detail = (body as { detail: unknown }).detail;
  return typeof detail === 'string' ? missingScope(detail) : undefined;
}

/** The scope a failed request lacked, when the service's own 403 said so; undefined for any other failure. */
export function lackedScope(error: unknown): string | undefined {
  return error instanceof ApiError ? refusedScope(error.status, error.body) : undefined;
}

function subjectLabel(subject: Pick<ErrorSubject, 'credential' | 'org'>): string {
  const c = subject.credential;
  if (!c) return '';
  const org = subject.org;
  const who = c.source === 'env' ? 'SVC_API_KEY' : `profile "${c.profileName}"`;
  return ` [${who}${org ? `, ${org}` : ''}, ${c.mode} mode]`;
}

/**
 * How to try something free of charge: `--test` picks a stored profile's test key, but
 * with SVC_API_KEY set a mode flag contradicting its key is a usage error, so the way
 * there is a test key in the variable.
 */
export function tryFree(credential: Pick<ApiCredential, 'source'> | undefined): string {
  return credential?.source === 'env'
    ? 'try it free in test mode: set SVC_API_KEY to a test key (svc_test_…), or unset it and use a stored profile with --test'
    : 'try it free in test mode with --test';
}

/**
 * A credential without the scope an operation needs: the words of a 403, also when svc
 * knows it from the stored scopes before asking (src/kit/resources.ts).
 */
export function lacksScope(scope: string, subject: Pick<ErrorSubject, 'credential' | 'org'>): { message: string; hint: string } {
  const c = subject.credential;
  const profileFlag = c && c.source === 'profile' ? ` --profile ${c.profileName}` : '';
  const hint =
    c?.kind === 'oauth'
      ? `sign in again granting it: \`svc login${profileFlag} --scopes ${scope}\` (plus the scopes you already use)`
      : c?.source === 'env'
        ? `create a key with the ${scope} scope in the organization's API settings and set SVC_API_KEY to it`
        : `create a key with the ${scope} scope in the organization's API settings, then \`svc keys add${profileFlag}\``;
  return { message: `forbidden: the credential lacks the ${scope} scope${subjectLabel(subject)}`, hint };
}

/** A 404 of an object's path may be another organization's or mode's object; a path the API does not have is just that. */
function notFoundHint(subject: ErrorSubject): string | undefined {
  const endpoint = endpointFor(subject.method, subject.path.split('?')[0]!);
  if (endpoint === undefined) return 'the API has no such path: `svc api --help` lists the paths it has, e.g. /v1/calls or /v1/calls/{id}';
  const c = subject.credential;
  if (!c || !ENDPOINTS[endpoint].path.includes('{')) return undefined;
  // The profile holds a credential of the other mode: the likeliest cause, said as the fix.
  if (c.otherMode)
    return `this is ${c.mode} mode, and ${c.otherMode}-mode objects answer 404 here: if it is a ${c.otherMode}-mode object, add \`--${c.otherMode}\` (objects of another organization answer 404 too)`;
  return `objects of another organization or of the other mode answer 404 too (this is ${c.mode} mode)`;
}

/** What to do about a credential the service refused (401). */
function refusedHint(c: ErrorSubject['credential'], profileFlag: string): string {
  if (!c) return 'run `svc login` or `svc keys add`';
  if (c.source === 'env') return 'SVC_API_KEY is missing, unknown or revoked: set a valid key, or unset it to use a stored profile';
  return c.kind === 'oauth'
    ? `the sign-in has expired or was disconnected: run \`svc login${profileFlag}\``
    : `the key may have been revoked: run \`svc keys add${profileFlag}\` with a new key`;
}

export function apiErrorFrom(status: number, body: unknown, subject: ErrorSubject): ApiError {
  const full = detailText(body);
  // A detail is the server's text: one page of it at most (control characters are made inert where it is printed).
  const detail = full !== undefined && full.length > MAX_DETAIL_CHARS ? `${full.slice(0, MAX_DETAIL_CHARS)}…` : full;
  const where = subjectLabel(subject);
  const request = `${subject.method} ${subject.path}`;
  const c = subject.credential;
  const profileFlag = c && c.source === 'profile' ? ` --profile ${c.profileName}` : '';
  const said = detail ? `: ${redactText(detail)}` : '';
  const note = retryNote(subject.retry);
  const retryAfterSeconds = subject.retry?.retryAfterMs === undefined ? undefined : Math.ceil(subject.retry.retryAfterMs / 1000);
  switch (status) {
    case 400:
      return new ApiError(
        `the service refused ${request}${said}${where}`,
        status,
        exitOf(status),
        body,
        c?.mode === 'test' && subject.path.includes('/dial') ? 'phones cannot be dialled in test mode; use --live' : undefined,
      );
    case 401:
      return new ApiError(`not authenticated: the service refused the credential${said}${where}`, status, exitOf(status), body, refusedHint(c, profileFlag));
    case 402:
      // Dialling cannot be tried in test mode (it refuses it): no such advice there.
      return new ApiError(
        `payment required: the organization's prepaid balance has run out${where}`,
        status,
        exitOf(status),
        body,
        `top up the prepaid balance (see \`svc account balance\`)${subject.path.endsWith('/dial') ? '' : `, or ${tryFree(c)}`}`,
      );
    case 403: {
      const scope = refusedScope(status, body);
      if (scope) {
        const { message, hint } = lacksScope(scope, subject);
        return new ApiError(message, status, exitOf(status), body, hint);
      }
      return new ApiError(`forbidden: ${detail ?? 'the credential may not do this'}${where}`, status, exitOf(status), body);
    }
    case 404:
      if (!isServiceError(body)) {
        // Not the service's answer: a web server, a proxy, another program at that port.
        const at = subject.origin ?? 'the address';
        return new ApiError(
          `not found: ${request}${where}; ${at} answered without the service's error body, so it may not be the service`,
          status,
          exitOf(status),
          body,
          `check the address: --base-url / SVC_BASE_URL${subject.origin ? ` (now ${subject.origin})` : ''}`,
        );
      }
      return new ApiError(`not found: ${request}${said}${where}`, status, exitOf(status), body, notFoundHint(subject));
    case 409:
      // The service's detail says what the state is ("the call has ended"): said once, in the message.
      return new ApiError(
        detail ? `conflict: ${redactText(detail)}${where}` : `conflict: the object's state does not allow this${where}`,
        status,
        exitOf(status),
        body,
        detail
          ? 'the matching `list` command shows its current state'
          : 'it may already be ended, closed or released: the matching `list` command shows its current state',
      );
    case 422:
      return new ApiError(`invalid request${said}${where}`, status, exitOf(status), body, "check the arguments and flags against the command's --help");
    case 429:
      return new ApiError(
        `rate limited: too many requests${retryAfterSeconds !== undefined ? `; the service asks to wait ${retryAfterSeconds} s` : ''}${note ? ` (${note})` : ''}${where}`,
        status,
        exitOf(status),
        body,
        'the limit is 600 requests per minute per key or app: wait and run it again',
      );
    case 502:
    case 503:
    case 504:
      return new ApiError(
        `upstream failure: ${status}${said}${note ? ` (${note})` : ''}${where}`,
        status,
        exitOf(status),
        body,
        'an upstream service (interpretation, telephony) failed; the request may be retried',
      );
    case 431:
      return new ApiError(
        `${subject.origin ?? 'the service'} refused ${request}: its headers are larger than it accepts (431)${where}`,
        status,
        exitOf(status),
        body,
        'a header is far too long: check the key (SVC_API_KEY or the stored one) and any -H header you added',
      );
    default:
      return new ApiError(`${request} failed with ${status}${said}${where}`, status, exitOf(status), body);
  }
}
