// `svc auth token`: prints the credential in use, and only it, for scripts
// (`curl -H @- URL <<< "Authorization: Bearer $(svc auth token)"`: the header on stdin, never in argv). An OAuth token is refreshed
// first when it is about to expire, so what is printed works for a while.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { printJson } from '../../io/output.js';

export type AuthTokenOptions = Record<string, never>;

export const command = defineCommand({
  name: 'token',
  summary: 'print a valid access token for the profile (refreshing it if needed)',
  examples: ['svc auth token', 'curl -H @- https://… <<< "Authorization: Bearer $(svc auth token)"'],
  scopes: [],
});

export function parse(args: ArgsOf<typeof command>, _flags: FlagsOf<typeof command>): AuthTokenOptions {
  if (args.length > 0) throw new UsageError(`svc auth token takes no arguments (got "${args.join(' ')}")`);
  return {};
}

export async function run(_opts: AuthTokenOptions, ctx: Context): Promise<void> {
  const credential = await ctx.resolveCredential();
  const token = credential.kind === 'oauth' ? await ctx.accessToken(credential.profileName, { forceRefresh: false }) : credential.apiKey!;
  if (ctx.globals.json) {
    printJson(ctx, { token, type: credential.kind, mode: credential.mode, profile: credential.source === 'env' ? null : credential.profileName });
  } else {
    ctx.io.stdout.write(`${token}\n`);
  }
}

export default commandModule({ command, parse, run });
