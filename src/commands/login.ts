// `svc login`: the OAuth 2.0 authorization code flow with PKCE for a native app
// (docs/contract.md "Authorize", "Token endpoint" and "Authentication" 7, RFC 6749 §4.1, RFC 7636, RFC 8252), storing the
// connection as one secret entry and the profile's metadata in config.json.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../kit/define.js';
import type { Context } from '../context.js';
import { SCOPES, CLI_CLIENT_ID, PREFIX } from '../contract/constants.js';
import { ENDPOINTS, joinUrl } from '../contract/endpoints.js';
import { chooseBaseUrl, chooseMode, chooseProfileName } from '../credentials/resolve.js';
import { profileAddress, sameOrigin } from '../credentials/origin.js';
import { OAUTH_SECRET_NAME, type Profile, type SecretStorage, type SignInInFlight } from '../config/config.js';
import { addSignIn, dropSignIn, signInEntry } from '../auth/interrupted.js';
import { describeLeft, leftByError, type SecretLeft } from '../credentials/store.js';
import { withCredentialTransaction, type ProfileTransaction } from '../credentials/transaction.js';
import { confirmedOrg } from '../credentials/confirmed.js';
import { recordSignIn } from '../credentials/sign-in.js';
import { redactedKey } from '../kit/keys.js';
import { AuthError, CliError, InterruptedError, NetworkError, UsageError } from '../errors.js';
import { confirm } from '../io/interactive.js';
import { checkWritableDir } from '../config/writable.js';
import { note, printObject, scopeList, warn } from '../io/output.js';
import { browserUnreachable } from '../kit/no-browser.js';
import { parsePastedRedirect, type CallbackOutcome, type ExpectedIssuer } from '../auth/callback.js';
import { discover, type AuthServerMetadata } from '../auth/discovery.js';
import { OAuthStepError } from '../auth/http.js';
import { PortInUseError, startLoopbackServer, type LoopbackServer } from '../auth/loopback.js';
import { createPkce, createState, type Pkce } from '../auth/pkce.js';
import { fetchOf, storedFromTokens, type StoredOAuth } from '../auth/stored.js';
import { revokeToken, type ClientAuth, type TokenSet } from '../auth/tokens.js';
import { BROWSER_ERROR_NOTE, callbackFailure, exchangeForKeeps } from '../kit/login/sign-in-answer.js';

export interface LoginOptions {
  /** Scopes to ask for; undefined asks for every scope of the contract, named (a standard server grants none when the request names none). */
  scopes?: string[];
  /** false: never try to open a browser (--no-browser). */
  browser: boolean;
  /** Loopback port; undefined lets the OS choose (RFC 8252 §7.3). */
  port?: number;
  timeoutSeconds: number;
  clientId?: string;
}

export const command = defineCommand({
  name: 'login',
  summary: 'sign in with your browser (OAuth) and store the connection for the profile',
  flags: {
    scopes: { value: '<list>', help: 'comma-separated scopes to ask for (default: all)' },
    browser: { negate: true, help: 'print the sign-in address instead of opening a browser' },
    port: { value: '<n>', kind: { type: 'integer', min: 1, max: 65535 }, help: 'loopback port for the redirect (default: random)' },
    timeout: { value: '<duration>', kind: { type: 'duration' }, default: '5m', help: 'how long to wait for the sign-in' },
    clientId: { value: '<id>', help: 'OAuth app client id (default: the svc app)' },
  },
  examples: ['svc login', 'svc login --profile work --scopes calls:read,calls:write', 'svc login --no-browser'],
  notes: "An organization's own app: --client-id (or SVC_CLIENT_ID); a confidential app also sets SVC_CLIENT_SECRET.",
  scopes: ['account:read'],
});

export function parse(_args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): LoginOptions {
  const opts: LoginOptions = { browser: flags.browser !== false, timeoutSeconds: flags.timeout / 1000 };

  if (flags.scopes !== undefined) {
    // Commas, or spaces as svc shows scopes (scopeList): a list copied from `svc auth status` works.
    const list = String(flags.scopes)
      .split(/[\s,]+/)
      .map((s) => s.trim())
      .filter(Boolean);
    if (list.length === 0) throw new UsageError(`--scopes needs at least one scope: ${scopeList(SCOPES)}`);
    const unknown = list.filter((s) => !(SCOPES as readonly string[]).includes(s));
    if (unknown.length > 0) throw new UsageError(`unknown scope ${unknown.map((s) => `"${s}"`).join(', ')}; the scopes are: ${scopeList(SCOPES)}`);
    opts.scopes = [...new Set(list)];
  }

  if (flags.port !== undefined) opts.port = flags.port;

  if (flags.clientId !== undefined) opts.clientId = checkClientId(String(flags.clientId), '--client-id');
  return opts;
}

function checkClientId(value: string, from: string): string {
  if (!value.startsWith(PREFIX.clientId) || value.length === PREFIX.clientId.length) {
    throw new UsageError(`${from} must be an OAuth client id starting with ${PREFIX.clientId}, not "${value}"`);
  }
  return value;
}

export interface LoginResult {
  profile: string;
  org_id: string;
  org_name: string | null;
  scopes: string[];
  base_url: string;
  client_id: string;
  expires_at: string;
  storage: string;
  /** API keys of the profile's previous organization, removed when it moved (login --yes). */
  removed_keys: RemovedKey[];
  /** Keychain entries of those keys that could not be deleted (remove them by hand). */
  secrets_left?: SecretLeft[];
}

export interface RemovedKey {
  name: string;
  mode: string;
  redacted: string;
}

export async function run(opts: LoginOptions, ctx: Context): Promise<void> {
  refuseWhatCannotSignIn(opts, ctx);
  // A login killed before recording its tokens: settled (revoked, or kept) before this one starts.
  await ctx.settleSignIns();
  const target = await whereToSignIn(ctx);
  const client = clientAuth(opts, ctx);
  const moving = await confirmAddressMove(ctx, target);
  // Where the sign-in will be kept, before the browser opens (a read-only home, another user's folder).
  await checkWritableDir(ctx.config.dir);
  await ctx.secrets.checkStorage?.();
  // One credential transaction: the secret and config.json change together under the profile's
  // lock, so a logout or a refresh elsewhere finds the whole sign-in or none of it.
  const { signedIn, kept, signedInTarget } = await withCredentialTransaction(ctx, target.profileName, (tx) =>
    signInAndKeep(ctx, tx, opts, target, client, moving),
  );
  const { tokens, stored } = signedIn;
  reportRemovedKeys(ctx, signedInTarget, tokens, kept, moving);
  // A sign-in never switches the profile's mode (src/credentials/mode.ts), and is always live:
  // the mode svc will use is said either way, with the way to the other.
  const profile = (await ctx.config.read()).profiles[target.profileName];
  if (profile?.mode === 'test') note(ctx, `Profile "${target.profileName}" stays in test mode: use --live for one command, or \`svc mode live\` to switch.`);
  else if (chooseMode(ctx, profile) === 'live')
    note(
      ctx,
      `svc uses live mode for profile "${target.profileName}" (a sign-in is always live).\n` +
        `For test mode: \`svc keys add\` a svc_test_ key, then \`svc mode test\` (or --test).`,
    );
  await printSignedIn(ctx, {
    profile: target.profileName,
    org_id: tokens.org_id,
    org_name: kept.orgName,
    scopes: tokens.scopes,
    base_url: target.baseUrl,
    client_id: client.clientId,
    expires_at: new Date(stored.expires_at).toISOString(),
    storage: kept.storage,
    removed_keys: kept.removed,
    ...(kept.left.length ? { secrets_left: kept.left } : {}),
  });
}

/** The profile every command would choose, as it is, and the address chosen for it. */
interface Target {
  profileName: string;
  existing: Profile | undefined;
  baseUrl: string;
}

async function whereToSignIn(ctx: Context): Promise<Target> {
  const config = await ctx.config.read();
  const profileName = chooseProfileName(ctx, config);
  const existing = Object.hasOwn(config.profiles, profileName) ? config.profiles[profileName] : undefined;
  return { profileName, existing, baseUrl: chooseBaseUrl(ctx, existing) };
}

/**
 * A profile is bound to one address (docs/design.md "Credentials"): moving it is deliberate, and
 * asked before the browser opens. Its keys belong to the old service and are removed. Whether it moves.
 */
async function confirmAddressMove(ctx: Context, { profileName, existing, baseUrl }: Target): Promise<boolean> {
  const moving = existing !== undefined && holdsAnything(existing) && !sameOrigin(profileAddress(existing), baseUrl);
  if (moving) await confirmMove(ctx, profileName, profileAddress(existing), baseUrl);
  return moving;
}

/** The service's metadata, the user's consent in the browser, and the code exchanged for tokens. */
async function signIn(ctx: Context, opts: LoginOptions, baseUrl: string, client: ClientAuth): Promise<{ metadata: AuthServerMetadata; tokens: TokenSet }> {
  const metadata = await step(() => discover(fetchOf(ctx), baseUrl, ctx.signal), ctx);
  const scopes = opts.scopes ?? [...SCOPES];
  const grant = await authorize(ctx, opts, metadata, client, scopes);
  // RFC 6749 §4.1.3 with RFC 7636 §4.5: the same redirect_uri, and the verifier.
  const revocationEndpoint = metadata.revocation_endpoint ?? joinUrl(baseUrl, ENDPOINTS['oauth.revoke'].path).href;
  const tokens = await step(() => exchangeForKeeps(ctx, metadata, client, { ...grant, scopes }, revocationEndpoint), ctx);
  return { metadata, tokens };
}

interface Kept {
  storage: SecretStorage;
  orgName: string | null;
  removed: RemovedKey[];
  left: SecretLeft[];
}

/** A sign-in whose tokens are stored; what revokes them when what follows fails. */
interface SignedIn {
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
 * (issue 44: on a full disk the whole sign-in ran, then storing failed); then the tokens are
 * stored, the organization's name read and config.json written, all before the lock goes.
 */
async function signInAndKeep(
  ctx: Context,
  tx: ProfileTransaction,
  opts: LoginOptions,
  before: Target,
  client: ClientAuth,
  moving: boolean,
): Promise<{ signedIn: SignedIn; kept: Kept; signedInTarget: Target }> {
  const config = await tx.config();
  const target = { ...before, existing: Object.hasOwn(config.profiles, tx.profile) ? config.profiles[tx.profile] : undefined };
  const reservation = await tx.reserveSecret(OAUTH_SECRET_NAME, SIGN_IN_BYTES, target.existing?.oauth?.storage);
  // On disk before the code is exchanged (src/auth/interrupted.ts): a kill from here on leaves
  // a name for whatever it stored, which the next command finds. Dropped with the record.
  const inFlight = signInEntry(tx.profile, target.baseUrl, client.clientId, ctx.clock.now());
  await ctx.config.update((data) => addSignIn(data, inFlight));
  try {
    const issued = await issue(ctx, opts, target, client, moving);
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

/** The browser's sign-in, its tokens, and (for another organization) the user's consent to move. */
async function issue(ctx: Context, opts: LoginOptions, target: Target, client: ClientAuth, moving: boolean): Promise<Omit<SignedIn, 'storage'>> {
  const { profileName, existing } = target;
  const { metadata, tokens } = await signIn(ctx, opts, target.baseUrl, client);
  const revocationEndpoint = metadata.revocation_endpoint ?? joinUrl(target.baseUrl, ENDPOINTS['oauth.revoke'].path).href;
  // A profile is one organization: moving it to another one must be deliberate.
  if (!moving && existing?.org_id && existing.org_id !== tokens.org_id) {
    await confirmOrganizationMove(ctx, profileName, existing, tokens, () => revokeUnused(ctx, revocationEndpoint, client, tokens).then(() => {}));
  }
  const stored = storedFromTokens(tokens, ctx.clock.now(), { client, token_endpoint: metadata.token_endpoint, revocation_endpoint: revocationEndpoint });
  return { tokens, stored, client, revocationEndpoint };
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

/** The keys a move removed, and the secrets that could not be deleted, as warnings. */
function reportRemovedKeys(
  ctx: Context,
  { profileName, existing, baseUrl }: Target,
  tokens: TokenSet,
  { orgName, removed, left }: Kept,
  moving: boolean,
): void {
  if (removed.length) {
    warn(
      ctx,
      `profile "${profileName}" moved to ${moving ? baseUrl : (orgName ?? tokens.org_id)}: its API keys of ${moving ? profileAddress(existing) : (existing?.org_name ?? existing?.org_id)} were removed: ` +
        removed.map((k) => `${k.mode} key "${k.name}" (${k.redacted})`).join(', '),
    );
  }
  for (const entry of left) warn(ctx, describeLeft(entry));
}

/**
 * The authorization step (RFC 6749 §4.1.1–4.1.2, RFC 8252 loopback redirect): the browser
 * or the printed address, and the callback's code, with what the token request needs with it.
 */
async function authorize(
  ctx: Context,
  opts: LoginOptions,
  metadata: AuthServerMetadata,
  client: ClientAuth,
  scopes: readonly string[],
): Promise<{ code: string; redirectUri: string; codeVerifier: string }> {
  const pkce = createPkce(ctx.random);
  const state = createState(ctx.random);
  // RFC 9207: the answer must name the issuer discovered, on the loopback and pasted alike.
  const issuer: ExpectedIssuer = { issuer: metadata.issuer, required: metadata.authorization_response_iss_parameter_supported === true };
  let loopback: LoopbackServer;
  try {
    loopback = await startLoopbackServer({ expectedState: state, expectedIssuer: issuer, ...(opts.port !== undefined ? { port: opts.port } : {}) });
  } catch (error) {
    if (error instanceof PortInUseError) {
      throw new UsageError(error.message, 'choose another --port, or leave --port out to use a free one');
    }
    throw error;
  }

  let outcome: CallbackOutcome;
  try {
    const url = authorizeUrl(metadata, client, loopback.redirectUri, pkce, state, [...scopes]);
    outcome = await waitForCallback(ctx, opts, url, loopback, state, issuer);
  } finally {
    await loopback.close();
  }

  if (outcome.kind !== 'code') throw callbackFailure(outcome, scopes, metadata, client.clientId);
  return { code: outcome.code, redirectUri: loopback.redirectUri, codeVerifier: pkce.verifier };
}

/**
 * A sign-in for another organization than the profile's: moved only when the user says so
 * (asked on a terminal, `--yes` otherwise); refused, the tokens just issued are revoked.
 */
async function confirmOrganizationMove(
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

/** What `svc login` prints: a line on stderr, the sign-in's fields (the JSON result with --json). */
async function printSignedIn(ctx: Context, result: LoginResult): Promise<void> {
  note(ctx, `Signed in to ${result.org_name ?? result.org_id} as profile "${result.profile}".`);
  await printObject(
    ctx,
    [
      ['profile', result.profile],
      ['organization', result.org_name ?? ''],
      ['org_id', result.org_id],
      ['scopes', result.scopes],
      ['base_url', result.base_url],
      ['stored_in', result.storage],
    ],
    result,
  );
}

/** A profile with a credential or an organization: its address means something. */
function holdsAnything(profile: Profile): boolean {
  return Boolean(profile.oauth || profile.org_id || Object.keys(profile.keys ?? {}).length);
}

/** Moving a profile to another address: asked on a terminal, --yes otherwise (never a silent move). */
async function confirmMove(ctx: Context, profileName: string, from: string, to: string): Promise<void> {
  const what = `profile "${profileName}" is bound to ${from}; signing in at ${to} moves it there (its API keys for ${from} are removed, its sign-in there is forgotten here)`;
  const other = `or sign in to ${to} under a profile of its own: \`svc login --base-url ${to} --profile NAME\``;
  if (!ctx.globals.yes && !ctx.io.canPrompt()) throw new UsageError(`${what}; nothing was changed`, `run it again with --yes to move the profile, ${other}`);
  if (!(await confirm(ctx, `${what}. Move it?`)))
    throw new CliError(`nothing was changed: profile "${profileName}" stays bound to ${from}`, 1, other.replace(/^or s/, 'S'));
}

/**
 * Tokens this login will not keep: revoke the grant (RFC 7009 §2.1, the refresh token ends it
 * whole) so the app does not stay connected to an organization nobody signed in to. Best effort:
 * a failure is reported, never thrown over the reason the login stopped.
 */
/** Revokes a sign-in svc will not keep; false (and said) when that failed. */
async function revokeUnused(ctx: Context, endpoint: string, client: ClientAuth, tokens: TokenSet): Promise<boolean> {
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

/** --client-id / SVC_CLIENT_ID, else the CLI's own public app; SVC_CLIENT_SECRET for a confidential one. */
function clientAuth(opts: LoginOptions, ctx: Context): ClientAuth {
  const fromEnv = ctx.env.SVC_CLIENT_ID;
  const clientId = opts.clientId ?? (fromEnv ? checkClientId(fromEnv, 'SVC_CLIENT_ID') : CLI_CLIENT_ID);
  const secret = ctx.env.SVC_CLIENT_SECRET;
  if (secret && clientId === CLI_CLIENT_ID)
    throw new UsageError(
      'SVC_CLIENT_SECRET is set, but the svc app is a public client without a secret',
      'unset SVC_CLIENT_SECRET, or pass --client-id of your own app',
    );
  if (secret && !secret.startsWith(PREFIX.clientSecret)) throw new UsageError(`SVC_CLIENT_SECRET must start with ${PREFIX.clientSecret}`);
  return secret ? { clientId, clientSecret: secret } : { clientId };
}

/** docs/contract.md "Authorize": the authorize request, with the RFC 6749 §4.1.1 response_type. */
export function authorizeUrl(metadata: AuthServerMetadata, client: ClientAuth, redirectUri: string, pkce: Pkce, state: string, scopes?: string[]): string {
  const url = new URL(metadata.authorization_endpoint);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', client.clientId);
  url.searchParams.set('redirect_uri', redirectUri);
  if (scopes) url.searchParams.set('scope', scopes.join(' '));
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', pkce.challenge);
  url.searchParams.set('code_challenge_method', pkce.method);
  return url.href;
}

/** --test is refused before anything starts (issue 44): a sign-in is always live. */
function refuseWhatCannotSignIn(_opts: LoginOptions, ctx: Context): void {
  if (ctx.globals.mode === 'test')
    throw new UsageError(
      'a sign-in is always live (an OAuth connection acts in live mode only): --test does not apply to svc login',
      'for test mode, store a test key: `svc keys add` (or set SVC_API_KEY to a svc_test_ key)',
    );
}

/**
 * No browser here and stdin ended without the redirect (a script's /dev/null, CI): nothing
 * can finish the sign-in, which used to wait out the whole --timeout (issue 44). The ways that
 * need no sign-in. (A pipe still open may yet carry the redirect: that is waited for.)
 */
function cannotComplete(noBrowser: string): UsageError {
  return new UsageError(
    `svc login cannot complete here: no browser can be opened (${noBrowser}) and stdin ended without the sign-in's redirect`,
    'in a script, set SVC_API_KEY to an API key, or store one with `svc keys add --stdin < key.txt`; to sign in, run svc login at a terminal (or set BROWSER)',
  );
}

/** Why no browser can be opened here, or null when one can: --no-browser, else src/kit/no-browser.ts. */
export function noBrowserReason(opts: Pick<LoginOptions, 'browser'>, env: Context['env'], platform: string): string | null {
  return opts.browser ? browserUnreachable(env, platform) : '--no-browser';
}

/** The first of: the loopback callback, a pasted redirect (no browser), the timeout, Ctrl-C. */
async function waitForCallback(
  ctx: Context,
  opts: LoginOptions,
  url: string,
  loopback: LoopbackServer,
  state: string,
  issuer: ExpectedIssuer,
): Promise<CallbackOutcome> {
  const done = new AbortController();
  const stop = AbortSignal.any([done.signal, ctx.signal]);
  try {
    let reason = noBrowserReason(opts, ctx.env, process.platform);
    // Printed once: a browser that failed to open points back to the address above.
    const urlShown = reason === null;
    if (reason === null) {
      note(ctx, `Opening your browser to sign in. If it does not open, visit:\n  ${url}\n${BROWSER_ERROR_NOTE}`);
      try {
        await ctx.browser.open(url);
      } catch (error) {
        reason = `the browser could not be opened (${(error as Error).message})`;
      }
    }
    const waits: Promise<CallbackOutcome>[] = [loopback.outcome, timeout(ctx, opts.timeoutSeconds, stop, reason !== null), interrupted(ctx.signal)];
    if (reason !== null) {
      note(
        ctx,
        (urlShown
          ? `No browser here (${reason}). Open the address above in a browser to sign in.\n`
          : `No browser here (${reason}). Open this address in a browser to sign in:\n  ${url}\n`) +
          `After you approve, the browser goes to ${loopback.redirectUri}?…; if that page does not load ` +
          `(the browser is on another machine), copy the whole address from its address bar and paste it here. ${BROWSER_ERROR_NOTE}`,
      );
      // Without a browser, stdin is the only way left: its end without the redirect ends the wait.
      const noBrowser = reason;
      waits.push(pastedRedirect(ctx, state, issuer, stop, () => cannotComplete(noBrowser)));
    } else if (ctx.io.stdin.isTTY) {
      // The opener may "succeed" while no browser ever comes (xdg-open failing later, a browser
      // on another display): on a terminal, a pasted redirect is accepted too, whichever comes first.
      note(ctx, `If no browser appears, open the address above elsewhere and paste the address it ends on (${loopback.redirectUri}?…) here.`);
      waits.push(pastedRedirect(ctx, state, issuer, stop));
    }
    return await Promise.race(waits);
  } finally {
    done.abort();
  }
}

/** `addressShown`: the address was already given to open elsewhere (no browser here), so --no-browser would add nothing. */
function timeout(ctx: Context, seconds: number, stop: AbortSignal, addressShown: boolean): Promise<never> {
  return ctx.clock.sleep(seconds * 1000, stop).then(
    () => {
      throw new AuthError(
        `no sign-in arrived within ${formatSeconds(seconds)}; gave up`,
        addressShown
          ? 'run `svc login` again (use --timeout to wait longer), and open the address it shows in a browser'
          : 'run `svc login` again (use --timeout to wait longer; if no browser opened, use --no-browser to get an address to open elsewhere and paste the result back)',
      );
    },
    () => new Promise<never>(() => {}), // stopped: another wait won
  );
}

function interrupted(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) reject(new InterruptedError());
    signal.addEventListener('abort', () => reject(new InterruptedError()), { once: true });
  });
}

/** Lines pasted on stdin until one is this login's redirect; at end of input, keeps waiting for the loopback, or fails with `atEnd`. */
async function pastedRedirect(ctx: Context, state: string, issuer: ExpectedIssuer, stop: AbortSignal, atEnd?: () => Error): Promise<CallbackOutcome> {
  // Ended through `stop`, not return(): return() would wait for the pending read, i.e. the next
  // Enter, and the open read keeps the process alive after the login has already ended.
  const lines = ctx.io.stdin.lines(stop)[Symbol.asyncIterator]();
  for (;;) {
    const next = await lines.next().catch((error: unknown) => {
      if (stop.aborted) return { done: true as const, value: undefined };
      throw error;
    });
    if (stop.aborted) return new Promise<never>(() => {});
    if (next.done) {
      // At a terminal, the end of input (Ctrl-D) leaves the loopback to wait on; elsewhere, `atEnd` says what is left.
      if (atEnd && !ctx.io.stdin.isTTY) throw atEnd();
      return new Promise<never>(() => {});
    }
    const line = next.value.trim();
    if (line === '') continue;
    const outcome = parsePastedRedirect(line, state, issuer);
    if (outcome.kind !== 'foreign') return outcome;
    warn(ctx, `that is not the redirect of this sign-in (${outcome.reason}); paste the whole address from the browser's address bar`);
  }
}

function formatSeconds(seconds: number): string {
  // The unit relativeTime (src/io/output.ts) would give: a day is "1 d", never "24 h".
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** Protocol failures to the design's exit codes: no answer → 9, a refusal → 3, nonsense → 1. */
async function step<T>(fn: () => Promise<T>, ctx: Context): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (ctx.signal.aborted) throw new InterruptedError();
    if (!(error instanceof OAuthStepError)) throw error;
    if (error.kind === 'network') throw new NetworkError(error.message, 'check the network and the base URL (--base-url / SVC_BASE_URL)');
    if (error.kind === 'oauth') throw new AuthError(error.message, 'run `svc login` again');
    throw new CliError(error.message);
  }
}

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
    const { createApiClient } = await import('../api/client.js');
    const api = createApiClient(
      { http: ctx.http, clock: ctx.clock, random: ctx.random, env: ctx.env, signal: ctx.signal, io: ctx.io, accessToken: async () => tokens.access_token },
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

export default commandModule({ command, parse, run });
