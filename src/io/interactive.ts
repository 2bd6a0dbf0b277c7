// Spinners and prompts: only on a TTY. Without one, never prompt: fail naming the flag
// or environment variable that would have answered (stripe-cli#1053).
// The real ones (ora, @inquirer) are built here for the terminal streams the process edge
// (src/cli/process/process.ts) hands in; services reach them only through ctx.io and ctx.prompter.
import type { Io, SpinnerFactory } from './io.js';
import type { GlobalOptions } from '../shared/runtime.js';
import { InterruptedError, UsageError } from '../errors.js';
import { sanitizeText } from './sanitize.js';

/** ora spinners on `stream` (the real stderr); ora loads with the first one. */
export function oraSpinners(stream: NodeJS.WritableStream, ascii = false): SpinnerFactory {
  return async (text, color) => {
    const { default: ora } = await import('ora');
    // A terminal of an ASCII locale (src/io/charset.ts) turns a line, not braille dots, and ends on "v".
    // The cursor stays and stdin is left alone: ora's cursor hiding re-raises a Ctrl-C once
    // svc's own handler has run (signal-exit), killing svc before it says what was stopped.
    const spinner = ora({
      text,
      stream,
      color: color ? 'cyan' : false,
      hideCursor: false,
      discardStdin: false,
      ...(ascii ? { spinner: 'line' as const } : {}),
    }).start();
    return {
      stop(finalText) {
        if (finalText) spinner.stopAndPersist({ symbol: ascii ? 'v' : '✔', text: finalText });
        else spinner.stop();
      },
    };
  };
}

function requireTty(ctx: { io: Pick<Io, 'canPrompt'> }, answeredBy: string): void {
  if (!ctx.io.canPrompt()) throw new UsageError(`cannot ask without a terminal; use ${answeredBy}`);
}

/** Asks the person at the terminal (ctx.prompter: @inquirer for real, a fake in tests). */
export interface Prompter {
  /** Hidden input (nothing echoed). */
  password(message: string, signal: AbortSignal): Promise<string>;
  confirm(message: string, signal: AbortSignal): Promise<boolean>;
}

/**
 * Ctrl-C at a prompt is an interruption (exit 130, nothing printed). The terminal is in raw
 * mode while inquirer asks, so Ctrl-C reaches it as a key, not as SIGINT: it rejects with
 * ExitPromptError, and with AbortPromptError when ctx.signal aborted the prompt.
 */
async function interruptible<T>(ask: Promise<T>): Promise<T> {
  try {
    return await ask;
  } catch (error) {
    const name = (error as { name?: unknown } | null)?.name;
    if (name === 'ExitPromptError' || name === 'AbortPromptError') throw new InterruptedError();
    throw error;
  }
}

/** The real prompter on the given terminal streams; each @inquirer prompt loads on first use. */
export function terminalPrompter(terminal: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream }, ascii = false): Prompter {
  // A terminal of an ASCII locale (src/io/charset.ts): an answered question is marked "v", not ✔.
  const theme = ascii ? { theme: { prefix: { idle: '?', done: 'v' } } } : {};
  // The question is written by the prompt itself, past the ASCII stand-ins of the output's edge.
  const words = async (message: string) => (ascii ? (await import('./charset.js')).toAscii(message) : message);
  return {
    async password(question, signal) {
      const message = await words(question);
      const { default: password } = await import('@inquirer/password');
      // An empty answer (Enter alone) asks again, with no ✔: nothing was given to check.
      const validate = (value: string) => value.trim() !== '' || 'nothing was entered: paste it, or Ctrl-C to stop';
      return interruptible(password({ message, mask: false, validate, ...theme }, { signal, ...terminal }));
    },
    async confirm(question, signal) {
      const message = await words(question);
      const { default: confirm } = await import('@inquirer/confirm');
      return interruptible(confirm({ message, default: false, ...theme }, { signal, ...terminal }));
    },
  };
}

/** A hidden prompt (API keys). `answeredBy` names the non-interactive way, e.g. `--stdin`. */
export async function promptSecret(
  ctx: { io: Pick<Io, 'canPrompt'>; signal: AbortSignal; prompter: Prompter },
  message: string,
  answeredBy: string,
): Promise<string> {
  requireTty(ctx, answeredBy);
  return ctx.prompter.password(message, ctx.signal);
}

/** What the prompt adds around a question: `? ` before it and ` (y/N) ` after. */
const PROMPT_CHROME = '? '.length + ' (y/N) '.length;

/**
 * A question too long for one line of the terminal, split into the sentences before it
 * (printed above) and the question itself (asked), so that `(y/N)` stays on the
 * question's line instead of wrapping away from it. Null when it fits or has one sentence.
 */
export function splitQuestion(message: string, columns: number): { context: string; question: string } | null {
  if (message.length + PROMPT_CHROME <= columns) return null;
  const at = message.lastIndexOf('. ');
  if (at < 0) return null;
  return { context: `${message.slice(0, at)}.`, question: message.slice(at + 2) };
}

/** Yes/no; `--yes` answers yes without asking; without a TTY, fails naming `--yes`. */
export async function confirm(
  ctx: { io: Pick<Io, 'canPrompt' | 'stderr'>; signal: AbortSignal; globals: Pick<GlobalOptions, 'yes'>; prompter: Prompter },
  message: string,
): Promise<boolean> {
  if (ctx.globals.yes) return true;
  requireTty(ctx, '--yes');
  const split = splitQuestion(message, ctx.io.stderr.columns ?? 80);
  if (split) ctx.io.stderr.write(`${sanitizeText(split.context)}\n`);
  return ctx.prompter.confirm(sanitizeText(split ? split.question : message), ctx.signal);
}
