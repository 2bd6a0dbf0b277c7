// The forwarding secret (`svc_whsec_…`) that signs deliveries of `--forward-to` and
// `events replay`: SVC_FORWARD_SECRET when set, else the profile's, kept in the secret
// store beside its keys (keychain, else credentials.json) and created on first use.
// With SVC_API_KEY and no stored profile it is kept under the profile name that would be
// chosen ("default" unless --profile/SVC_PROFILE say), so a script that prints it with
// `--print-secret` and a tail started after it agree, run after run, on that machine.
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { chooseProfileName } from '../credentials/resolve.js';

export const FORWARD_SECRET_NAME = 'forward_secret';
export const FORWARD_SECRET_PREFIX = 'svc_whsec_';

export interface ForwardSecret {
  secret: string;
  /** Where it came from, for the one stderr line that says so (never the secret itself). */
  source: 'env' | 'store' | 'created';
  profile?: string;
}

export async function forwardingSecret(ctx: Pick<Context, 'env' | 'globals' | 'config' | 'secrets' | 'random'>): Promise<ForwardSecret> {
  const fromEnv = ctx.env.SVC_FORWARD_SECRET;
  if (fromEnv !== undefined) {
    if (fromEnv.trim().length < 16) {
      throw new UsageError('SVC_FORWARD_SECRET is shorter than 16 characters', 'use a long random value, e.g. the one `svc events tail --print-secret` prints');
    }
    return { secret: fromEnv.trim(), source: 'env' };
  }
  const profile = chooseProfileName(ctx, await ctx.config.read());
  const stored = await ctx.secrets.get(profile, FORWARD_SECRET_NAME);
  if (stored) return { secret: stored, source: 'store', profile };
  const secret = FORWARD_SECRET_PREFIX + Buffer.from(ctx.random.bytes(24)).toString('hex');
  await ctx.secrets.set(profile, FORWARD_SECRET_NAME, secret);
  return { secret, source: 'created', profile };
}
