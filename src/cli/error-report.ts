// Errors a script can read. Every failure has a stable code (as oauth4webapi gives each
// of its errors one); with --json it is printed on stderr as one JSON object:
//   {"error":{"code","status","message","hint","exit_code"}}
// The codes, with their statuses and exit codes, are one table: src/error-codes.ts.
import { ApiError, CliError, ConfigError, KeychainError, NetworkError, exitCodeOf } from '../errors.js';
import { redactText } from '../io/redact.js';
import { type ErrorCode, codeOfExit, isErrorCode, statusCode } from '../error-codes.js';

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
  return codeOfExit(exitCodeOf(error));
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
