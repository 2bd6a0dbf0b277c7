// Runs an async task per input with a bounded number in flight, and hands the results
// on strictly in input order. `translate --lines` uses it: several requests overlap,
// yet line N is always printed before line N+1, whatever order the answers come in
// (a 429 waited out on one request just holds the lines behind it).

export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

/**
 * Calls `task` for each item of `inputs` (at most `concurrency` at once) and `emit` with
 * each result in input order. The first failure stops reading new inputs; the tasks
 * already started are awaited (so none is left running), and the failure is thrown.
 */
export async function mapInOrder<I, O>(
  inputs: AsyncIterable<I> | Iterable<I>,
  concurrency: number,
  task: (input: I, index: number) => Promise<O>,
  emit: (output: O, index: number) => void | Promise<void>,
): Promise<number> {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be a positive integer');
  // Settled promises: a failure behind the head must not become an unhandled rejection.
  const window: Array<Promise<Settled<O>>> = [];
  let next = 0; // index of the result emitted next
  let started = 0;

  const settle = (input: I, index: number): Promise<Settled<O>> =>
    task(input, index).then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );

  const emitHead = async (): Promise<void> => {
    const head = await window.shift()!;
    if (!head.ok) {
      await Promise.all(window.splice(0)); // let the rest finish before failing
      throw head.error;
    }
    await emit(head.value, next);
    next += 1;
  };

  for await (const input of inputs) {
    if (window.length >= concurrency) await emitHead();
    window.push(settle(input, started));
    started += 1;
  }
  while (window.length > 0) await emitHead();
  return started;
}
