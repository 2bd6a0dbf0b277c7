// `svc __complete profiles` (hidden): the profile names, one a line, for shell completion.
// Reads config.json only and never fails loudly: a broken config just completes nothing.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../kit/define.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';

export interface CompleteOptions {
  what: 'profiles';
}

// Hidden: what the completion scripts call for `--profile <TAB>` (reads config.json only).
export const command = defineCommand({
  summary: '',
  hidden: true,
  args: [{ name: 'what', help: 'profiles', required: true }],
  scopes: [],
});

export function parse(args: ArgsOf<typeof command>, _flags: FlagsOf<typeof command>): CompleteOptions {
  if (args[0] !== 'profiles') throw new UsageError('svc __complete knows only: profiles');
  return { what: 'profiles' };
}

export async function run(_opts: CompleteOptions, ctx: Context): Promise<void> {
  const config = await ctx.config.read().catch(() => null);
  if (!config) return;
  ctx.io.stdout.write(
    Object.keys(config.profiles)
      .sort()
      .map((name) => `${name}\n`)
      .join(''),
  );
}

export default commandModule({ command, parse, run });
