// Injected failures (POST /_emulator/faults): the next `count` requests whose path starts
// with `path_prefix` fail with 429 or 502, so clients' retry paths can be tested.
import { HttpError } from './errors.js';
import type { Fault, State } from './state.js';

export function addFault(state: State, fault: Omit<Fault, 'remaining'> & { count: number }): void {
  state.faults.push({ path_prefix: fault.path_prefix, status: fault.status, remaining: fault.count });
}

/** Consumes one matching fault and returns the error to answer with, if any. */
export function takeFault(state: State, path: string): HttpError | null {
  const fault = state.faults.find((f) => f.remaining > 0 && path.startsWith(f.path_prefix));
  if (!fault) return null;
  fault.remaining--;
  state.faults = state.faults.filter((f) => f.remaining > 0);
  return fault.status === 429
    ? new HttpError(429, 'too many requests (injected fault)', { 'Retry-After': '1' })
    : new HttpError(502, 'an upstream service failed (injected fault); the request may be retried');
}
