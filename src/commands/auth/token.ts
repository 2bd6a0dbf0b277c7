// `svc auth token`: prints the credential in use, and only it, for scripts
// (`curl -H @- URL <<< "Authorization: Bearer $(svc auth token)"`: the header on stdin, never in argv). An OAuth token is refreshed
// first when it is about to expire, so what is printed works for a while.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { textResult, type CommandResult } from '../../kit/result.js';

export type AuthTokenOptions = Record<string, never>;

export const command = defineCommand({
  summary: 'print a valid access token for the profile (refreshing it if needed)',
  examples: ['svc auth token', 'curl -H @- https://… <<< "Authorization: Bearer $(svc auth token)"'],
  scopes: [],
});

export function parse(args: ArgsOf<typeof command>, _flags: FlagsOf<typeof command>): AuthTokenOptions {
  if (args.length > 0) throw new UsageError(`svc auth token takes no arguments (got "${args.join(' ')}")`);
  return {};
}

export async function run(_opts: AuthTokenOptions, ctx: Context): Promise<CommandResult> {
  const credential = await ctx.resolveCredential();
  const token = credential.kind === 'oauth' ? await ctx.accessToken(credential.profileName, { forceRefresh: false }) : credential.apiKey!;
  return textResult({ token, type: credential.kind, mode: credential.mode, profile: credential.source === 'env' ? null : credential.profileName }, token);
}

export default commandModule({ command, parse, run });
