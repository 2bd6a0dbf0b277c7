// `svc logout [--all] [--local]`: revoke the OAuth connection at the service (RFC 7009),
// then delete the local secret. A revoke that fails keeps the sign-in (forgetting it would
// leave a connection open that svc can no longer close) and exits with the failure's code;
// `--local` forgets it without revoking, saying that the connection stays open.
import { keepModeThroughChange } from '../credentials/mode.js';
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../kit/define.js';
import type { Context } from '../context.js';
import { OAUTH_SECRET_NAME } from '../config/config.js';
import type { ConfigData } from '../config/config.js';
import { checkAddress, chooseProfileName, explicitBaseUrl, requireProfile } from '../credentials/resolve.js';
import { describeLeft, type SecretLeft } from '../credentials/store.js';
import { AuthError, CliError, InterruptedError, KeychainError, NetworkError, UsageError } from '../errors.js';
import { confirm } from '../io/interactive.js';
import { note, warn } from '../io/output.js';
import { fetchOf, clientOf, parseStored, storageOf, type StoredOAuth } from '../auth/stored.js';
import { withCredentialTransaction, type ProfileTransaction } from '../credentials/transaction.js';
import { signInRunning } from '../auth/interrupted.js';
import { OAuthStepError } from '../auth/http.js';
import { exitOf } from '../error-codes.js';
import { revokeToken } from '../auth/tokens.js';
import { ENDPOINTS, joinUrl } from '../contract/endpoints.js';
import { originOf, profileAddress, sameOrigin } from '../credentials/origin.js';
import { jsonOnly, type CommandResult } from '../kit/result.js';

export interface LogoutOptions {
  all: boolean;
  /** Forget the sign-in here without revoking it at the service. */
  local: boolean;
}

export const command = defineCommand({
  summary: "revoke and forget the profile's OAuth sign-in",
  flags: {
    all: { help: 'log out of every profile' },
    local: { help: 'forget the sign-in here without revoking it (the connection stays open at the service)' },
  },
  examples: ['svc logout', 'svc logout --profile work', 'svc logout --all', 'svc logout --local'],
  scopes: [],
});

export function parse(_args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): LogoutOptions {
  return { all: flags.all === true, local: flags.local === true };
}

export interface LogoutResult {
  profile: string;
  /** Whether a sign-in was stored at all. */
  signed_in: boolean;
  /** true: revoked at the service; false: not revoked (--local, nothing stored, or the revoke failed). */
  revoked: boolean;
  revoke_error?: string;
  /** Whether the sign-in was forgotten here (false: kept, because its revoke failed). */
  forgotten: boolean;
  /** The keychain entry, when it could not be deleted (remove it by hand). */
  secret_left?: SecretLeft;
}

export async function run(opts: LogoutOptions, ctx: Context): Promise<CommandResult> {
  // What a login killed before recording its tokens left is settled (revoked) first.
  await ctx.settleSignIns();
  const config = await ctx.config.read();
  let names: string[];
  if (opts.all) {
    names = Object.keys(config.profiles).filter((name) => config.profiles[name]?.oauth);
  } else {
    const name = chooseProfileName(ctx, config);
    // A first login of this profile under way: the transaction below waits for it, then logs it out.
    if (!Object.hasOwn(config.profiles, name) && signInRunning(config, name, ctx.clock.now())) {
      note(ctx, `Waiting for the sign-in of profile "${name}" under way to finish…`);
    } else {
      const profile = requireProfile(config, name);
      // The revoke goes to the profile's own address; another one named here is a mistake to report.
      const address = explicitBaseUrl(ctx);
      if (address !== undefined) checkAddress(ctx, config, name, profile, address);
    }
    names = [name];
  }
  // Only a revoke ends the other profiles' sign-ins; forgetting one here leaves them be.
  if (!opts.local) await confirmSharedConnection(ctx, config, names);

  const results: LogoutResult[] = [];
  let failure: CliError | undefined;
  for (const profile of names) {
    const { result, error } = await logoutProfile(ctx, profile, opts.local);
    results.push(result);
    failure ??= error;
  }

  // Each profile's logout is said on stderr as it goes; a failed one is the run's error, after them all.
  return jsonOnly(opts.all ? results : results[0], {
    after: results.length === 0 ? 'No profile is signed in with OAuth; nothing to do.' : undefined,
    failure,
  });
}

/**
 * One credential transaction: read, revoke, delete and forget under the profile's lock, so a
 * login in flight finishes first (and is then logged out) or starts after (and is kept).
 */
function logoutProfile(ctx: Context, profile: string, local: boolean): Promise<{ result: LogoutResult; error?: CliError }> {
  return withCredentialTransaction(ctx, profile, (tx) => logoutUnderLock(ctx, tx, local));
}

async function logoutUnderLock(ctx: Context, tx: ProfileTransaction, local: boolean): Promise<{ result: LogoutResult; error?: CliError }> {
  const { profile } = tx;
  const config = await tx.config();
  const meta = config.profiles[profile];
  const where = `profile "${profile}"${meta?.org_name ? ` (${meta.org_name})` : ''}`;
  let stored: StoredOAuth | null;
  try {
    const text = await tx.getSecret(OAUTH_SECRET_NAME, storageOf(config, profile));
    stored = text === null ? null : parseStored(text, profile);
  } catch (error) {
    // A keychain that did not answer is not "nothing stored": forgetting the sign-in now
    // would leave its connection open with nothing here to close it. --local forgets anyway;
    // a profile config.json records no sign-in for has none to keep.
    if (!local && meta?.oauth) return { result: { profile, signed_in: true, revoked: false, forgotten: false }, error: unreadable(profile, where, error) };
    stored = null;
  }
  const result: LogoutResult = { profile, signed_in: stored !== null || meta?.oauth !== undefined, revoked: false, forgotten: false };
  if (!result.signed_in) {
    note(ctx, `${where} is not signed in with OAuth; nothing to log out.`);
    return { result };
  }

  // Marked before the revoke, cleared with the sign-in: a logout cut short between them is
  // found by the next command, and the next logout finishes it (src/credentials/resolve.ts).
  const cutShort = meta?.oauth?.logout_started_at;
  if (meta?.oauth && cutShort === undefined) {
    const startedAt = new Date(ctx.clock.now()).toISOString();
    await ctx.config.update((data) => {
      const oauth = data.profiles[profile]?.oauth;
      if (oauth) oauth.logout_started_at = startedAt;
    });
  }
  if (stored && !local) {
    const failure = await revoke(ctx, stored, profileAddress(meta));
    if (failure) {
      // Kept: forgetting it would leave open a connection svc could no longer close.
      result.revoke_error = failure.message;
      if (cutShort === undefined) await clearLogoutMark(ctx, profile);
      const error = new CliError(
        `could not revoke the OAuth connection of ${where}: ${failure.message}; the sign-in is kept`,
        failure.exitCode,
        forgetHint(profile),
      );
      return { result, error };
    }
    result.revoked = true;
    await tx.step('revoked');
  }

  const left = await tx.deleteSecret(OAUTH_SECRET_NAME, meta?.oauth?.storage);
  await tx.updateConfig((data) => {
    const entry = data.profiles[profile];
    if (entry) keepModeThroughChange(entry);
    if (entry) delete entry.oauth;
  });
  result.forgotten = true;
  if (left) {
    result.secret_left = left;
    warn(ctx, describeLeft(left));
  }

  const disconnect = "an admin can disconnect the app in the organization's connected apps";
  if (cutShort !== undefined && !result.revoked && !local) {
    // The logout cut short had revoked it before its secret went: only the record was left.
    result.revoked = true;
    note(ctx, `Finished the logout of ${where} cut short at ${cutShort}: the connection had been revoked at the service, and is deleted here.`);
  } else if (result.revoked) note(ctx, `Logged out of ${where}: the connection was revoked at the service${left ? '' : ' and deleted here'}.`);
  else if (local) note(ctx, `Forgot the sign-in of ${where} here without revoking it: the connection stays open at the service; ${disconnect}.`);
  else
    warn(
      ctx,
      `the sign-in of ${where} had no stored tokens to revoke; it was deleted here, but the connection may still be open at the service: ${disconnect}`,
    );
  return { result };
}

/** A logout that keeps the sign-in (its revoke failed) takes its mark back: the sign-in stays usable. */
async function clearLogoutMark(ctx: Context, profile: string): Promise<void> {
  await ctx.config
    .update((data) => {
      const oauth = data.profiles[profile]?.oauth;
      if (oauth) delete oauth.logout_started_at;
    })
    .catch(() => {});
}

/** What a kept sign-in suggests: run it again, or forget it here without revoking. */
function forgetHint(profile: string): string {
  return `run it again, or ${forgetLocally(profile)}`;
}

function forgetLocally(profile: string): string {
  return `\`svc logout${profile === 'default' ? '' : ` --profile ${profile}`} --local\` to forget it here without revoking (the connection then stays open at the service)`;
}

/** The stored sign-in could not be read (a keychain that did not answer, a damaged entry): it is kept, with the read's exit code. */
function unreadable(profile: string, where: string, error: unknown): CliError {
  const cause = error instanceof CliError ? error : new CliError((error as Error).message);
  const hint = cause.hint ? `${cause.hint}; or ${forgetLocally(profile)}` : forgetHint(profile);
  const message = `could not read the OAuth sign-in of ${where} to revoke it: ${cause.message}; the sign-in is kept`;
  // Still keychain_failed in --json when the keychain is the cause.
  return cause instanceof KeychainError ? new KeychainError(message, hint) : new CliError(message, cause.exitCode, hint);
}

/** Revokes the stored pair at the profile's own origin (RFC 7009); the failure, as a typed error, or null. */
async function revoke(ctx: Context, stored: StoredOAuth, address: string): Promise<CliError | null> {
  const endpoint = stored.revocation_endpoint ?? joinUrl(address, ENDPOINTS['oauth.revoke'].path).href;
  // The token goes only to the profile's own origin (docs/design.md "Credentials").
  if (!sameOrigin(endpoint, address))
    return new CliError(
      `the stored revocation endpoint is on ${originOf(endpoint) ?? 'an invalid address'}, not on the profile's ${address}; the token was not sent`,
    );
  try {
    // RFC 7009 §2.1: revoking the refresh token ends the whole grant (the access token too).
    await revokeToken(fetchOf(ctx), endpoint, clientOf(stored), { value: stored.refresh_token, hint: 'refresh_token' }, ctx.signal);
    return null;
  } catch (error) {
    if (ctx.signal.aborted) throw new InterruptedError();
    return revokeFailure(error);
  }
}

/** A failed revoke's exit code, as any request's (exitOf, the one table): no answer → 9, a status by its meaning, a refusal → 3. */
function revokeFailure(error: unknown): CliError {
  if (error instanceof CliError) return error;
  if (!(error instanceof OAuthStepError)) return new CliError((error as Error).message);
  const status = error.details.status;
  if (error.kind === 'network') return new NetworkError(error.message);
  if (status !== undefined && (status === 429 || status >= 500)) return new CliError(error.message, exitOf(status));
  if (error.kind === 'oauth') return new AuthError(error.message);
  return new CliError(error.message);
}

/**
 * Revoking disconnects the app from the organization (docs/contract.md "Credential lifecycle" and "Revocation"), which ends
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

export default commandModule({ command, parse, run });
