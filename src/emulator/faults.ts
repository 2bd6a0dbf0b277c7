// Injected failures (POST /_emulator/faults): the next `count` requests whose path starts
// with `path_prefix` fail with 429 or 502, so clients' retry paths can be tested; or, with
// `delay_ms`, are handled as usual and their answer held that long (real time), so a client
// can be stopped after the service acted and before it heard what was done.
import { HttpError } from './errors.js';
import type { Fault, State } from './state.js';

/** The longest an answer is held. */
export const MAX_DELAY_MS = 60_000;

export function addFault(state: State, fault: Omit<Fault, 'remaining'> & { count: number }): void {
  state.faults.push({
    path_prefix: fault.path_prefix,
    ...(fault.status !== undefined ? { status: fault.status } : {}),
    ...(fault.delay_ms !== undefined ? { delay_ms: Math.min(fault.delay_ms, MAX_DELAY_MS) } : {}),
    ...(fault.method !== undefined ? { method: fault.method.toUpperCase() } : {}),
    remaining: fault.count,
  });
}

/** Consumes one matching fault: the error to answer with, or how long to hold the answer; null for none. */
export function takeFault(state: State, method: string, path: string): HttpError | { delayMs: number } | null {
  const fault = state.faults.find((f) => f.remaining > 0 && path.startsWith(f.path_prefix) && (f.method === undefined || f.method === method));
  if (!fault) return null;
  fault.remaining--;
  state.faults = state.faults.filter((f) => f.remaining > 0);
  if (fault.delay_ms !== undefined) return { delayMs: fault.delay_ms };
  return fault.status === 429
    ? new HttpError(429, 'too many requests (injected fault)', { 'Retry-After': '1' })
    : new HttpError(502, 'an upstream service failed (injected fault); the request may be retried');
}
