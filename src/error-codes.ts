// What each failure means to a script, decided here once: its stable code (printed with --json,
// src/cli/error-report.ts), its exit code (docs/design.md "Output and errors") and the statuses
// of the service's answers that mean it (docs/contract.md "Errors"). svc help exit-codes (docs/topics/exit-codes.md)
// documents the list, which only ever grows. Any status not listed is a plain failure.
import { EXIT } from './errors.js';

interface ErrorMeaning {
  readonly exit: number;
  /** The service's statuses that mean this, when an answer was involved. */
  readonly statuses: readonly number[];
  readonly meaning: string;
}

export const ERROR_CODES = {
  usage: { exit: EXIT.usage, statuses: [], meaning: 'bad flags, arguments or local input' },
  invalid_input: { exit: EXIT.usage, statuses: [422], meaning: 'the service refused the request body or parameters' },
  not_authenticated: { exit: EXIT.unauthenticated, statuses: [401], meaning: 'no credential, or the service refused it (or refused a refresh)' },
  scope_missing: { exit: EXIT.forbidden, statuses: [403], meaning: 'the credential lacks a scope' },
  not_found: { exit: EXIT.notFound, statuses: [404], meaning: 'no such object, or one of another organization or mode' },
  conflict: { exit: EXIT.conflict, statuses: [409], meaning: "the object's state does not allow it" },
  rate_limited: { exit: EXIT.rateLimited, statuses: [429], meaning: 'too many requests, after waiting and retrying' },
  balance_empty: { exit: EXIT.paymentRequired, statuses: [402], meaning: "the organization's prepaid balance has run out" },
  upstream_failed: { exit: EXIT.upstream, statuses: [502, 503, 504], meaning: 'an upstream service failed' },
  network_failed: { exit: EXIT.upstream, statuses: [], meaning: 'the service could not be reached (connection, proxy, timeout)' },
  bad_request: { exit: EXIT.failure, statuses: [400], meaning: 'the service cannot carry the request out as it is' },
  config_invalid: { exit: EXIT.failure, statuses: [], meaning: 'config.json or credentials.json is unreadable or invalid' },
  format_newer: { exit: EXIT.failure, statuses: [], meaning: 'a file svc reads was written by a newer svc; it was left untouched' },
  keychain_failed: { exit: EXIT.failure, statuses: [], meaning: 'the OS keychain failed or timed out' },
  checks_failed: { exit: EXIT.failure, statuses: [], meaning: 'svc doctor found a failed check; its report lists each with its fix' },
  failed: { exit: EXIT.failure, statuses: [], meaning: 'any other failure' },
} as const satisfies Record<string, ErrorMeaning>;
export type ErrorCode = keyof typeof ERROR_CODES;

const CODE_OF_STATUS: ReadonlyMap<number, ErrorCode> = new Map(
  (Object.entries(ERROR_CODES) as [ErrorCode, ErrorMeaning][]).flatMap(([code, meaning]) => meaning.statuses.map((status) => [status, code] as const)),
);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

/** The stable code of a status the service answered, when it has one of its own. */
export function statusCode(status: number): ErrorCode | undefined {
  return CODE_OF_STATUS.get(status);
}

/** The exit code of a status the service answered (a revoke's failure, say, is mapped by it too). */
export function exitOf(status: number): number {
  const code = statusCode(status);
  return code === undefined ? EXIT.failure : ERROR_CODES[code].exit;
}

/** The code of a failure known only by its exit code: the first listed with it, or `failed` for exit 1. */
export function codeOfExit(exit: number): ErrorCode {
  if (exit === EXIT.failure) return 'failed';
  return (Object.keys(ERROR_CODES) as ErrorCode[]).find((code) => ERROR_CODES[code].exit === exit) ?? 'failed';
}
