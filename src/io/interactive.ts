// Spinners and prompts: only on a TTY. Without one, never prompt: fail naming the flag
// or environment variable that would have answered (stripe-cli#1053).
import type { Context } from '../context.js';
import { InterruptedError, UsageError } from '../errors.js';

export interface Spinner {
  stop(finalText?: string): void;
}

/** An ora spinner on stderr when it is a TTY; otherwise nothing. */
export async function startSpinner(ctx: Pick<Context, 'io'>, text: string): Promise<Spinner> {
  if (!ctx.io.stderr.isTTY) return { stop() {} };
  const { default: ora } = await import('ora');
  const spinner = ora({ text, stream: process.stderr, color: ctx.io.color ? 'cyan' : false }).start();
  return {
    stop(finalText) {
      if (finalText) spinner.succeed(finalText);
      else spinner.stop();
    },
  };
}

function requireTty(ctx: Pick<Context, 'io'>, answeredBy: string): void {
  if (!ctx.io.stdin.isTTY || !ctx.io.stderr.isTTY) throw new UsageError(`cannot ask without a terminal; use ${answeredBy}`);
}

/** Asks the person at the terminal (ctx.prompter: @inquirer/prompts for real, a fake in tests). */
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

/** The real prompter, on the process's own terminal; @inquirer/prompts is loaded on first use. */
export const terminalPrompter: Prompter = {
  async password(message, signal) {
    const { password } = await import('@inquirer/prompts');
    return interruptible(password({ message, mask: false }, { signal, output: process.stderr }));
  },
  async confirm(message, signal) {
    const prompts = await import('@inquirer/prompts');
    return interruptible(prompts.confirm({ message, default: false }, { signal, output: process.stderr }));
  },
};

/** A hidden prompt (API keys). `answeredBy` names the non-interactive way, e.g. `--stdin`. */
export async function promptSecret(ctx: Pick<Context, 'io' | 'signal' | 'prompter'>, message: string, answeredBy: string): Promise<string> {
  requireTty(ctx, answeredBy);
  return ctx.prompter.password(message, ctx.signal);
}

/** Yes/no; `--yes` answers yes without asking; without a TTY, fails naming `--yes`. */
export async function confirm(ctx: Pick<Context, 'io' | 'signal' | 'globals' | 'prompter'>, message: string): Promise<boolean> {
  if (ctx.globals.yes) return true;
  requireTty(ctx, '--yes');
  return ctx.prompter.confirm(message, ctx.signal);
}
