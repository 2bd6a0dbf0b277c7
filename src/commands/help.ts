// `svc help [COMMAND…]`: declared for the command list, help and completions only.
// execute() turns `svc help calls list` into `svc calls list --help` before commander
// parses, so this module's run is never reached from a command line.
import { defineCommand, type ArgsOf, type FlagsOf } from './define.js';
import { UsageError } from '../errors.js';

export const command = defineCommand({
  name: 'help',
  summary: 'help for a command, e.g. svc help calls list',
  args: [{ name: 'command', help: 'the command', variadic: true }],
  scopes: [],
});

export interface HelpOptions {
  words: string[];
}

export function parse(args: ArgsOf<typeof command>, _flags: FlagsOf<typeof command>): HelpOptions {
  return { words: args };
}

export async function run(opts: HelpOptions): Promise<void> {
  // Unreachable through execute() (see above); a caller that gets here made a usage error.
  throw new UsageError(`svc help ${opts.words.join(' ')} is read as svc ${opts.words.join(' ')} --help`);
}
