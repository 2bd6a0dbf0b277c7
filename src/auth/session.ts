// The access token of a profile's OAuth connection, refreshed when needed (docs/design.md
// "Credentials"). Refresh tokens are single use (docs/contract.md "Authentication" 9), so two processes
// refreshing at once would make the second present a used token and lose the connection.
// Hence: refresh only under the per-profile lock, and re-read the stored pair inside it.
import type { ConfigData, SecretStorage } from '../config/config.js';
import { DiskFullError, type SecretReservation } from '../credentials/store.js';
import { withCredentialTransaction, type ProfileTransaction, type TransactionDeps } from '../credentials/transaction.js';
import { OAUTH_SECRET_NAME } from '../config/config.js';
import type { HttpTransport } from '../api/http.js';
import type { Clock, Random } from '../shared/runtime.js';
import { AuthError, InterruptedError, NetworkError } from '../errors.js';
import { originOf, profileAddress, sameOrigin } from '../credentials/origin.js';
import { OAuthStepError, type FetchLike } from './http.js';
import { clientOf, parseStored, readStored, REFRESH_AHEAD_MS, storageOf, type StoredOAuth } from './stored.js';
import { refreshTokens, revokeToken } from './tokens.js';
import { withRefreshRetries } from './refresh-retry.js';

export interface AccessTokenOptions {
  /** The service answered 401 to the current token: get a new one even if it looks valid. */
  forceRefresh: boolean;
  /** The token the service refused (defaults to the last one this process handed out for the profile). */
  failedToken?: string;
}

/** What a session uses (the context has all of it): the profile's credential transaction, and the network. */
export interface SessionDeps extends TransactionDeps {
  http: HttpTransport;
  clock: Clock;
  random: Random;
  signal: AbortSignal;
  /** A line for the user (stderr): the refreshed sign-in could not be stored, the command goes on. */
  warn?(message: string): void;
  /** A refreshed pair that could not be stored: held for this command only, revoked by close(). */
  unsaved?(pair: StoredOAuth): void;
}

export interface OAuthSession {
  accessToken(profile: string, opts: AccessTokenOptions): Promise<string>;
  /** Revokes each refreshed pair that could not be stored (RFC 7009), saying so: nothing stays open that nothing here holds. */
  close(): Promise<void>;
}

/** One per context: it remembers the tokens it handed out, so a 401 names the one that failed. */
export function createOAuthSession(deps: SessionDeps): OAuthSession {
  /**
   * The token last handed out per profile. After a 401, the stored token may already be a
   * newer one (another process rotated it meanwhile): only the token that actually failed
   * tells "rotated since" apart from "still the refused one".
   */
  const handedOut = new Map<string, string>();
  const unsaved: StoredOAuth[] = [];
  const holding: SessionDeps = { ...deps, unsaved: (pair) => unsaved.push(pair) };
  return {
    accessToken: (profile, opts) => getOAuthAccessToken(holding, handedOut, profile, opts),
    async close() {
      // Its own bound: the command's signal may be the Ctrl-C that is ending it.
      for (const pair of unsaved.splice(0))
        deps.warn?.(`the refreshed sign-in that could not be saved: ${await revokeRefused(deps, pair, pair, AbortSignal.timeout(REVOKE_BOUND_MS))}`);
    },
  };
}

/** How long revoking an unsaved pair may hold the end of a command. */
const REVOKE_BOUND_MS = 5_000;

async function getOAuthAccessToken(ctx: SessionDeps, handedOut: Map<string, string>, profile: string, opts: AccessTokenOptions): Promise<string> {
  const handOut = (token: string): string => {
    handedOut.set(profile, token);
    return token;
  };
  const config = await ctx.config.read();
  const storage = storageOf(config, profile);
  const stored = await readStored(ctx, profile, storage);
  if (stored === null) {
    throw new AuthError(`profile "${profile}" has no OAuth sign-in stored`, `run \`svc login --profile ${profile}\``);
  }
  if (!opts.forceRefresh && !nearExpiry(stored, ctx.clock.now())) return handOut(stored.access_token);

  const failedToken = opts.forceRefresh ? (opts.failedToken ?? handedOut.get(profile) ?? stored.access_token) : stored.access_token;
  const token = await withCredentialTransaction(ctx, profile, async (tx) => {
    // Inside the transaction: another process may have rotated the pair (or logged out) while we waited.
    const now = await tx.config();
    const where = storageOf(now, profile);
    const current = await readIn(tx, where);
    if (current === null) throw new AuthError(`profile "${profile}" has no OAuth sign-in stored`, `run \`svc login --profile ${profile}\``);
    const rotatedMeanwhile = current.access_token !== failedToken;
    if (!nearExpiry(current, ctx.clock.now()) && (!opts.forceRefresh || rotatedMeanwhile)) return current.access_token;
    return refreshUnderLock(ctx, tx, now, current, where);
  });
  return handOut(token);
}

/** The stored pair, read in the transaction. */
async function readIn(tx: ProfileTransaction, where: SecretStorage | undefined): Promise<StoredOAuth | null> {
  const text = await tx.getSecret(OAUTH_SECRET_NAME, where);
  return text === null ? null : parseStored(text, tx.profile);
}

function nearExpiry(stored: StoredOAuth, now: number): boolean {
  return stored.expires_at - REFRESH_AHEAD_MS <= now;
}

/** RFC 6749 §6, then the new pair is stored before anything else can fail. Part of the profile's transaction. */
async function refreshUnderLock(
  ctx: SessionDeps,
  tx: ProfileTransaction,
  config: ConfigData,
  current: StoredOAuth,
  where: SecretStorage | undefined,
): Promise<string> {
  const { profile } = tx;
  const meta = config.profiles[profile];
  const orgName = meta?.org_name ?? current.org_id;
  // The refresh token goes only to the token endpoint of the profile's own origin (docs/design.md "Credentials").
  const address = profileAddress(meta);
  if (!sameOrigin(current.token_endpoint, address)) {
    throw new AuthError(
      `the stored sign-in of profile "${profile}" names a token endpoint on ${originOf(current.token_endpoint) ?? 'an invalid address'}, not on the profile's ${address}; its refresh token was not sent`,
      `run \`svc login --profile ${profile}\``,
    );
  }
  // The new pair's place first (credentials.json's lock, its temp file at full size): a full
  // disk fails here, before the single-use refresh token is spent.
  const reservation = await tx.reserveSecret(OAUTH_SECRET_NAME, newPairBytes(current), where);
  try {
    return await refreshInto(ctx, tx, current, orgName, where, meta?.oauth?.refresh_started_at !== undefined, reservation);
  } finally {
    await reservation.release();
  }
}

/** Room for the new pair: the old one's size and a margin (a new pair is about as long as the old). */
function newPairBytes(current: StoredOAuth): number {
  return Buffer.byteLength(JSON.stringify(current)) + 1024;
}

async function refreshInto(
  ctx: SessionDeps,
  tx: ProfileTransaction,
  current: StoredOAuth,
  orgName: string,
  where: SecretStorage | undefined,
  earlierInterrupted: boolean,
  reservation: SecretReservation,
): Promise<string> {
  const { profile } = tx;
  // (earlierInterrupted: a mark still there from an earlier refresh, which never stored its new pair.)
  await markRefreshInFlight(tx, new Date(ctx.clock.now()).toISOString());
  let tokens;
  try {
    // 429/5xx/network: retried, then exit 7/9 (src/auth/refresh-retry.ts); refusals come through as before.
    // One deadline for the refresh and its retries, as for any request (src/api/client.ts).
    const deadline = ctx.http.deadline?.(0);
    const fetch: FetchLike = (url, init) => ctx.http.fetch(url, deadline ? { ...init, deadline } : init);
    tokens = await withRefreshRetries(ctx, profile, () =>
      refreshTokens(fetch, current.token_endpoint, clientOf(current), current.refresh_token, ctx.signal, current.scope ? current.scope.split(' ') : []),
    );
  } catch (error) {
    if (error instanceof OAuthStepError && error.details.issued) {
      // The service rotated the pair and answered one svc refuses: the old token is spent and the
      // new one unusable, so the sign-in is over; what was issued is ended at the service.
      const failure = new ConnectionEndedError(
        `refreshing the sign-in of profile "${profile}" failed: ${error.message}; ${await revokeRefused(ctx, current, error.details.issued)}`,
        `svc login --profile ${profile}`,
        'invalid_response',
      );
      await recordEnded(ctx, tx, current, failure.oauthError);
      throw failure;
    }
    if (error instanceof OAuthStepError && error.kind === 'oauth' && error.details.oauthError === 'invalid_grant') {
      // Another process may have rotated the pair while this one was stopped (its lock then taken
      // over as stale): the refusal is of our old token, not of the connection.
      const now = await readIn(tx, where).catch(() => null);
      if (now && now.refresh_token !== current.refresh_token) {
        await markRefreshInFlight(tx, undefined);
        return now.access_token;
      }
      if (earlierInterrupted) {
        const failure = new ConnectionEndedError(
          `the last refresh of profile "${profile}" was interrupted before its new tokens were stored, so the sign-in to ${orgName} is lost; run svc login`,
          `svc login --profile ${profile}`,
          'refresh_interrupted',
        );
        await recordEnded(ctx, tx, current, failure.oauthError);
        throw failure;
      }
    }
    const failure = refreshFailure(ctx, error, profile, orgName, current.client_id);
    if (failure instanceof ConnectionEndedError) await recordEnded(ctx, tx, current, failure.oauthError);
    // The service answered: this refresh is over (a network failure may have spent the token: the mark stays).
    else if (error instanceof OAuthStepError && error.kind !== 'network') await markRefreshInFlight(tx, undefined);
    throw failure;
  }
  if (tokens.org_id !== current.org_id) {
    throw new AuthError(
      `the service answered a refresh of profile "${profile}" with another organization (${tokens.org_id})`,
      `run \`svc login --profile ${profile}\``,
    );
  }
  const next: StoredOAuth = {
    ...current,
    access_token: tokens.access_token,
    refresh_token: tokens.refresh_token,
    expires_at: ctx.clock.now() + tokens.expires_in * 1000,
    scope: tokens.scopes.join(' '),
  };
  // The old refresh token is spent now: the new pair is stored with Ctrl-C held back (said, and
  // bounded). If it cannot be stored after all, this command still finishes with it, and says
  // the sign-in is lost for the next one (the in-flight mark stays, so that one says the refresh
  // was interrupted, not "ended").
  return tx.keep(async () => {
    await tx.step('answered');
    let storage: SecretStorage;
    try {
      storage = await reservation.store(JSON.stringify(next));
    } catch (error) {
      ctx.warn?.(unsavedSignIn(error, profile));
      ctx.unsaved?.(next);
      return next.access_token;
    }
    await tx
      .updateConfig((config) => {
        const meta = config.profiles[profile]?.oauth;
        if (meta) {
          Object.assign(meta, { expires_at: next.expires_at, scopes: tokens.scopes, storage });
          delete meta.ended_at;
          delete meta.ended_reason;
          delete meta.refresh_started_at;
        }
      })
      .catch(() => {
        // Metadata only (shown by auth status); the tokens themselves are safe.
      });
    return next.access_token;
  });
}

/** What the user reads when a refreshed pair could not be stored: where, why, and what to do. */
function unsavedSignIn(error: unknown, profile: string): string {
  const login = `svc login${profile === 'default' ? '' : ` --profile ${profile}`}`;
  const after = 'this command goes on with it, then it is revoked at the service';
  if (error instanceof DiskFullError) return `the sign-in could not be saved at ${error.path} (the disk is full); ${after}: free space and run ${login}`;
  return `the sign-in could not be saved (${(error as Error).message}); ${after}: run ${login}`;
}

/** Records (an ISO time) or clears (undefined) the in-flight mark of the profile's refresh. Best effort: it only words a later error. */
async function markRefreshInFlight(tx: ProfileTransaction, startedAt: string | undefined): Promise<void> {
  await tx
    .updateConfig((config) => {
      const meta = config.profiles[tx.profile]?.oauth;
      if (!meta) return;
      if (startedAt === undefined) delete meta.refresh_started_at;
      else meta.refresh_started_at = startedAt;
    })
    .catch(() => {});
}

/** Revokes a refreshed pair svc refused (RFC 7009; the refresh token ends the grant); what happened, as a clause. */
async function revokeRefused(
  ctx: SessionDeps,
  current: StoredOAuth,
  issued: { refresh_token?: string; access_token?: string },
  signal: AbortSignal = ctx.signal,
): Promise<string> {
  const value = issued.refresh_token ?? issued.access_token;
  const endpoint = current.revocation_endpoint;
  const byHand = "an admin of the organization can end it by disconnecting the app in the organization's connected apps";
  if (value === undefined || endpoint === undefined || !sameOrigin(endpoint, current.token_endpoint))
    return `the sign-in the service issued stays open until it expires, or ${byHand}`;
  try {
    const fetch: FetchLike = (url, init) => ctx.http.fetch(url, init);
    await revokeToken(fetch, endpoint, clientOf(current), { value, hint: issued.refresh_token ? 'refresh_token' : 'access_token' }, signal);
    return 'what it issued was revoked at the service, nothing of it stays open';
  } catch (failure) {
    return `revoking what it issued failed (${(failure as Error).message}): it stays open until it expires, or ${byHand}`;
  }
}

/** The service refused the refresh token for good: the connection is over. */
class ConnectionEndedError extends AuthError {
  constructor(
    message: string,
    hint: string,
    readonly oauthError: string,
  ) {
    super(message, hint);
  }
}

/**
 * Remembers in config.json that the connection ended, so `svc auth status` reports it
 * instead of a live-looking sign-in. Nothing is deleted (`svc login` replaces it). Only
 * when the stored pair is still the refused one: a login in another process meanwhile wins.
 */
async function recordEnded(ctx: SessionDeps, tx: ProfileTransaction, refused: StoredOAuth, oauthError: string): Promise<void> {
  const still = await readIn(tx, storageOf(await tx.config(), tx.profile)).catch(() => null);
  if (still && still.refresh_token !== refused.refresh_token) return;
  await tx
    .updateConfig((config) => {
      const meta = config.profiles[tx.profile]?.oauth;
      if (!meta) return;
      Object.assign(meta, { ended_at: new Date(ctx.clock.now()).toISOString(), ended_reason: oauthError });
      delete meta.refresh_started_at;
    })
    .catch(() => {
      // Status only: the error the user sees already says to sign in again.
    });
}

function refreshFailure(ctx: { signal: AbortSignal }, error: unknown, profile: string, orgName: string, clientOfProfile: string): Error {
  if (ctx.signal.aborted) return new InterruptedError();
  if (error instanceof OAuthStepError) {
    if (error.kind === 'network') return new NetworkError(error.message, 'check the network and the base URL, then try again');
    // invalid_grant: revoked, disconnected by the org, or used; invalid_client: the app was deleted.
    // Nothing stored is deleted: `svc auth status` still shows the profile, `svc login` replaces it.
    if (error.kind === 'oauth' && (error.details.oauthError === 'invalid_grant' || error.details.oauthError === 'invalid_client')) {
      const code = error.details.oauthError;
      // A server with reuse detection answers a used refresh token with invalid_grant and ends the
      // whole grant: what the user must hear is that someone else may hold a copy.
      const why =
        code === 'invalid_client'
          ? `the service no longer knows the app ${clientOfProfile} (invalid_client)`
          : `the service refused its refresh token (${error.message.replace(/^the token endpoint refused: /, '')}): the app was disconnected, or the token had been used already; if no other svc here refreshed it, a copy of it may have been used elsewhere`;
      return new ConnectionEndedError(
        `the connection to ${orgName} has ended; run svc login — ${why}`,
        code === 'invalid_client'
          ? `svc login --profile ${profile}`
          : `svc login --profile ${profile}; if a copy may have leaked, ask an admin of ${orgName} to check its connected apps`,
        code,
      );
    }
    return new AuthError(`refreshing the sign-in of profile "${profile}" failed: ${error.message}`, `run \`svc login --profile ${profile}\``);
  }
  return error instanceof Error ? error : new Error(String(error));
}
