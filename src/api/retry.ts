// When to retry (docs/design.md "HTTP"), decided here once: 429 waits Retry-After and retries any
// method (the service did not process it); 502/503/504 and network errors retry idempotent
// methods with exponential backoff and jitter; a POST after a 502 or a dropped connection may
// have been processed, so it is not repeated, but one whose connection was never made (nothing
// was sent) is. One backoff (backoffDelay, also a stream's reconnects) and one loop
// (withRetries, every request and a refresh); how the tries ended comes back as a value.
import type { Clock, Random } from '../shared/runtime.js';
import { ApiError, CliError, NetworkError } from '../errors.js';
import { ConnectionError } from './network.js';
import { CertificateRefusedError } from './limits.js';

export const MAX_ATTEMPTS = 3;
/** A Retry-After longer than this fails at once with the figure instead of waiting. */
export const MAX_RETRY_AFTER_MS = 60_000;
const BACKOFF_BASE_MS = 250;
const BACKOFF_CAP_MS = 10_000;

export const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

/** Statuses that say "not now" rather than "no": every retry of svc asks this set (the token refresh too). */
const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

export function isTransientStatus(status: number): boolean {
  return TRANSIENT_STATUSES.has(status);
}

/**
 * What one try ended in, when it was not a plain answer. A network failure says whether the
 * request may have reached the service (`reached`) and whether another try can go differently
 * (`retryable`: not for a scheme that does not match the server's).
 */
export type Outcome = { status: number; retryAfter?: string | null } | { networkError: true; reached?: boolean; retryable?: boolean };

export type StopReason = 'attempts' | 'retry-after-too-long' | 'not-idempotent' | 'final';

/** Why the loop stopped: a decision's reason, or the request's overall deadline, which the next wait would pass. */
export type LoopStop = Exclude<StopReason, 'final'> | 'deadline';

export type Decision = { retry: true; waitMs: number } | { retry: false; reason?: StopReason };

/** RFC 9110 §10.2.3: delay-seconds or an HTTP-date. Returns ms, or undefined when unusable. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The one backoff: the delay before try `attempt + 1` (a request's retry, or a stream's
 * reconnect `attempt` after a loss), exponential from 250 ms, capped at 10 s, with equal
 * jitter (half fixed, half random) so that many clients cut at once do not come back in the
 * same instant. `random01` is in [0, 1).
 */
export function backoffDelay(attempt: number, random01: number): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * random01);
}

/** A number in [0, 1) from random bytes (the context's randomness, so tests can fix it). */
export function random01From(bytes: Uint8Array): number {
  const b = bytes;
  return (((b[0] ?? 0) << 16) | ((b[1] ?? 0) << 8) | (b[2] ?? 0)) / 0x1000000;
}

/** Whether an outcome of `method` may be tried again at all (attempts and waits aside). */
export function isRetryable(method: string, outcome: Outcome, idempotent = IDEMPOTENT.has(method)): boolean {
  if ('networkError' in outcome) return outcome.retryable !== false && (outcome.reached === false || idempotent);
  if (outcome.status === 429) return true;
  return TRANSIENT_STATUSES.has(outcome.status) && idempotent;
}

/**
 * Whether a request that failed after its own tries is worth another go later: what a
 * stream's reconnect (follow()) and a chat's stream ask. The network (not a scheme or a
 * certificate that will not change), the transient statuses a request retries too (429, 502,
 * 503, 504: a 500 is final everywhere), and a body cut mid-way (not svc's own error).
 */
export function isRetryableFailure(error: unknown): boolean {
  if (error instanceof ConnectionError) return error.retryable;
  if (error instanceof CertificateRefusedError) return false;
  if (error instanceof NetworkError) return true;
  if (error instanceof ApiError) return isTransientStatus(error.status);
  return !(error instanceof CliError);
}

/** `attempt` is the 1-based number of the attempt that just produced `outcome`. */
export function decideRetry(method: string, attempt: number, outcome: Outcome, now: number, random01: number, idempotent = IDEMPOTENT.has(method)): Decision {
  const transient = 'networkError' in outcome ? outcome.retryable !== false : TRANSIENT_STATUSES.has(outcome.status);
  if (!transient) return { retry: false, reason: 'final' };
  if (!isRetryable(method, outcome, idempotent)) return { retry: false, reason: 'not-idempotent' };
  const wait = ('status' in outcome && outcome.status === 429 ? parseRetryAfter(outcome.retryAfter, now) : undefined) ?? backoffDelay(attempt, random01);
  if (wait > MAX_RETRY_AFTER_MS) return { retry: false, reason: 'retry-after-too-long' };
  return attempt < MAX_ATTEMPTS ? { retry: true, waitMs: wait } : { retry: false, reason: 'attempts' };
}

/** How a request's tries ended, handed back with the last answer (never stamped on it). */
export interface RetryFacts {
  /** How many tries were made. */
  attempts: number;
  /** Why a failure was not tried again; undefined when the last outcome was final (or a success). */
  stopped?: LoopStop;
  /** The last answer's Retry-After, in ms. */
  retryAfterMs?: number;
}

/** What one try produced: its value, and an outcome when it was a failure that may be tried again. */
export interface Tried<T> {
  value: T;
  outcome?: Outcome;
}

export interface RetryOptions<T> {
  clock: Clock;
  random: Random;
  /** Ctrl-C: ends a wait. */
  signal: AbortSignal;
  /** A wait that would end at or past this (the request's overall deadline) is not waited. */
  deadlineAt?: number;
  /** Drops a value that is about to be retried (an answer's unread body). */
  discard?(value: T): Promise<void>;
  /** Before each wait (the 429 notice). */
  onWait?(waitMs: number, outcome: Outcome): void;
  /** A POST carrying its Idempotency-Key: sent again, it makes nothing more, so it is repeated as a PUT is. */
  idempotent?: boolean;
}

/** The one retry loop: tries `tryOnce` until its outcome is final or the rules above stop it. */
export async function withRetries<T>(
  method: string,
  tryOnce: (attempt: number) => Promise<Tried<T>>,
  opts: RetryOptions<T>,
): Promise<{ value: T; retry: RetryFacts }> {
  for (let attempt = 1; ; attempt++) {
    const { value, outcome } = await tryOnce(attempt);
    if (!outcome) return { value, retry: { attempts: attempt } };
    const now = opts.clock.now();
    // Random bytes only when a backoff may need them (they load node:crypto).
    const idempotent = opts.idempotent === true || IDEMPOTENT.has(method);
    const decision = decideRetry(method, attempt, outcome, now, isRetryable(method, outcome, idempotent) ? random01From(opts.random.bytes(3)) : 0, idempotent);
    // A wait that outlasts the request's deadline would only end in it: the answer now, with the figure.
    const pastDeadline = decision.retry && opts.deadlineAt !== undefined && now + decision.waitMs >= opts.deadlineAt;
    if (!decision.retry || pastDeadline) {
      const retryAfterMs = 'status' in outcome ? parseRetryAfter(outcome.retryAfter, now) : undefined;
      const stopped: LoopStop | undefined = pastDeadline ? 'deadline' : decision.retry || decision.reason === 'final' ? undefined : decision.reason;
      return { value, retry: { attempts: attempt, ...(stopped ? { stopped } : {}), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) } };
    }
    await opts.discard?.(value);
    opts.onWait?.(decision.waitMs, outcome);
    await opts.clock.sleep(decision.waitMs, opts.signal);
  }
}
