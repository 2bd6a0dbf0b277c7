// `svc completion bash|zsh|fish`: prints the script completions/ ships (same generator).
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { completionScript, SHELLS } from '../../cli/completion.js';
import type { Shell } from '../../cli/completion.js';
import { commandTree } from '../../cli/tree.js';

export interface CompletionOptions {
  shell: Shell;
}

export function parse(args: string[], _flags: Record<string, unknown>): CompletionOptions {
  const shell = args[0];
  if (!SHELLS.includes(shell as Shell)) throw new UsageError(`SHELL must be one of ${SHELLS.join(', ')}, not ${JSON.stringify(shell ?? '')}`);
  return { shell: shell as Shell };
}

export async function run(opts: CompletionOptions, ctx: Context): Promise<void> {
  ctx.io.stdout.write(completionScript(opts.shell, commandTree()));
}
