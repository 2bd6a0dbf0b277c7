// `svc translate [TEXT…] --to L [--from L] [--lines]`
import { sanitizeOneLine } from '../io/sanitize.js';
import { checkText, LIMITS } from '../contract/index.js';
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../kit/define.js';
import type { Context } from '../context.js';
import { InterruptedError, UsageError } from '../errors.js';
import { parseText } from '../validate/index.js';
import { printNdjson } from '../io/output.js';
import { mapInOrder } from '../kit/translate/ordered.js';
import { createPacer, pacedDuration } from '../kit/pacer.js';
import { formatAway } from '../api/resume.js';
import { linesWithin, type LongLine } from '../io/lines.js';

import { call, readStdinText } from '../kit/resources.js';
import { textResult, type CommandResult } from '../kit/result.js';

/** docs/contract.md: POST /v1/translate takes at most 5,000 characters. */
export const MAX_TRANSLATE_CHARS = LIMITS.textCharacters;

export interface TranslateOptions {
  to: string;
  from?: string;
  /** The text from the arguments; undefined: read stdin. */
  text?: string;
  /** Translate each stdin line on its own, printing results in input order. */
  lines: boolean;
  dryRun?: boolean;
}

export const command = defineCommand({
  mcp: { billable: 'read' },
  tool: { bills: 'translate', title: 'Translate text', does: 'Translates a text (at most 5,000 characters) into a language.', requires: ['text'], returns: {} },
  summary: 'translate text (arguments, or stdin)',
  args: [{ name: 'text', help: 'the text', variadic: true }],
  flags: {
    to: { value: '<lang>', required: true, kind: { type: 'language' }, help: 'target language (BCP 47)' },
    from: { value: '<lang>', kind: { type: 'language' }, help: 'source language (default: detected)' },
    lines: { help: 'translate stdin line by line' },
    dryRun: { help: 'print the request and the price it would draw; send nothing' },
  },
  examples: ['svc translate "good morning" --to es', 'svc translate --to fr --lines < input.txt'],
  scopes: ['translate'],
});

export function parse(args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): TranslateOptions {
  const words = args;
  const lines = flags.lines === true;
  if (lines && words.length > 0) {
    throw new UsageError('--lines translates stdin line by line: give the text on stdin, not as arguments (e.g. svc translate --lines --to de < lines.txt)');
  }
  const opts: TranslateOptions = { to: flags.to, lines };
  if (flags.from !== undefined) opts.from = flags.from;
  if (words.length > 0) opts.text = checkWholeText(words.join(' '), flags.to);
  if (flags.dryRun === true) {
    if (lines) throw new UsageError('--dry-run shows one request: give the text as arguments or on stdin, without --lines');
    opts.dryRun = true;
  }
  return opts;
}

/**
 * Requests in flight with --lines: enough to overlap latency. The 600/min limit is kept
 * by a pacer (src/kit/pacer.ts) shared by all of them, not by this number.
 */
export const LINES_CONCURRENCY = 6;

export interface Translation {
  object: 'translation';
  text: string;
  to: string;
  from: string | null;
  characters: number;
  livemode: boolean;
}

export async function run(opts: TranslateOptions, ctx: Context): Promise<CommandResult | void> {
  if (opts.lines) return translateLines(opts, ctx);
  const text =
    opts.text ??
    (await readStdinText(ctx, 'text to translate', 'svc translate "Good morning" --to es, or echo "Good morning" | svc translate --to es', {
      maxChars: MAX_TRANSLATE_CHARS,
      name: 'the text',
      hint: (start) => wayForward(start, opts.to),
    }));
  checkWholeText(text, opts.to);
  if (opts.dryRun) {
    const body: Record<string, unknown> = { text, to: opts.to };
    if (opts.from !== undefined) body.from = opts.from;
    const { dryRun } = await import('../kit/dry-run.js');
    return dryRun(ctx, { endpoint: 'translate', body });
  }
  const translation = await translateOne(ctx, text, opts);
  return textResult(translation, translation.text);
}

/** The text, within the limit; a longer one is refused with the way forward. */
function checkWholeText(text: string, to: string): string {
  try {
    return parseText(text, 'the text', MAX_TRANSLATE_CHARS);
  } catch (error) {
    if (!(error instanceof UsageError) || checkText(text, MAX_TRANSLATE_CHARS).ok) throw error;
    throw new UsageError(error.message, wayForward(text, to));
  }
}

/** For a text over the limit (or its start, all that was read of it): --lines when its lines fit, else split it. */
function wayForward(text: string, to: string): string {
  const linesFit = text.split('\n').every((line) => checkText(line, MAX_TRANSLATE_CHARS, 0).ok);
  return linesFit
    ? `its lines are each within the limit: \`svc translate --lines --to ${to}\` translates them one by one`
    : `split it into parts of at most ${MAX_TRANSLATE_CHARS.toLocaleString('en-US')} characters (at paragraph or sentence ends) and translate each`;
}

/** One line of --lines, within the limit; a longer one (`long`: one not even read whole) is refused saying to split it. */
function checkLine(text: string, number: number, long: boolean): void {
  const max = MAX_TRANSLATE_CHARS.toLocaleString('en-US');
  const hint = `split line ${number} into lines of at most ${max} characters`;
  if (long) throw new UsageError(`line ${number} is more than ${max} characters long; the limit is ${max}`, hint);
  try {
    parseText(text, `line ${number}`, MAX_TRANSLATE_CHARS);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    throw new UsageError(error.message, hint);
  }
}

function translateOne(ctx: Context, text: string, opts: TranslateOptions): Promise<Translation> {
  const body: Record<string, unknown> = { text, to: opts.to };
  if (opts.from !== undefined) body.from = opts.from;
  return call<Translation>(ctx, 'translate', { body });
}

/**
 * Each stdin line translated on its own, several requests in flight, printed in input
 * order (mapInOrder). A blank line is passed through as a blank line without a request,
 * so the output lines up with the input; with --json it is a translation of nothing
 * (`text: ""`, `characters: 0`), so NDJSON keeps one object per input line.
 */
async function translateLines(opts: TranslateOptions, ctx: Context): Promise<void> {
  if (ctx.io.stdin.isTTY) {
    throw new UsageError('--lines reads the lines to translate from stdin: pipe them in, e.g. svc translate --lines --to de < lines.txt');
  }
  const { credential } = await ctx.api();
  const pacer = createPacer(ctx.clock);
  // At a terminal, the lines are read ahead so the total, and how long it takes, can be said.
  const progress = ctx.io.stderr.isTTY ? new LinesProgress(ctx) : undefined;
  const lineNumbers = numbered(progress ? progress.readAhead((signal) => stdinLines(ctx, signal)) : stdinLines(ctx));
  await mapInOrder(
    lineNumbers,
    LINES_CONCURRENCY,
    async ({ text, number, long }): Promise<Translation> => {
      if (!long && text.trim() === '') {
        return { object: 'translation', text: '', to: opts.to, from: opts.from ?? null, characters: 0, livemode: credential.mode === 'live' };
      }
      checkLine(text, number, long);
      progress?.starting();
      try {
        await pacer.take(ctx.signal);
      } catch (error) {
        if (ctx.signal.aborted) throw new InterruptedError();
        throw error;
      }
      return translateOne(ctx, text, opts);
    },
    (translation) => {
      if (ctx.globals.json) printNdjson(ctx, translation);
      else ctx.io.stdout.write(`${sanitizeOneLine(translation.text)}\n`);
      progress?.printed();
    },
  );
}

/** How often, in clock time, --lines says how far it is. */
const PROGRESS_EVERY_MS = 10_000;

/**
 * How far --lines reads ahead of its requests at a terminal, in lines and in characters:
 * an input that ends within both is counted before the first request; a longer one is
 * read as the requests go, its memory held to this.
 */
export const READ_AHEAD = { lines: 10_000, characters: 1 << 20 };

type StdinLine = string | LongLine;

/**
 * `translate --lines` at a terminal (thousands of lines would take minutes without a word): once
 * the input is read, how many lines and about how long at the service's pace; then, every
 * little while, how many are done and how long is left. An input longer than the read-ahead
 * gets its total once its end is reached; until then, how many are done. On stderr, as progress.
 */
class LinesProgress {
  private read = 0;
  private requests = 0;
  private started = 0;
  private done = 0;
  private total: number | undefined;
  /** The read-ahead filled before the input ended: no total before the first request. */
  private filled = false;
  private lastSaid: number;
  constructor(private readonly ctx: Context) {
    this.lastSaid = ctx.clock.now();
  }

  /**
   * The lines, read ahead of the requests (so their number is known early) up to READ_AHEAD;
   * reading waits while that much is queued, and stops when the lines are no longer wanted.
   */
  async *readAhead(open: (signal: AbortSignal) => AsyncIterable<StdinLine>): AsyncGenerator<StdinLine> {
    const queue: StdinLine[] = [];
    let queuedChars = 0;
    let ended = false;
    let failure: unknown;
    let wake: (() => void) | undefined;
    let room: (() => void) | undefined;
    const stop = new AbortController();
    const full = () => queue.length >= READ_AHEAD.lines || queuedChars >= READ_AHEAD.characters;
    const pump = (async () => {
      for await (const line of open(stop.signal)) {
        queue.push(line);
        queuedChars += typeof line === 'string' ? line.length : 0;
        this.read += 1;
        if (typeof line !== 'string' || line.trim() !== '') this.requests += 1;
        wake?.();
        while (full() && !stop.signal.aborted) {
          this.filled = true;
          await new Promise<void>((resolve) => (room = resolve));
        }
        if (stop.signal.aborted) return;
      }
    })().then(
      () => void ((ended = true), this.inputEnded(), wake?.()),
      (error: unknown) => void ((ended = true), (failure = error), wake?.()),
    );
    try {
      for (;;) {
        if (queue.length) {
          const line = queue.shift()!;
          queuedChars -= typeof line === 'string' ? line.length : 0;
          room?.();
          yield line;
        } else if (ended) break;
        else await new Promise<void>((resolve) => (wake = resolve));
      }
      await pump;
      if (failure !== undefined) throw failure;
    } finally {
      stop.abort();
      room?.();
    }
  }

  starting(): void {
    this.started += 1;
  }

  printed(): void {
    this.done += 1;
    const now = this.ctx.clock.now();
    if (this.done === this.total || now - this.lastSaid < PROGRESS_EVERY_MS) return;
    this.lastSaid = now;
    if (this.total === undefined) return this.ctx.io.progress(`translated ${this.done} lines so far`);
    const left = pacedDuration(this.requests - this.started);
    this.ctx.io.progress(`translated ${this.done} of ${this.total} lines, ${left < 1000 ? 'under a second' : `about ${formatAway(left)}`} left`);
  }

  private inputEnded(): void {
    this.total = this.read;
    if (this.filled) return;
    const estimate = pacedDuration(this.requests - this.started);
    // A wait worth saying: half the progress interval or more.
    if (estimate >= PROGRESS_EVERY_MS / 2)
      this.ctx.io.progress(`${this.total} lines to translate: about ${formatAway(estimate)} (the service takes ${LIMITS.requestsPerMinute} requests a minute)`);
  }
}

/**
 * The lines of stdin for --lines, split at "\n" alone so the output matches the input line
 * for line (a lone "\r" is inside a line), none held past what a line within the limit
 * can be: its characters as UTF-16, and a CR.
 */
function stdinLines(ctx: Context, signal?: AbortSignal): AsyncIterable<string | LongLine> {
  return ctx.io.stdin.chunks ? linesWithin(ctx.io.stdin.chunks(signal), MAX_TRANSLATE_CHARS * 2 + 1) : ctx.io.stdin.lines(signal);
}

/** Each line numbered, less the "\r" of a CRLF line; a line too long to read whole is `long`. */
async function* numbered(lines: AsyncIterable<string | LongLine>): AsyncGenerator<{ text: string; number: number; long: boolean }> {
  let number = 0;
  for await (const line of lines) {
    number += 1;
    yield typeof line === 'string' ? { text: line.replace(/\r$/, ''), number, long: false } : { text: '', number, long: true };
  }
}

export default commandModule({ command, parse, run });
