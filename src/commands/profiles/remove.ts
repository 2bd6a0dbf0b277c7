// `svc profiles remove NAME [--revoke]`: deletes a profile's local secrets (its keys and
// OAuth sign-in) and its entry in config.json. With --revoke the OAuth connection is first
// revoked at the service (RFC 7009); if that fails nothing is deleted, so the user can
// retry or choose to remove it locally only. All of it is one credential transaction
// (src/credentials/transaction.ts), as login, logout and keys are.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';
import { DEFAULT_PROFILE, OAUTH_SECRET_NAME } from '../../config/config.js';
import { requireProfile } from '../../credentials/resolve.js';
import { describeLeft } from '../../credentials/store.js';
import type { SecretLeft } from '../../credentials/store.js';
import type { Profile, SecretStorage } from '../../config/config.js';
import { askBeforeDeleting } from '../../kit/ask-first.js';
import { FORWARD_SECRET_NAME } from '../../events/secret.js';
import { CliError, InterruptedError, UsageError } from '../../errors.js';
import { warn } from '../../io/output.js';
import { clientOf, fetchOf, parseStored } from '../../auth/stored.js';
import { revokeToken } from '../../auth/tokens.js';
import { ENDPOINTS, joinUrl } from '../../contract/endpoints.js';
import { profileAddress } from '../../credentials/origin.js';
import { withCredentialTransaction, type ProfileTransaction } from '../../credentials/transaction.js';
import { jsonOnly, textResult, type CommandResult } from '../../kit/result.js';

export interface ProfilesRemoveOptions {
  name: string;
  revoke: boolean;
}

export const command = defineCommand({
  summary: 'delete a profile: its local secrets and its config',
  args: [{ name: 'name', help: 'the profile (see svc profiles list)', required: true }],
  flags: {
    revoke: { help: 'first revoke its OAuth connection at the service' },
  },
  examples: ['svc profiles remove old', 'svc profiles remove work --revoke'],
  scopes: [],
});

export function parse(args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): ProfilesRemoveOptions {
  if (!args[0]) throw new UsageError('missing NAME: the profile to remove, see `svc profiles list`');
  return { name: args[0], revoke: flags.revoke === true };
}

export async function run(opts: ProfilesRemoveOptions, ctx: Context): Promise<CommandResult> {
  const config = await ctx.config.read();
  const asked = requireProfile(config, opts.name);
  await askBeforeDeleting(ctx, `Remove ${whereOf(opts.name, asked)} and the secrets stored for it (${secretsOf(asked)})?`);
  // One credential transaction, as login, logout and keys take: the profile is read again under
  // its lock, so a login or keys add that finished meanwhile has its secret deleted too, and one
  // that comes later waits for config.json to have forgotten the profile.
  const { profile, revoked, left } = await withCredentialTransaction(ctx, opts.name, (tx) => removeUnderLock(ctx, tx, opts));
  for (const entry of left) warn(ctx, describeLeft(entry));

  const where = whereOf(opts.name, profile);
  const stillActive = Boolean(profile.oauth && !profile.oauth.ended_at && !revoked);
  const value = { profile: opts.name, removed: true, revoked, oauth_still_active: stillActive, secrets_left: left };
  if (ctx.globals.json) return jsonOnly(value);
  const after = [
    ...(stillActive
      ? [
          "warning: its OAuth connection may still be active at the service: an admin can disconnect the app in the organization's connected apps (next time use --revoke)",
        ]
      : []),
    ...((config.default_profile ?? DEFAULT_PROFILE) === opts.name && Object.keys(config.profiles).length > 1
      ? ['It was the default profile: choose another with `svc auth switch NAME`.']
      : []),
  ];
  return textResult(value, `Removed ${where}${revoked ? ' and revoked its OAuth connection' : ''}.`, { after: after.length ? after.join('\n') : undefined });
}

function whereOf(name: string, profile: Profile): string {
  return `profile "${name}"${profile.org_name ? ` (${profile.org_name})` : ''}`;
}

/** Revoke (with --revoke), delete the profile's secrets and forget it, all as the profile is now. */
async function removeUnderLock(
  ctx: Context,
  tx: ProfileTransaction,
  opts: ProfilesRemoveOptions,
): Promise<{ profile: Profile; revoked: boolean; left: SecretLeft[] }> {
  const profile = requireProfile(await tx.config(), opts.name);
  const revoked = opts.revoke ? await revokeSignIn(ctx, tx, profile, opts.name) : false;
  const left: SecretLeft[] = [];
  for (const key of Object.values(profile.keys ?? {})) {
    const entry = await tx.deleteSecret(key.name, key.storage);
    if (entry) left.push(entry);
  }
  const oauth = await tx.deleteSecret(OAUTH_SECRET_NAME, profile.oauth?.storage);
  // (With no sign-in recorded, a keychain that cannot be asked holds none to report.)
  if (oauth && profile.oauth) left.push(oauth);
  // The forwarding secret svc made for the profile (`events tail --forward-to`) goes with it.
  const forwarding = await forwardingSecretStorage(tx);
  if (forwarding) {
    const entry = await tx.deleteSecret(FORWARD_SECRET_NAME, forwarding);
    if (entry) left.push(entry);
  }
  await tx.updateConfig((data) => {
    delete data.profiles[opts.name];
    if (data.default_profile === opts.name) delete data.default_profile;
  });
  return { profile, revoked, left };
}

/** --revoke: the OAuth connection revoked at the service first (RFC 7009); if that fails nothing is deleted. */
async function revokeSignIn(ctx: Context, tx: ProfileTransaction, profile: Profile, name: string): Promise<boolean> {
  const where = whereOf(name, profile);
  const text = profile.oauth ? await tx.getSecret(OAUTH_SECRET_NAME, profile.oauth.storage) : null;
  const stored = text === null ? null : parseStored(text, name);
  if (!stored) throw new UsageError(`${where} has no OAuth sign-in to revoke`, `run \`svc profiles remove ${name}\` without --revoke`);
  const endpoint = stored.revocation_endpoint ?? joinUrl(profileAddress(profile), ENDPOINTS['oauth.revoke'].path).href;
  try {
    // RFC 7009 §2.1: revoking the refresh token ends the whole grant (the access token too).
    await revokeToken(fetchOf(ctx), endpoint, clientOf(stored), { value: stored.refresh_token, hint: 'refresh_token' }, ctx.signal);
  } catch (error) {
    if (ctx.signal.aborted) throw new InterruptedError();
    throw new CliError(
      `could not revoke the OAuth connection of ${where}: ${(error as Error).message}; nothing was removed`,
      1,
      `run it again, or \`svc profiles remove ${name}\` without --revoke to remove it here only`,
    );
  }
  await tx.step('revoked');
  return true;
}

/** What removing the profile deletes, in words: "2 API keys and its OAuth sign-in". */
function secretsOf(profile: Profile): string {
  const keys = Object.keys(profile.keys ?? {}).length;
  const parts = [...(keys ? [`${keys} API key${keys === 1 ? '' : 's'}`] : []), ...(profile.oauth ? ['its OAuth sign-in'] : [])];
  return parts.length ? parts.join(' and ') : 'none recorded';
}

/** Where the profile's forwarding secret is (config.json does not record it); null when none can be found. */
async function forwardingSecretStorage(tx: ProfileTransaction): Promise<SecretStorage | null> {
  for (const storage of ['file', 'keychain'] as const) {
    if ((await tx.getSecret(FORWARD_SECRET_NAME, storage).catch(() => null)) !== null) return storage;
  }
  return null;
}

export default commandModule({ command, parse, run });
