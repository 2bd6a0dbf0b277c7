// Deleting what the user owns (a stored key, a profile's secrets) is asked at a terminal;
// `--yes` answers it. Without a terminal nothing can be asked, so `--yes` is required (as gh
// does): a script that deletes secrets says so on its command line.
import type { Context } from '../context.js';
import { CliError, EXIT, UsageError } from '../errors.js';
import { confirm } from '../io/interactive.js';

/** Asks `question` at a terminal unless --yes; a "no" ends the command with nothing done (exit 1); no terminal and no --yes is exit 2. */
export async function askBeforeDeleting(ctx: Context, question: string): Promise<void> {
  if (ctx.globals.yes) return;
  if (!ctx.io.canPrompt())
    throw new UsageError(`${question.replace(/\?.*$/s, '')}: without a terminal nothing can be asked, so nothing was removed`, 'pass --yes to confirm');
  if (!(await confirm(ctx, question))) throw new CliError('cancelled: nothing was removed', EXIT.failure);
}
