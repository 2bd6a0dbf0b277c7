// A clock for tests of a tail against a real server: real time, except that while held
// every sleep (the tail's wait before reconnecting, 0 ms after a drop) waits for release().
import { setTimeout as delay } from 'node:timers/promises';
import type { Clock } from '../../src/shared/runtime.js';

/**
 * Real time, except that while held every sleep (the tail's wait before reconnecting) waits
 * for release(), which may also move the clock forward (an outage of that length).
 */
export function heldClock() {
  let offset = 0;
  let held = false;
  const waiting = new Set<() => void>();
  const clock: Clock & { hold(): void; release(advanceMs?: number): void } = {
    now: () => Date.now() + offset,
    sleep(ms, signal) {
      if (!held) return delay(ms, undefined, { signal });
      return new Promise<void>((resolve, reject) => {
        const go = () => {
          waiting.delete(go);
          signal?.removeEventListener('abort', stop);
          resolve();
        };
        const stop = () => {
          waiting.delete(go);
          reject(signal?.reason ?? new Error('aborted'));
        };
        if (signal?.aborted) return stop();
        waiting.add(go);
        signal?.addEventListener('abort', stop, { once: true });
      });
    },
    hold: () => void (held = true),
    release(advanceMs = 0) {
      offset += advanceMs;
      held = false;
      for (const go of [...waiting]) go();
    },
  };
  return clock;
}
