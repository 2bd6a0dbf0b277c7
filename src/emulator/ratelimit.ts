// 600 requests per minute per API key and per connected app (docs/contract.md "Limits").
// The window is fixed: it opens at a credential's first request and lasts 60 s of the
// emulator's clock, so tests can cross it by advancing the clock.
import { LIMITS } from '../contract/constants.js';
import type { State } from './state.js';

const WINDOW_MS = 60_000;

export interface RateDecision {
  allowed: boolean;
  headers: Record<string, string>;
}

/** Counts one request against `key`; a refused request is not counted nor carried out. */
export function takeRequest(state: State, key: string): RateDecision {
  const now = state.clock.now();
  let window = state.rateWindows.get(key);
  if (!window || now >= window.start + WINDOW_MS) {
    window = { start: now, count: 0 };
    state.rateWindows.set(key, window);
  }
  const resetSeconds = Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
  const allowed = window.count < LIMITS.requestsPerMinute;
  if (allowed) window.count++;
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(LIMITS.requestsPerMinute),
    'RateLimit-Remaining': String(LIMITS.requestsPerMinute - window.count),
    'RateLimit-Reset': String(resetSeconds),
  };
  if (!allowed) headers['Retry-After'] = String(resetSeconds);
  return { allowed, headers };
}
