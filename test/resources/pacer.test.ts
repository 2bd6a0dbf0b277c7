// The --lines pacer on a virtual clock: however many requests ask at once, no window of
// 60 s sees more than 600 starts (the service's limit per key), a short run goes out
// at once (the burst), and a long one runs near the limit rather than far below it.
import { describe, expect, it } from 'vitest';
import { createPacer } from '../../src/kit/pacer.js';

/** A clock whose sleep advances virtual time at once. */
function virtualClock(start = 1_000_000) {
  let now = start;
  const sleeps: number[] = [];
  return {
    now: () => now,
    sleep: async (ms: number, signal?: AbortSignal) => {
      if (signal?.aborted) throw signal.reason;
      sleeps.push(ms);
      now += ms;
    },
    sleeps,
  };
}

/** The most starts inside any window [t, t + windowMs) beginning at a start. */
function busiestWindow(starts: number[], windowMs: number): number {
  let most = 0;
  let j = 0;
  for (let i = 0; i < starts.length; i += 1) {
    while (j < starts.length && starts[j]! < starts[i]! + windowMs) j += 1;
    most = Math.max(most, j - i);
  }
  return most;
}

describe('pacer', () => {
  it('1,500 requests asking at once never start more than 600 in any 60 s, in the order they asked', async () => {
    const clock = virtualClock();
    const pacer = createPacer(clock);
    const starts: number[] = [];
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 1500 }, (_, i) =>
        pacer.take().then(() => {
          starts.push(clock.now());
          order.push(i);
        }),
      ),
    );
    expect(order).toEqual(Array.from({ length: 1500 }, (_, i) => i));
    expect(busiestWindow(starts, 60_000)).toBeLessThanOrEqual(600);
    expect(busiestWindow(starts, 60_000)).toBeGreaterThanOrEqual(590); // near the limit, not far below
    // The burst: the first ten start at once; then about ten a second.
    expect(starts.slice(0, 10).every((t) => t === starts[0])).toBe(true);
    expect(starts[10]! - starts[0]!).toBeGreaterThan(0);
    const elapsed = starts[starts.length - 1]! - starts[0]!;
    expect(elapsed).toBeGreaterThanOrEqual(((1500 - 10) / 590) * 60_000 - 1);
    expect(elapsed).toBeLessThan(((1500 - 10) / 590) * 60_000 + 1500);
  });

  it('takers arriving over time: still at most the limit in every window, with a smaller limit too', async () => {
    const clock = virtualClock();
    const pacer = createPacer(clock, { limit: 20, windowMs: 1000, burst: 5 });
    const starts: number[] = [];
    for (let round = 0; round < 30; round += 1) {
      // A bunch at once, then a quiet spell that refills the bucket.
      await Promise.all(Array.from({ length: 7 }, () => pacer.take().then(() => starts.push(clock.now()))));
      await clock.sleep(round % 3 === 0 ? 900 : 50);
    }
    expect(starts).toHaveLength(210);
    expect(busiestWindow(starts, 1000)).toBeLessThanOrEqual(20);
  });

  it('a refused burst is a programming error; an abort ends the wait', async () => {
    const clock = virtualClock();
    expect(() => createPacer(clock, { limit: 10, burst: 10 })).toThrow(RangeError);
    const pacer = createPacer(clock, { limit: 3, windowMs: 1000, burst: 1 });
    await pacer.take();
    const abort = new AbortController();
    abort.abort(new Error('stop'));
    await expect(pacer.take(abort.signal)).rejects.toThrow('stop');
    await pacer.take(); // the queue survives a rejected taker
  });
});
