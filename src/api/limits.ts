// The bounds of docs/design.md "HTTP" (Bounded): how much of an answer svc reads, and how long
// a request may take as a whole. A server that is broken, hostile, or not the service at
// all (a captive portal, a wrong --base-url) ends a command with a clear error and a
// documented exit code instead of memory growing or a hang.
import { CliError, EXIT, NetworkError, UsageError } from '../errors.js';
import { parseDurationMs } from '../validate/duration.js';

const MiB = 1024 * 1024;

/** A JSON answer or an error body: the service's largest (a page of 100 objects) is a few KiB. */
export const MAX_BODY_BYTES = 8 * MiB;
/** One line, and one event, of an event stream (an event is one JSON object on one line). */
export const MAX_SSE_EVENT_BYTES = 1 * MiB;
/** The whole of a non-streaming request, from connecting to the body's last byte. */
export const DEFAULT_DEADLINE_MS = 60_000;
/**
 * A large upload (a voice message, up to 10 MiB) gets this much more time per byte sent, so
 * a slow uplink is not cut off: at 64 KiB/s, 10 MiB adds 160 s.
 */
export const UPLOAD_ALLOWANCE_BYTES_PER_S = 64 * 1024;
/** The variable that changes the deadline (seconds, or a duration such as 90s or 2m). */
export const DEADLINE_ENV = 'SVC_HTTP_TIMEOUT';

export function formatBytes(bytes: number): string {
  return bytes >= MiB && bytes % MiB === 0 ? `${bytes / MiB} MiB` : bytes >= 1024 ? `${Math.round(bytes / 1024)} KiB` : `${bytes} bytes`;
}

export function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** An answer larger than svc reads: exit 9 (the upstream misbehaves), never retried. */
export class ResponseTooLargeError extends CliError {
  constructor(what: string, limit: number) {
    super(
      `${what} is larger than ${formatBytes(limit)}, the most svc reads; stopped reading`,
      EXIT.upstream,
      'check the address (--base-url / SVC_BASE_URL): the service never sends that much',
    );
  }
}

/** How far a request got before its deadline passed. */
export type DeadlineReach = 'not-sent' | 'sent' | 'may-be-processed';

/**
 * The request as a whole took longer than the deadline: exit 9, not retried (it would take as
 * long again). Whether it could have reached the service decides what it says: nothing was
 * sent (the connection or TLS handshake never finished), or, for a request that is not
 * repeated (a POST), that it may have been processed.
 */
export class DeadlineError extends CliError {
  /** A timeout is the network's failure, as README's table says (not an upstream's 5xx). */
  readonly errorCode = 'network_failed';
  constructor(
    origin: string,
    deadlineMs: number,
    readonly reach: DeadlineReach = 'sent',
  ) {
    super(
      reach === 'not-sent'
        ? `cannot reach ${origin}: no connection made within ${formatSeconds(deadlineMs)}; nothing was sent`
        : `no complete answer from ${origin} within ${formatSeconds(deadlineMs)}; gave up${reach === 'may-be-processed' ? ': the request may have been processed' : ''}`,
      EXIT.upstream,
      reach === 'may-be-processed'
        ? 'check whether it took effect (e.g. with the matching `list` command) before running it again'
        : `the service or the network is too slow; try again, or allow longer with ${DEADLINE_ENV}=<seconds>`,
    );
  }
}

/** Node's limit on an answer's head (its --max-http-header-size default). */
export const MAX_HEADER_BYTES = 16 * 1024;

/**
 * An answer whose headers are larger than Node reads: the server's fault, and another try
 * gets the same answer. Exit 9, said once, never retried.
 */
export class HeadersTooLargeError extends CliError {
  /** Node's parser (HPE_HEADER_OVERFLOW) and undici's (UND_ERR_HEADERS_OVERFLOW) say it so. */
  static is(error: unknown): boolean {
    const e = error as { code?: unknown; cause?: { code?: unknown } } | null;
    const code = typeof e?.code === 'string' ? e.code : e?.cause?.code;
    return code === 'HPE_HEADER_OVERFLOW' || code === 'UND_ERR_HEADERS_OVERFLOW';
  }

  constructor(origin: string) {
    super(
      `${origin} answered with headers larger than ${formatBytes(MAX_HEADER_BYTES)}, the most Node reads; not retried (it would answer the same)`,
      EXIT.upstream,
      'check the address (--base-url / SVC_BASE_URL) and any proxy: the service never sends headers that large',
    );
  }
}

/**
 * Codes of a TLS certificate Node refused (untrusted, expired, another host's): the request
 * was never sent, and trying again will not change the answer.
 */
const REFUSED_CERTIFICATE_CODES: ReadonlySet<string> = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** What to do about a refused certificate. */
const REFUSED_CERTIFICATE_FIX =
  'if a proxy or your network inspects TLS, give Node its CA certificate: NODE_EXTRA_CA_CERTS=/path/to/ca.pem (for `svc emulator --https`, the ca.pem its banner names); otherwise check the base URL (--base-url / SVC_BASE_URL)';

/**
 * A TLS certificate Node refused: exit 9, never retried (another try meets the same
 * certificate) and never made insecure. Behind a proxy or network that inspects TLS, Node
 * needs its CA (NODE_EXTRA_CA_CERTS).
 */
export class CertificateRefusedError extends NetworkError {
  /** The code of the refusal (DEPTH_ZERO_SELF_SIGNED_CERT, ERR_TLS_CERT_ALTNAME_INVALID, …), or undefined when `error` is none. */
  static codeOf(error: unknown): string | undefined {
    const e = error as { code?: unknown; cause?: { code?: unknown } } | null;
    const code = typeof e?.code === 'string' ? e.code : e?.cause?.code;
    return typeof code === 'string' && REFUSED_CERTIFICATE_CODES.has(code) ? code : undefined;
  }

  constructor(
    readonly origin: string,
    readonly certificateCode: string,
    proxy?: string,
  ) {
    super(
      `cannot reach ${origin}${proxy ? ` through the proxy ${proxy}` : ''}: its TLS certificate was refused (${certificateCode}); nothing was sent`,
      REFUSED_CERTIFICATE_FIX,
    );
  }
}

/** A 2xx answer that is not the JSON the service sends: a wrong address, a portal, a proxy's page. Exit 1. */
export class UnexpectedAnswerError extends CliError {
  constructor(message: string, hint = 'check the address (--base-url / SVC_BASE_URL) and any proxy; a captive portal or a login page answers like this') {
    super(message, EXIT.failure, hint);
  }
}

/** SVC_HTTP_TIMEOUT, in svc's one duration grammar (src/validate/duration.ts: 90s, 1m30s; a bare 120 or 0.5 is seconds), up to a day; unset means 60 s. */
export function deadlineFromEnv(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env[DEADLINE_ENV]?.trim();
  if (!raw) return DEFAULT_DEADLINE_MS;
  const refused = () =>
    new UsageError(
      `${DEADLINE_ENV}="${raw}" is not a time limit`,
      `give seconds (e.g. ${DEADLINE_ENV}=120) or a duration such as 90s, 2m or 1m30s, up to a day`,
    );
  let ms: number;
  try {
    ms = parseDurationMs(raw, DEADLINE_ENV, { bareSeconds: true });
  } catch {
    throw refused();
  }
  if (ms > 86_400_000) throw refused();
  return ms;
}
