// `svc logout [--all]`: revoke the OAuth connection at the service (RFC 7009), then
// delete the local secret. Offline, the local sign-in is still deleted and the user is
// told that the service was not reached, so they can disconnect the app there.
import { defineCommand, type ArgsOf, type FlagsOf } from './define.js';
import type { Context } from '../context.js';
import { OAUTH_SECRET_NAME } from '../config/config.js';
import type { ConfigData } from '../config/config.js';
import { checkAddress, explicitBaseUrl, requireProfile } from '../credentials/resolve.js';
import { describeLeft, type SecretLeft } from '../credentials/store.js';
import { CliError, InterruptedError, UsageError } from '../errors.js';
import { confirm } from '../io/interactive.js';
import { note, printJson, warn } from '../io/output.js';
import { fetchOf, clientOf, readStored, storageOf } from '../auth/stored.js';
import { revokeToken } from '../auth/tokens.js';
import { ENDPOINTS, joinUrl } from '../api/endpoints.js';
import { originOf, profileAddress, sameOrigin } from '../credentials/origin.js';

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
    const profile = requireProfile(config, name);
    // The revoke goes to the profile's own address; another one named here is a mistake to report.
    const address = explicitBaseUrl(ctx);
    if (address !== undefined) checkAddress(ctx, config, name, profile, address);
    names = [name];
  }
  await confirmSharedConnection(ctx, config, names);

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

  const address = profileAddress(meta);
  const endpoint = stored ? (stored.revocation_endpoint ?? joinUrl(address, ENDPOINTS['oauth.revoke'].path).href) : undefined;
  if (stored && endpoint && !sameOrigin(endpoint, address)) {
    // The token goes only to the profile's own origin (design.md "Credentials").
    result.revoke_error = `the stored revocation endpoint is on ${originOf(endpoint) ?? 'an invalid address'}, not on the profile's ${address}; the token was not sent`;
  } else if (stored && endpoint) {
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

/**
 * Revoking disconnects the app from the organization (service-spec.md §3, §4.3), which ends
 * every connection of that app to it: other profiles signed in to the same organization
 * through the same app on the same service end too. Say so and ask first (--yes otherwise).
 */
async function confirmSharedConnection(ctx: Context, config: ConfigData, leaving: string[]): Promise<void> {
  const affected = new Set<string>();
  for (const name of leaving) {
    const profile = config.profiles[name];
    if (!profile?.oauth || !profile.org_id) continue;
    for (const [other, candidate] of Object.entries(config.profiles)) {
      if (leaving.includes(other) || !candidate.oauth || candidate.oauth.ended_at) continue;
      if (
        candidate.org_id === profile.org_id &&
        candidate.oauth.client_id === profile.oauth.client_id &&
        sameOrigin(profileAddress(candidate), profileAddress(profile))
      )
        affected.add(other);
    }
  }
  if (affected.size === 0) return;
  const names = [...affected].map((n) => `"${n}"`).join(', ');
  const message =
    `logging out revokes the app's connection to the organization, which also ends the sign-in of ${affected.size === 1 ? 'profile' : 'profiles'} ${names} ` +
    '(same organization, same app)';
  if (ctx.globals.yes) {
    warn(ctx, message);
    return;
  }
  if (!ctx.io.canPrompt()) throw new UsageError(`${message}; nothing was changed`, `run it again with --yes to log out all the same, or \`svc logout --all\``);
  if (!(await confirm(ctx, `${message}. Log out anyway?`))) throw new CliError('nothing was changed', 1);
}
