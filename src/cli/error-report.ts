// Errors a script can read. Every failure has a stable code (as oauth4webapi gives each
// of its errors one); with --json it is printed on stderr as one JSON object:
//   {"error":{"code","status","message","hint","exit_code"}}
// The list below is documented in README ("Exit codes") and only ever grows.
import { ApiError, CliError, ConfigError, EXIT, KeychainError, NetworkError, exitCodeOf } from '../errors.js';
import { redactText } from '../io/redact.js';
import { statusCode } from '../api/errors.js';

export const ERROR_CODES = {
  usage: 'bad flags, arguments or local input (exit 2)',
  invalid_input: 'the service refused the request body or parameters (422; exit 2)',
  not_authenticated: 'no credential, or the service refused it (401, refresh refused; exit 3)',
  scope_missing: 'the credential lacks a scope (403; exit 4)',
  not_found: 'no such object, or one of another organization or mode (404; exit 5)',
  conflict: "the object's state does not allow it (409; exit 6)",
  rate_limited: 'too many requests, after waiting and retrying (429; exit 7)',
  balance_empty: "the organization's prepaid balance has run out (402; exit 8)",
  upstream_failed: 'an upstream service failed (502, 503, 504; exit 9)',
  network_failed: 'the service could not be reached (connection, proxy, timeout; exit 9)',
  bad_request: 'the service cannot carry the request out as it is (400; exit 1)',
  config_invalid: 'config.json or credentials.json is unreadable or invalid (exit 1)',
  format_newer: 'a file svc reads was written by a newer svc; it was left untouched (exit 1)',
  keychain_failed: 'the OS keychain failed or timed out (exit 1)',
  checks_failed: 'svc doctor found a failed check; its report lists each with its fix (exit 1)',
  failed: 'any other failure (exit 1)',
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

/** The stable code of anything thrown: one the error names itself, else from its status, class or exit code. */
export function errorCodeOf(error: unknown): ErrorCode {
  const own = (error as { errorCode?: unknown } | null)?.errorCode;
  if (error instanceof CliError && isErrorCode(own)) return own;
  if (error instanceof ApiError) {
    const code = statusCode(error.status);
    if (code) return code;
  }
  if (error instanceof NetworkError) return 'network_failed';
  if (error instanceof ConfigError) return 'config_invalid';
  if (error instanceof KeychainError) return 'keychain_failed';
  switch (exitCodeOf(error)) {
    case EXIT.usage:
      return 'usage';
    case EXIT.unauthenticated:
      return 'not_authenticated';
    case EXIT.forbidden:
      return 'scope_missing';
    case EXIT.notFound:
      return 'not_found';
    case EXIT.conflict:
      return 'conflict';
    case EXIT.rateLimited:
      return 'rate_limited';
    case EXIT.paymentRequired:
      return 'balance_empty';
    case EXIT.upstream:
      return 'upstream_failed';
    default:
      return 'failed';
  }
}

export interface ErrorReport {
  error: {
    code: ErrorCode;
    /** The HTTP status of the answer that failed, or null when no answer was involved. */
    status: number | null;
    message: string;
    hint: string | null;
    exit_code: number;
  };
}

/** What `--json` prints on stderr for a failure. Message and hint redacted like the text form. */
export function errorReport(error: unknown, message: string, hint: string | undefined): ErrorReport {
  return {
    error: {
      code: errorCodeOf(error),
      status: error instanceof ApiError ? error.status : null,
      message: redactText(message),
      hint: hint === undefined ? null : redactText(hint),
      exit_code: exitCodeOf(error),
    },
  };
}
