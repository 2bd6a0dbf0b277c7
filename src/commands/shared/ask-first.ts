// Deleting what the user owns (a stored key, a profile's secrets) is asked at a terminal;
// `--yes` answers it, and a script without a terminal is not asked (as gh and stripe do).
import type { Context } from '../../context.js';
import { CliError, EXIT } from '../../errors.js';
import { confirm } from '../../io/interactive.js';

/** Asks `question` at a terminal unless --yes; a "no" ends the command with nothing done (exit 1). */
export async function askBeforeDeleting(ctx: Context, question: string): Promise<void> {
  if (ctx.globals.yes || !ctx.io.canPrompt()) return;
  if (!(await confirm(ctx, question))) throw new CliError('cancelled: nothing was removed', EXIT.failure);
}
