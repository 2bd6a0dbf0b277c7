// `svc __complete profiles` (hidden): the profile names, one a line, for shell completion.
// Reads config.json only and never fails loudly: a broken config just completes nothing.
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

export interface CompleteOptions {
  what: 'profiles';
}

export function parse(args: string[], _flags: Record<string, unknown>): CompleteOptions {
  if (args[0] !== 'profiles') throw new UsageError('svc __complete knows only: profiles');
  return { what: 'profiles' };
}

export async function run(_opts: CompleteOptions, ctx: Context): Promise<void> {
  const config = await ctx.config.read().catch(() => null);
  if (!config) return;
  ctx.io.stdout.write(Object.keys(config.profiles).sort().map((name) => `${name}\n`).join(''));
}
