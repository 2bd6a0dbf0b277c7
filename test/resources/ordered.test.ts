import { describe, expect, it } from 'vitest';
import { mapInOrder } from '../../src/kit/translate/ordered.js';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('mapInOrder', () => {
  it('emits in input order although answers arrive out of order, never over the concurrency', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const emitted: string[] = [];
    // Later items answer sooner: a naive Promise.all-as-they-come would reorder them.
    const inputs = Array.from({ length: 20 }, (_, i) => i);
    const count = await mapInOrder(
      inputs,
      4,
      async (n) => {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await delay((20 - n) % 7);
        inFlight -= 1;
        return `r${n}`;
      },
      (out) => {
        emitted.push(out);
      },
    );
    expect(count).toBe(20);
    expect(emitted).toEqual(inputs.map((n) => `r${n}`));
    expect(maxInFlight).toBeGreaterThan(1);
    expect(maxInFlight).toBeLessThanOrEqual(4);
  });

  it('reads an async source lazily and stops at the first failure, after what came before it', async () => {
    let read = 0;
    async function* source() {
      for (let i = 0; i < 100; i += 1) {
        read += 1;
        yield i;
      }
    }
    const emitted: number[] = [];
    const failure = mapInOrder(
      source(),
      3,
      async (n) => {
        await delay(1);
        if (n === 5) throw new Error('boom at 5');
        return n;
      },
      (n) => {
        emitted.push(n);
      },
    );
    await expect(failure).rejects.toThrow('boom at 5');
    expect(emitted).toEqual([0, 1, 2, 3, 4]);
    expect(read).toBeLessThan(100);
  });

  it('handles an empty input', async () => {
    expect(
      await mapInOrder(
        [],
        4,
        async () => 1,
        () => {},
      ),
    ).toBe(0);
  });
});
