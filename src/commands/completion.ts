// `svc completion bash|zsh|fish`: prints the script the build writes to dist/completions/ (same generator).
import { commandModule, defineCommand, type ArgsOf, type FlagsOf, type RootSpec } from '../kit/define.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { completionScript, SHELLS } from '../kit/completion/generate.js';
import type { Shell } from '../kit/completion/generate.js';

export interface CompletionOptions {
  shell: Shell;
}

export const command = defineCommand({
  summary: 'print the shell completion script',
  args: [{ name: 'shell', help: 'bash, zsh, fish or powershell', required: true, choices: ['bash', 'zsh', 'fish', 'powershell'] }],
  examples: [
    'svc completion bash > ~/.local/share/bash-completion/completions/svc',
    'svc completion zsh > ~/.zfunc/_svc',
    'svc completion fish > ~/.config/fish/completions/svc.fish',
    'svc completion powershell >> $PROFILE',
  ],
  scopes: [],
  printsNoJson: true,
});

export function parse(args: ArgsOf<typeof command>, _flags: FlagsOf<typeof command>): CompletionOptions {
  const shell = args[0];
  if (!SHELLS.includes(shell as Shell)) throw new UsageError(`SHELL must be one of ${SHELLS.join(', ')}, not ${JSON.stringify(shell ?? '')}`);
  return { shell: shell as Shell };
}

/** `tree`: the runner's (this module is in it, so it does not import it: no import cycle). */
export async function run(opts: CompletionOptions, ctx: Context, tree: RootSpec): Promise<void> {
  ctx.io.stdout.write(completionScript(opts.shell, tree));
}

export default commandModule({ command, parse, run });
