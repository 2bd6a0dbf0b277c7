// `svc login`: the OAuth 2.0 authorization code flow with PKCE for a native app
// (docs/contract.md "Authorize", "Token endpoint" and "Authentication" 7, RFC 6749 §4.1, RFC 7636, RFC 8252), storing the
// connection as one secret entry and the profile's metadata in config.json.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../kit/define.js';
import type { Context } from '../context.js';
import { SCOPES, CLI_CLIENT_ID, PREFIX } from '../contract/constants.js';
import { ENDPOINTS, joinUrl } from '../contract/endpoints.js';
import { chooseBaseUrl, chooseMode, chooseProfileName } from '../credentials/resolve.js';
import { profileAddress, sameOrigin } from '../credentials/origin.js';
import type { Profile } from '../config/config.js';
import { describeLeft, type SecretLeft } from '../credentials/store.js';
import { withCredentialTransaction } from '../credentials/transaction.js';
import { AuthError, CliError, InterruptedError, NetworkError, UsageError } from '../errors.js';
import { confirm } from '../io/interactive.js';
import { checkWritableDir } from '../config/writable.js';
import { note, scopeList, warn } from '../io/output.js';
import { browserUnreachable } from '../kit/no-browser.js';
import type { CallbackOutcome, ExpectedIssuer } from '../auth/callback.js';
import { discover, type AuthServerMetadata } from '../auth/discovery.js';
import { OAuthStepError } from '../auth/http.js';
import { PortInUseError, startLoopbackServer, type LoopbackServer } from '../auth/loopback.js';
import { waitForRedirect } from '../auth/redirect-wait.js';
import { confirmOrganizationMove, revokeUnused, signInAndKeep, type Kept, type RemovedKey, type SignedIn, type Target } from '../kit/login/keep.js';
import { createPkce, createState, type Pkce } from '../auth/pkce.js';
import { fetchOf, storedFromTokens } from '../auth/stored.js';
import type { ClientAuth, TokenSet } from '../auth/tokens.js';
import { BROWSER_ERROR_NOTE, callbackFailure, exchangeForKeeps } from '../kit/login/sign-in-answer.js';
import { objectResult, type CommandResult } from '../kit/result.js';

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
export type { RemovedKey };

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
export async function run(opts: LoginOptions, ctx: Context): Promise<CommandResult> {
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
    signInAndKeep(ctx, tx, target, client, moving, (signingIn) => issue(ctx, opts, signingIn, client, moving)),
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
  return signedInResult(ctx, {
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
    outcome = await waitForRedirect(ctx, {
      url,
      loopback,
      state,
      issuer,
      noBrowser: noBrowserReason(opts, ctx.env, process.platform),
      timeoutSeconds: opts.timeoutSeconds,
      browserErrorNote: BROWSER_ERROR_NOTE,
    });
  } finally {
    await loopback.close();
  }

  if (outcome.kind !== 'code') throw callbackFailure(outcome, scopes, metadata, client.clientId);
  return { code: outcome.code, redirectUri: loopback.redirectUri, codeVerifier: pkce.verifier };
}
/** What `svc login` returns: the sign-in's fields (the JSON result with --json), said first on stderr. */
function signedInResult(ctx: Context, result: LoginResult): CommandResult {
  note(ctx, `Signed in to ${result.org_name ?? result.org_id} as profile "${result.profile}".`);
  return objectResult(result, [
    ['profile', result.profile],
    ['organization', result.org_name ?? ''],
    ['org_id', result.org_id],
    ['scopes', result.scopes],
    ['base_url', result.base_url],
    ['stored_in', result.storage],
  ]);
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
/** --test is refused before anything starts: a sign-in is always live. */
function refuseWhatCannotSignIn(_opts: LoginOptions, ctx: Context): void {
  if (ctx.globals.mode === 'test')
    throw new UsageError(
      'a sign-in is always live (an OAuth connection acts in live mode only): --test does not apply to svc login',
      'for test mode, store a test key: `svc keys add` (or set SVC_API_KEY to a svc_test_ key)',
    );
}
/** Why no browser can be opened here, or null when one can: --no-browser, else src/kit/no-browser.ts. */
export function noBrowserReason(opts: Pick<LoginOptions, 'browser'>, env: Context['env'], platform: string): string | null {
  return opts.browser ? browserUnreachable(env, platform) : '--no-browser';
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

export default commandModule({ command, parse, run });
