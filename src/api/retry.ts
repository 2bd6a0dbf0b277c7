// When to retry (design.md "HTTP"): 429 waits Retry-After and retries any method (the
// service did not process it); 502 and network errors retry idempotent methods with
// exponential backoff and jitter; a POST after a 502 or a dropped connection may have
// been processed, so it is not repeated. Pure, so the decisions are unit-tested.

export const MAX_ATTEMPTS = 3;
/** A Retry-After longer than this fails at once with the figure instead of waiting. */
export const MAX_RETRY_AFTER_MS = 60_000;
const BACKOFF_BASE_MS = 250;
const BACKOFF_CAP_MS = 4_000;

export const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);

export type Outcome = { status: number; retryAfter?: string | null } | { networkError: true };

export type Decision = { retry: true; waitMs: number } | { retry: false; reason?: 'attempts' | 'retry-after-too-long' | 'not-idempotent' | 'final' };

/** RFC 9110 §10.2.3: delay-seconds or an HTTP-date. Returns ms, or undefined when unusable. */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with full jitter; `random01` in [0, 1). */
export function backoffMs(attempt: number, random01: number): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * random01);
}

/** `attempt` is the 1-based number of the attempt that just produced `outcome`. */
export function decideRetry(method: string, attempt: number, outcome: Outcome, now: number, random01: number): Decision {
  if ('networkError' in outcome) {
    if (!IDEMPOTENT.has(method)) return { retry: false, reason: 'not-idempotent' };
    return attempt < MAX_ATTEMPTS ? { retry: true, waitMs: backoffMs(attempt, random01) } : { retry: false, reason: 'attempts' };
  }
  if (outcome.status === 429) {
    const wait = parseRetryAfter(outcome.retryAfter, now) ?? backoffMs(attempt, random01);
    if (wait > MAX_RETRY_AFTER_MS) return { retry: false, reason: 'retry-after-too-long' };
    return attempt < MAX_ATTEMPTS ? { retry: true, waitMs: wait } : { retry: false, reason: 'attempts' };
  }
  if (outcome.status === 502 || outcome.status === 503 || outcome.status === 504) {
    if (!IDEMPOTENT.has(method)) return { retry: false, reason: 'not-idempotent' };
    return attempt < MAX_ATTEMPTS ? { retry: true, waitMs: backoffMs(attempt, random01) } : { retry: false, reason: 'attempts' };
  }
  return { retry: false, reason: 'final' };
}
