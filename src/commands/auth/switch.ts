// `svc auth switch PROFILE`: makes PROFILE the default profile.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { jsonOnly, type CommandResult } from '../../kit/result.js';

export interface AuthSwitchOptions {
  profile: string;
}

export const command = defineCommand({
  summary: 'make PROFILE the default profile',
  args: [{ name: 'profile', help: 'profile name', required: true }],
  examples: ['svc auth switch work'],
  scopes: [],
});

export function parse(args: ArgsOf<typeof command>, _flags: FlagsOf<typeof command>): AuthSwitchOptions {
  const profile = args[0];
  if (profile === undefined || profile === '') throw new UsageError('missing PROFILE: e.g. svc auth switch work');
  if (args.length > 1) throw new UsageError(`svc auth switch takes one profile name (got "${args.join(' ')}")`);
  return { profile };
}

export async function run(opts: AuthSwitchOptions, ctx: Context): Promise<CommandResult> {
  const org = await ctx.config.update((config) => {
    const profile = config.profiles[opts.profile];
    if (!profile) {
      const known = Object.keys(config.profiles);
      throw new UsageError(
        `there is no profile "${opts.profile}"` + (known.length ? `; the profiles are: ${known.join(', ')}` : '; no profile is configured yet'),
        `run \`svc login --profile ${opts.profile}\` to create it`,
      );
    }
    config.default_profile = opts.profile;
    return profile.org_name ?? profile.org_id ?? null;
  });
  // Said on stderr: the switch has no result to print but its JSON.
  const envProfile = ctx.env.SVC_PROFILE;
  const said = [
    `The default profile is now "${opts.profile}"${org ? ` (${org})` : ''}.`,
    ...(envProfile && envProfile !== opts.profile ? [`warning: SVC_PROFILE=${envProfile} is set and still overrides the default profile`] : []),
  ];
  return jsonOnly({ default_profile: opts.profile, org_name: org }, { after: said.join('\n') });
}

export default commandModule({ command, parse, run });
