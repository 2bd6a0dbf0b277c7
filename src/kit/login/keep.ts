// What `svc login` keeps of a sign-in, inside its credential transaction: the secret's place
// reserved before the browser opens, the tokens stored and the profile recorded with Ctrl-C held
// back, the organization's name read after; what cannot be kept is revoked at the service.
import type { Context } from '../../context.js';
import { OAUTH_SECRET_NAME, type Profile, type SecretStorage, type SignInInFlight } from '../../config/config.js';
import { addSignIn, dropSignIn, signInEntry } from '../../auth/interrupted.js';
import { describeLeft, leftByError, type SecretLeft } from '../../credentials/store.js';
import type { ProfileTransaction } from '../../credentials/transaction.js';
import { confirmedOrg } from '../../credentials/confirmed.js';
import { recordSignIn } from '../../credentials/sign-in.js';
import { redactedKey } from '../keys.js';
import { CliError, InterruptedError, UsageError } from '../../errors.js';
import { confirm } from '../../io/interactive.js';
import { note, warn } from '../../io/output.js';
import { fetchOf, type StoredOAuth } from '../../auth/stored.js';
import { revokeToken, type ClientAuth, type TokenSet } from '../../auth/tokens.js';

export interface RemovedKey {
  name: string;
  mode: string;
  redacted: string;
}

/** The profile every command would choose, as it is, and the address chosen for it. */
export interface Target {
  profileName: string;
  existing: Profile | undefined;
  baseUrl: string;
}

export interface Kept {
  storage: SecretStorage;
  orgName: string | null;
  removed: RemovedKey[];
  left: SecretLeft[];
}

/** A sign-in whose tokens are stored; what revokes them when what follows fails. */
export interface SignedIn {
  tokens: TokenSet;
  stored: StoredOAuth;
  storage: SecretStorage;
  client: ClientAuth;
  revocationEndpoint: string;
}

/** Room for the stored sign-in (tokens, endpoints, client): a sign-in's JSON is well under this. */
const SIGN_IN_BYTES = 8 * 1024;

/**
 * The login's credential transaction. The profile is read again under the lock (a logout may
 * have ended its sign-in meanwhile). The secret's place is made sure before the browser opens
 * (`issue`: so a full disk is found before the whole sign-in runs, not after); then the tokens are
 * stored, the organization's name read and config.json written, all before the lock goes.
 */
export async function signInAndKeep(
  ctx: Context,
  tx: ProfileTransaction,
  before: Target,
  client: ClientAuth,
  moving: boolean,
  issue: (target: Target) => Promise<Omit<SignedIn, 'storage'>>,
): Promise<{ signedIn: SignedIn; kept: Kept; signedInTarget: Target }> {
  const config = await tx.config();
  const target = { ...before, existing: Object.hasOwn(config.profiles, tx.profile) ? config.profiles[tx.profile] : undefined };
  const reservation = await tx.reserveSecret(OAUTH_SECRET_NAME, SIGN_IN_BYTES, target.existing?.oauth?.storage);
  // On disk before the code is exchanged (src/auth/interrupted.ts): a kill from here on leaves
  // a name for whatever it stored, which the next command finds. Dropped with the record.
  const inFlight = signInEntry(tx.profile, target.baseUrl, client.clientId, ctx.clock.now());
  await ctx.config.update((data) => addSignIn(data, inFlight));
  try {
    const issued = await issue(target);
    // The code is spent: the tokens are stored and recorded with Ctrl-C held back (bounded, said).
    const kept = await tx.keep(async () => {
      await tx.step('signed-in');
      return revokedIfNotKept(ctx, tx, issued, async (stored) => {
        const storage = await reservation.store(JSON.stringify(issued.stored));
        stored();
        // credentials.json's lock goes before config.json is written (a moved profile's keys are deleted there).
        await reservation.release();
        return recordKept(tx, target, issued, storage, moving, inFlight);
      });
    });
    // The organization's name, once the sign-in is kept: a request, never inside the window above.
    kept.orgName = await organizationNameKept(ctx, tx, target, issued.tokens, kept.orgName);
    return { signedIn: { ...issued, storage: kept.storage }, kept, signedInTarget: target };
  } finally {
    await reservation.release();
    await dropInFlight(ctx, inFlight);
  }
}

/** The login's entry, if the record did not take it (a login that failed); a config.json it alone made goes. */
async function dropInFlight(ctx: Context, inFlight: SignInInFlight): Promise<void> {
  const left = (await ctx.config.read().catch(() => null))?.sign_ins_in_flight?.some((e) => e.pid === inFlight.pid && e.started_at === inFlight.started_at);
  if (!left) return;
  await ctx.config.update((data) => dropSignIn(data, inFlight)).catch(() => {});
  await ctx.config.removeIfEmpty?.().catch(() => {});
}

/**
 * What a sign-in could not keep is revoked at once, so no connection stays open that nothing
 * here holds, and its secret, once stored, is deleted again: the transaction leaves nothing half.
 */
async function revokedIfNotKept<T>(
  ctx: Context,
  tx: ProfileTransaction,
  issued: Omit<SignedIn, 'storage'>,
  keep: (stored: () => void) => Promise<T>,
): Promise<T> {
  let secretStored = false;
  try {
    return await keep(() => (secretStored = true));
  } catch (error) {
    if (await revokeUnused(ctx, issued.revocationEndpoint, issued.client, issued.tokens))
      note(ctx, 'The new sign-in was revoked at the service: nothing of it stays open there.');
    if (secretStored) {
      const left = await tx.deleteSecret(OAUTH_SECRET_NAME).catch((failure: unknown) => leftByError(tx.profile, OAUTH_SECRET_NAME, failure));
      if (left) warn(ctx, describeLeft(left));
    }
    throw error;
  }
}

/** The profile's metadata, with the organization's name known so far (read after: organizationNameKept). */
async function recordKept(
  tx: ProfileTransaction,
  target: Target,
  issued: Omit<SignedIn, 'storage'>,
  storage: SecretStorage,
  moving: boolean,
  inFlight: SignInInFlight,
): Promise<Kept> {
  const { stored, tokens } = issued;
  const orgName = target.existing?.org_id === tokens.org_id ? (target.existing.org_name ?? null) : null;
  const { removed, left } = await recordProfile(tx, target.baseUrl, stored, tokens, orgName, storage, moving, inFlight);
  return { storage, orgName, removed, left };
}

/** The organization's name read with the new token, recorded when it is new. */
async function organizationNameKept(ctx: Context, tx: ProfileTransaction, target: Target, tokens: TokenSet, known: string | null): Promise<string | null> {
  const orgName = await organizationName(ctx, target, tokens);
  if (orgName !== null && orgName !== known)
    await tx.updateConfig((data) => {
      const profile = data.profiles[tx.profile];
      if (profile) profile.org_name = orgName;
    });
  return orgName;
}

/**
 * A sign-in for another organization than the profile's: moved only when the user says so
 * (asked on a terminal, `--yes` otherwise); refused, the tokens just issued are revoked.
 */
export async function confirmOrganizationMove(
  ctx: Context,
  profileName: string,
  existing: Profile,
  tokens: TokenSet,
  revokeIssued: () => Promise<void>,
): Promise<void> {
  const bound = `profile "${profileName}" belongs to ${existing.org_name ?? existing.org_id} (${existing.org_id}); this sign-in is for ${tokens.org_id}`;
  const elsewhere = 'or use `svc login --profile NAME` to sign in to that organization under a new profile';
  // Never prompt without a terminal: fail naming the flag that answers (docs/design.md).
  let refusal: CliError | undefined;
  if (!ctx.globals.yes && !ctx.io.canPrompt()) {
    refusal = new UsageError(`${bound}; nothing was stored`, `run it again with --yes to move the profile to the new organization, ${elsewhere}`);
  } else {
    const ok = await confirm(ctx, `${bound}. Move the profile to it (its API keys are removed)?`).catch(async (error: unknown) => {
      await revokeIssued();
      throw error;
    });
    if (!ok)
      refusal = new CliError(
        `nothing was stored: profile "${profileName}" stays with ${existing.org_name ?? existing.org_id}`,
        1,
        elsewhere.replace(/^or u/, 'U'),
      );
  }
  if (refusal) {
    // The code is already exchanged: the app is connected to that organization. Undo it (RFC 7009).
    await revokeIssued();
    throw refusal;
  }
}

/**
 * Tokens this login will not keep: revoke the grant (RFC 7009 §2.1, the refresh token ends it
 * whole) so the app does not stay connected to an organization nobody signed in to. Best effort:
 * a failure is reported, never thrown over the reason the login stopped.
 */
/** Revokes a sign-in svc will not keep; false (and said) when that failed. */
export async function revokeUnused(ctx: Context, endpoint: string, client: ClientAuth, tokens: TokenSet): Promise<boolean> {
  try {
    // After Ctrl-C too: a few seconds to end what would otherwise stay open.
    const signal = ctx.signal.aborted ? AbortSignal.timeout(REVOKE_AFTER_INTERRUPT_MS) : ctx.signal;
    await revokeToken(fetchOf(ctx), endpoint, client, { value: tokens.refresh_token, hint: 'refresh_token' }, signal);
    return true;
  } catch (error) {
    warn(
      ctx,
      `the new connection to ${tokens.org_id} could not be revoked (${(error as Error).message}); ` +
        'an admin of that organization can disconnect the app in its connected apps',
    );
    return false;
  }
}

/** How long a revocation may take once the login was interrupted. */
const REVOKE_AFTER_INTERRUPT_MS = 5_000;

/**
 * GET /v1/account with the new token, for the organization's name (needs account:read). The
 * token is the one just issued, handed to the client as is: the transaction holds the lock a
 * refresh would wait for.
 */
async function organizationName(ctx: Context, { profileName, baseUrl, existing }: Target, tokens: TokenSet): Promise<string | null> {
  const known = existing?.org_id === tokens.org_id ? (existing.org_name ?? null) : null;
  // Without account:read the service would answer 403: keep what we know instead of asking.
  if (!tokens.scopes.includes('account:read')) return known;
  try {
    const { createApiClient } = await import('../../api/client.js');
    const api = createApiClient(
      {
        http: ctx.http,
        clock: ctx.clock,
        random: ctx.random,
        env: ctx.env,
        proxy: ctx.proxy,
        signal: ctx.signal,
        io: ctx.io,
        accessToken: async () => tokens.access_token,
      },
      { kind: 'oauth', source: 'profile', mode: 'live', profileName, baseUrl },
      confirmedOrg({ source: 'profile', profile: existing }),
    );
    const account = await api.request<{ name?: unknown }>({ endpoint: 'account.get' });
    if (typeof account?.name === 'string') return account.name;
  } catch (error) {
    if (ctx.signal.aborted) throw new InterruptedError();
    warn(ctx, `signed in, but reading the organization's name failed: ${(error as Error).message}`);
  }
  return known;
}

async function recordProfile(
  tx: ProfileTransaction,
  baseUrl: string,
  stored: StoredOAuth,
  tokens: TokenSet,
  orgName: string | null,
  storage: SecretStorage,
  moved: boolean,
  inFlight: SignInInFlight,
): Promise<{ removed: RemovedKey[]; left: SecretLeft[] }> {
  const { removed: removedKeys, left } = await recordSignIn(tx, {
    inFlight,
    baseUrl,
    orgId: tokens.org_id,
    orgName,
    oauth: { client_id: stored.client_id, scopes: tokens.scopes, expires_at: stored.expires_at },
    storage,
    moved,
  });
  return { removed: removedKeys.map((k) => ({ name: k.name, mode: k.mode, redacted: redactedKey(k) })), left };
}
