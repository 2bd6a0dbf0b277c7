// Lines from text that arrives in chunks (stdin's), holding at most one line, itself
// bounded: a reader of untrusted input keeps no more than it will use.

/** A line past the reader's bound: only how much of it came before reading stopped. */
export interface LongLine {
  longerThan: number;
}

/**
 * The lines of `chunks`, split at "\n" alone (a lone "\r" is part of its line, as the
 * service sees it; a CRLF line keeps its "\r" for the caller to drop). A line longer than
 * `max` is given as a LongLine the moment it passes `max`, and reading ends there.
 */
export async function* linesWithin(chunks: AsyncIterable<string>, max: number): AsyncGenerator<string | LongLine> {
  let line = '';
  for await (const chunk of chunks) {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf('\n', start);
      line += chunk.slice(start, newline === -1 ? undefined : newline);
      if (line.length > max) {
        yield { longerThan: max };
        return;
      }
      if (newline === -1) break;
      yield line;
      line = '';
      start = newline + 1;
    }
  }
  if (line !== '') yield line;
}
