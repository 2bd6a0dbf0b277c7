// A virtual clock for code that takes an injected Clock: time moves only when every
// pending promise has settled (the program is idle, waiting on its sleeps), and then
// jumps straight to the earliest sleep. Heartbeats and timeouts run in no real time,
// in a fixed order, however loaded the machine. Only for code whose other waits are
// in memory (no real I/O): real I/O is not "idle" to it.
import type { Clock } from '../../src/context.js';

export interface VirtualClock extends Clock {
  /** Virtual milliseconds since the clock was made. */
  elapsed(): number;
}

/**
 * `ready` (for code that does real I/O): time moves only while it holds, e.g. while no request
 * awaits its answer (countingTransport); otherwise it is asked again shortly. How long the I/O
 * takes then never shows as time passed, however busy the machine.
 */
export function virtualClock(start = Date.UTC(2030, 0, 1), ready: () => boolean = () => true): VirtualClock {
  let now = start;
  let sequence = 0;
  const timers: Array<{ at: number; seq: number; fire: () => void }> = [];
  let scheduled = false;
  // setImmediate runs after the microtask queue drained: nothing else can happen without time moving.
  const schedule = () => {
    if (scheduled || timers.length === 0) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      if (!ready()) {
        scheduled = true;
        setTimeout(() => ((scheduled = false), schedule()), 1);
        return;
      }
      timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = timers.shift();
      if (!next) return;
      now = Math.max(now, next.at);
      next.fire();
      schedule();
    });
  };
  return {
    now: () => now,
    elapsed: () => now - start,
    sleep(ms, signal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const onAbort = () => {
          const index = timers.indexOf(timer);
          if (index >= 0) timers.splice(index, 1);
          reject(signal!.reason);
        };
        const timer = {
          at: now + Math.max(0, ms),
          seq: sequence++,
          fire: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        timers.push(timer);
        schedule();
      });
    },
  };
}

/** A transport that counts the requests awaiting their answer's head: virtualClock's `ready` while none does. */
export function countingTransport<T extends { fetch(url: string | URL, init?: never): Promise<unknown> }>(real: T): T & { waiting(): number } {
  let waiting = 0;
  const counted = Object.create(real) as T & { waiting(): number };
  counted.fetch = (async (url: string | URL, init?: never) => {
    waiting++;
    try {
      return await real.fetch(url, init);
    } finally {
      waiting--;
    }
  }) as T['fetch'];
  counted.waiting = () => waiting;
  return counted;
}
