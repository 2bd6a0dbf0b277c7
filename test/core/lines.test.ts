// linesWithin (src/io/lines.ts): stdin's chunks split at "\n" alone, wherever the chunks
// break, and a line past the bound given as a LongLine at once, reading no further.
import { describe, expect, it } from 'vitest';
import { linesWithin } from '../../src/io/lines.js';

async function collect(chunks: Iterable<string>, max: number) {
  const lines: unknown[] = [];
  for await (const line of linesWithin(
    (async function* () {
      yield* chunks;
    })(),
    max,
  ))
    lines.push(line);
  return lines;
}

describe('linesWithin', () => {
  it('splits at "\\n" alone, across chunk breaks; a lone "\\r" and a CRLF\'s "\\r" stay in the line', async () => {
    expect(await collect(['a\tb\nc', '\rd\n', '\ne\r', '\nlast'], 10)).toEqual(['a\tb', 'c\rd', '', 'e\r', 'last']);
  });

  it('gives no line for an input ending in "\\n", and none for an empty input', async () => {
    expect(await collect(['one\n'], 10)).toEqual(['one']);
    expect(await collect([], 10)).toEqual([]);
  });

  it('a line of exactly the bound is a line; one past it is a LongLine, and nothing more is read', async () => {
    let pulled = 0;
    const endless = {
      *[Symbol.iterator]() {
        yield 'ok\n';
        for (;;) {
          pulled += 1;
          yield 'xxxx';
        }
      },
    };
    expect(await collect(['12345\n'], 5)).toEqual(['12345']);
    expect(await collect(endless, 10)).toEqual(['ok', { longerThan: 10 }]);
    expect(pulled).toBe(3);
  });
});
