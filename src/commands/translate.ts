// `svc translate [TEXT…] --to L [--from L] [--lines]`
import { sanitizeOneLine, sanitizeText } from '../io/sanitize.js';
import { LIMITS } from '../contract/index.js';
import { defineCommand, type ArgsOf, type FlagsOf } from './define.js';
import type { Context } from '../context.js';
import { InterruptedError, UsageError } from '../errors.js';
import { parseText } from '../validate/index.js';
import { printJson, printNdjson } from '../io/output.js';
import { mapInOrder } from './calls/ordered.js';
import { createPacer } from './calls/pacer.js';

import { call, readStdinText } from './shared/resources.js';

/** api-contract.md: POST /v1/translate takes at most 5,000 characters. */
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
  name: 'translate',
  mcp: { billable: 'read' },
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
  if (words.length > 0) opts.text = parseText(words.join(' '), 'the text', MAX_TRANSLATE_CHARS);
  if (flags.dryRun === true) {
    if (lines) throw new UsageError('--dry-run shows one request: give the text as arguments or on stdin, without --lines');
    opts.dryRun = true;
  }
  return opts;
}

/**
 * Requests in flight with --lines: enough to overlap latency. The 600/min limit is kept
 * by a pacer (calls/pacer.ts) shared by all of them, not by this number.
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

export async function run(opts: TranslateOptions, ctx: Context): Promise<void> {
  if (opts.lines) return translateLines(opts, ctx);
  const text =
    opts.text ?? (await readStdinText(ctx, 'text to translate', 'svc translate "Good morning" --to es, or echo "Good morning" | svc translate --to es'));
  parseText(text, 'the text', MAX_TRANSLATE_CHARS);
  if (opts.dryRun) {
    const body: Record<string, unknown> = { text, to: opts.to };
    if (opts.from !== undefined) body.from = opts.from;
    const { printDryRun } = await import('./dry-run.js');
    return printDryRun(ctx, { endpoint: 'translate', body });
  }
  const translation = await translateOne(ctx, text, opts);
  if (ctx.globals.json) printJson(ctx, translation);
  else ctx.io.stdout.write(`${sanitizeText(translation.text)}\n`);
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
  const lineNumbers = numbered(ctx.io.stdin.lines());
  await mapInOrder(
    lineNumbers,
    LINES_CONCURRENCY,
    async ({ text, number }): Promise<Translation> => {
      if (text.trim() === '') {
        return { object: 'translation', text: '', to: opts.to, from: opts.from ?? null, characters: 0, livemode: credential.mode === 'live' };
      }
      parseText(text, `line ${number}`, MAX_TRANSLATE_CHARS);
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
    },
  );
}

async function* numbered(lines: AsyncIterable<string>): AsyncGenerator<{ text: string; number: number }> {
  let number = 0;
  for await (const line of lines) {
    number += 1;
    yield { text: line.replace(/\r$/, ''), number };
  }
}
