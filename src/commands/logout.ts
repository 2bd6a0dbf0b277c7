// `svc logout [--all]`: revoke the OAuth connection at the service (RFC 7009), then
// delete the local secret. Offline, the local sign-in is still deleted and the user is
// told that the service was not reached, so they can disconnect the app there.
import { defineCommand, type ArgsOf, type FlagsOf } from '../cli/define.js';
import type { Context } from '../context.js';
import { OAUTH_SECRET_NAME } from '../config/config.js';
import { requireProfile } from '../credentials/resolve.js';
import { describeLeft, type SecretLeft } from '../credentials/store.js';
import { InterruptedError } from '../errors.js';
import { note, printJson, warn } from '../io/output.js';
import { fetchOf, clientOf, readStored, storageOf } from '../auth/stored.js';
import { revokeToken } from '../auth/tokens.js';
import { ENDPOINTS, joinUrl } from '../api/endpoints.js';
import { chooseBaseUrl } from '../credentials/resolve.js';

export interface LogoutOptions {
  all: boolean;
}

export const command = defineCommand({
  name: 'logout',
  summary: "revoke and forget the profile's OAuth sign-in",
  flags: { all: { help: 'log out of every profile' } },
  examples: ['svc logout', 'svc logout --profile work', 'svc logout --all'],
  scopes: [],
});

export function parse(_args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): LogoutOptions {
  return { all: flags.all === true };
}

export interface LogoutResult {
  profile: string;
  /** Whether a sign-in was stored at all. */
  signed_in: boolean;
  /** true: revoked at the service; false: the service could not be reached or refused. */
  revoked: boolean;
  revoke_error?: string;
  /** The keychain entry, when it could not be deleted (remove it by hand). */
  secret_left?: SecretLeft;
}

export async function run(opts: LogoutOptions, ctx: Context): Promise<void> {
  const config = await ctx.config.read();
  let names: string[];
  if (opts.all) {
    names = Object.keys(config.profiles).filter((name) => config.profiles[name]?.oauth);
  } else {
    const name = await ctx.profileName();
    requireProfile(config, name);
    names = [name];
  }

  const results: LogoutResult[] = [];
  for (const profile of names) results.push(await logoutProfile(ctx, profile));

  if (ctx.globals.json) printJson(ctx, opts.all ? results : results[0]);
  if (results.length === 0) note(ctx, 'No profile is signed in with OAuth; nothing to do.');
}

async function logoutProfile(ctx: Context, profile: string): Promise<LogoutResult> {
  const config = await ctx.config.read();
  const meta = config.profiles[profile];
  const where = `profile "${profile}"${meta?.org_name ? ` (${meta.org_name})` : ''}`;
  const stored = await readStored(ctx, profile, storageOf(config, profile)).catch(() => null);
  const result: LogoutResult = { profile, signed_in: stored !== null || meta?.oauth !== undefined, revoked: false };
  if (!result.signed_in) {
    note(ctx, `${where} is not signed in with OAuth; nothing to log out.`);
    return result;
  }

  if (stored) {
    const endpoint = stored.revocation_endpoint ?? joinUrl(chooseBaseUrl(ctx, meta), ENDPOINTS['oauth.revoke'].path).href;
    try {
      // RFC 7009 §2.1: revoking the refresh token ends the whole grant (the access token too).
      await revokeToken(fetchOf(ctx), endpoint, clientOf(stored), { value: stored.refresh_token, hint: 'refresh_token' }, ctx.signal);
      result.revoked = true;
    } catch (error) {
      if (ctx.signal.aborted) throw new InterruptedError();
      result.revoke_error = (error as Error).message;
    }
  }

  // Deleted whatever the service said: the user asked for this machine to forget the sign-in.
  // Under the profile's lock, which a refresh holds while it writes a new pair: a refresh in
  // flight finishes first (and is deleted here), or starts after and finds nothing stored.
  const left = await ctx.withProfileLock(profile, async () => {
    const entryLeft = await ctx.secrets.delete(profile, OAUTH_SECRET_NAME, meta?.oauth?.storage);
    await ctx.config.update((data) => {
      const entry = data.profiles[profile];
      if (entry) delete entry.oauth;
    });
    return entryLeft;
  });
  if (left) {
    result.secret_left = left;
    warn(ctx, describeLeft(left));
  }

  if (result.revoked) note(ctx, `Logged out of ${where}: the connection was revoked at the service${left ? '' : ' and deleted here'}.`);
  else {
    warn(
      ctx,
      `the revoke failed${result.revoke_error ? ` (${result.revoke_error})` : ' (no stored tokens to revoke)'}; ` +
        `the sign-in of ${where} was deleted here, but the connection may still be active at the service: ` +
        "an admin can disconnect the app in the organization's connected apps",
    );
  }
  return result;
}
