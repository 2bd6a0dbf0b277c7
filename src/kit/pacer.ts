// A token bucket that keeps request starts inside the service's rate limit (600 per
// minute per key or app, docs/contract.md "Limits") instead of finding the limit by 429s.
// `translate --lines` takes one token before each request; all its tasks share one
// pacer. Time comes from the context's clock, so tests run it on a virtual clock.
import type { Clock } from '../context.js';
import { LIMITS } from '../contract/constants.js';

export interface PacerOptions {
  /** Starts allowed in any window of `windowMs`, burst included. */
  limit?: number;
  windowMs?: number;
  /** Starts allowed at once after a quiet spell (the bucket's size). */
  burst?: number;
}

export interface Pacer {
  /** Resolves when one more request may start; callers are served in the order they asked. */
  take(signal?: AbortSignal): Promise<void>;
}

/** About how long `count` more starts take at this pace from a full bucket: an estimate for the user (translate --lines). */
export function pacedDuration(count: number, options: PacerOptions = {}): number {
  const { limit, windowMs, burst } = pacerShape(options);
  return (Math.max(0, count - burst) * windowMs) / (limit - burst);
}

function pacerShape(options: PacerOptions): Required<PacerOptions> {
  return { limit: options.limit ?? LIMITS.requestsPerMinute, windowMs: options.windowMs ?? 60_000, burst: options.burst ?? 10 };
}

/**
 * The bucket holds `burst` tokens and refills at (limit - burst) per window, so any
 * window of `windowMs` sees at most burst + (limit - burst) = limit starts: a sliding
 * guarantee, which also holds for the service's fixed windows.
 */
export function createPacer(clock: Pick<Clock, 'now' | 'sleep'>, options: PacerOptions = {}): Pacer {
  const { limit, windowMs, burst } = pacerShape(options);
  if (!(burst >= 1 && burst < limit)) throw new RangeError('burst must be at least 1 and below the limit');
  const perMs = (limit - burst) / windowMs;
  let tokens = burst;
  let last = clock.now();
  // One taker at a time: a queue keeps the order and never lets two sleepers share a token.
  let queue: Promise<void> = Promise.resolve();

  const takeNow = async (signal?: AbortSignal): Promise<void> => {
    for (;;) {
      const now = clock.now();
      tokens = Math.min(burst, tokens + Math.max(0, now - last) * perMs);
      last = now;
      if (tokens >= 1) {
        tokens -= 1;
        return;
      }
      await clock.sleep(Math.max(1, Math.ceil((1 - tokens) / perMs)), signal);
    }
  };

  return {
    take(signal) {
      const turn = queue.then(() => takeNow(signal));
      queue = turn.catch(() => {});
      return turn;
    },
  };
}
