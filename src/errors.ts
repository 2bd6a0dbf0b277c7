// Typed errors. Anything below main.ts throws one of these; main.ts maps it to the
// exit code of docs/design.md "Output and errors" and prints its message (and hint) on stderr.
import { newerFormatMessage } from './shared/format-version.js';

/** docs/design.md exit code table. */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  unauthenticated: 3,
  forbidden: 4,
  notFound: 5,
  conflict: 6,
  rateLimited: 7,
  paymentRequired: 8,
  upstream: 9,
  interrupted: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class CliError extends Error {
  readonly exitCode: number;
  /** The next step for the user, printed on its own line after the message. */
  readonly hint: string | undefined;
  constructor(message: string, exitCode: number = EXIT.failure, hint?: string) {
    super(message);
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.hint = hint;
  }
}

/** Bad flags, arguments or local input: exit 2. Thrown by every `parse()`. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, EXIT.usage, hint);
  }
}

/** No usable credential (none stored, 401, refresh refused): exit 3. */
export class AuthError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, EXIT.unauthenticated, hint);
  }
}

/** config.json / credentials.json unreadable, corrupt or unwritable: exit 1. */
export class ConfigError extends CliError {
  readonly path: string;
  constructor(message: string, path: string, hint?: string) {
    super(message, EXIT.failure, hint);
    this.path = path;
  }
}

/**
 * A file written by a newer svc (config.json, credentials.json, a --checkpoint or --dead-letter
 * file, the MCP audit log, the emulator's state file or an --import document): one exit code
 * and one stable code whichever file it is, so a script tells it from a broken file.
 */
export class NewerFormatFileError extends ConfigError {
  readonly errorCode = 'format_newer';
  constructor(what: string, path: string, found: number, newest: number) {
    const { message, hint } = newerFormatMessage(what, path, found, newest);
    super(message, path, hint);
  }
}

/** The OS keychain failed, timed out or is absent. */
export class KeychainError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, EXIT.failure, hint);
  }
}

/** A request reached the service and got a non-2xx answer (after retries). */
export class ApiError extends CliError {
  readonly status: number;
  /** The parsed body (`{"detail": …}` for /v1, RFC 6749 §5.2 for /oauth2), or the raw text. */
  readonly body: unknown;
  constructor(message: string, status: number, exitCode: number, body: unknown, hint?: string) {
    super(message, exitCode, hint);
    this.status = status;
    this.body = body;
  }
}

/** The network failed (connection refused, reset, timeout) after retries: exit 9. */
export class NetworkError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, EXIT.upstream, hint);
  }
}

/**
 * A report (svc doctor's) found failures: exit 1. The report on stdout already lists each
 * failure with its fix, so the error is only its verdict (code `checks_failed`).
 */
export class ChecksFailedError extends CliError {
  readonly errorCode = 'checks_failed';
  constructor(message: string) {
    super(message, EXIT.failure);
  }
}

/**
 * `--jq`: jq failed on the answer (an `error`, a `halt_error`): svc ends as jq ends, with jq's
 * exit status, and jq's own words, already on stderr, are the whole message.
 */
export class JqFailedError extends CliError {
  constructor(readonly status: number) {
    super(`the --jq filter failed (jq exited ${status})`, status);
  }
}

/** Ctrl-C: exit 130, nothing more to say. */
/** An OAuth access token that only a refresh would make usable, where nothing may be changed (`svc doctor`'s checks): not refreshed. */
export class RefreshWithheldError extends CliError {
  constructor(readonly profile: string) {
    super(`the access token of profile "${profile}" has expired, and refreshing it would rotate the sign-in`, EXIT.failure);
  }
}

export class InterruptedError extends CliError {
  constructor() {
    super('interrupted', EXIT.interrupted);
  }
}

/** Maps anything thrown to an exit code. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof CliError) return error.exitCode;
  if (isAbortError(error)) return EXIT.interrupted;
  return EXIT.failure;
}

export function isAbortError(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && ((error as { name?: unknown }).name === 'AbortError' || (error as { code?: unknown }).code === 'ABORT_ERR')
  );
}
