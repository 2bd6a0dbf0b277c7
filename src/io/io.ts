// The terminal as the services see it: the three streams, colour, and the one answer to
// "may we ask the person?" (docs/design.md "Output and errors"). Built by src/cli/context.ts
// from the runtime; services below the commands write only through it.

export interface Output {
  write(chunk: string): void;
  readonly isTTY: boolean;
  readonly columns?: number;
  /** A terminal of a locale that is not UTF-8 (src/io/charset.ts): a cut cell ends in "...", not "…". */
  readonly ascii?: boolean;
  /**
   * From now on a write the reader is not ready for is queued in memory instead of waiting for
   * it (a pipe's writes otherwise block the whole process): for a server whose reader may stop
   * reading while the process still has to act and end (svc mcp). Absent where writes never block.
   */
  queueWhenFull?(): void;
  /**
   * `--jq` (src/io/jq-filter.ts): filters one JSON text, as write() does, and resolves once it
   * is filtered, to whether the filter printed anything (a stream counts the events that did;
   * after a failure, false). Absent without --jq.
   */
  writeFiltered?(json: string): Promise<boolean>;
  /**
   * Calls `gone` once the reader of this output (a pipe) is known to have gone, without waiting
   * for a write to fail: a quiet stream ends then. Absent where that cannot be known.
   */
  onReaderGone?(gone: () => void, signal: AbortSignal): void;
}

export interface Input {
  readonly isTTY: boolean;
  /**
   * The whole of stdin as text (for `--stdin`, `--input -`, pasted redirects). With `maxBytes`,
   * reading stops once more than that has come: the text is then the first `maxBytes + 1`
   * bytes, so its UTF-8 size says it was over (an endless stdin is never held whole).
   */
  readAll(maxBytes?: number): Promise<string>;
  /** stdin line by line, as they arrive; ends when `signal` aborts, releasing stdin so the process can exit. */
  lines(signal?: AbortSignal): AsyncIterable<string>;
  /** stdin's text as it arrives, in chunks, holding none of it (for a reader that bounds its lines); ends with stdin or `signal`. */
  chunks?(signal?: AbortSignal): AsyncIterable<string>;
  /** The whole of stdin as bytes (`svc chats voice ID -`); absent where only text is available. */
  readAllBytes?(): Promise<Uint8Array>;
}

export interface Spinner {
  stop(finalText?: string): void;
}

/** Shows a spinner on stderr; the runtime's (an ora on the real terminal), asked only on a TTY. */
export type SpinnerFactory = (text: string, color: boolean) => Promise<Spinner>;

export interface Io {
  stdout: Output;
  stderr: Output;
  stdin: Input;
  /** Colour decided once: a TTY, no NO_COLOR, no --no-color. */
  readonly color: boolean;
  /** A person can be asked: stdin and stderr are both terminals (stripe-cli#1053: never prompt otherwise). */
  canPrompt(): boolean;
  /** Progress for the person watching (a 429 wait, a lock wait): on a terminal only, so scripts stay quiet. */
  progress(message: string): void;
  /** A spinner on stderr when it is a terminal; otherwise one that shows nothing. */
  spinner(text: string): Promise<Spinner>;
}
