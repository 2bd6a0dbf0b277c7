// The headers of a request: which may be sent (the one rule for every header svc sends, `-H`
// and `--forward-header` too), and how --debug shows them and a body with every secret redacted.
import { redact, redactForm, redactText } from '../io/redact.js';
import { formatBytes, MAX_HEADER_BYTES } from './limits.js';

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

export function redactHeader(name: string, value: string, sent: boolean): string {
  const lower = name.toLowerCase();
  if (lower === 'authorization') {
    const [scheme, ...rest] = value.split(' ');
    return rest.length ? `${scheme} ${redact(rest.join(' '))}` : redact(value);
  }
  if (lower === 'x-api-key' || lower === 'cookie' || lower === 'set-cookie') return redact(value);
  if (sent && !SHOWN_REQUEST_HEADERS.has(lower)) return `${redact(value)} (${value.length} characters)`;
  return redactText(value);
}

export function debugBody(body: string | Uint8Array | undefined, contentType: string | undefined): string | undefined {
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
