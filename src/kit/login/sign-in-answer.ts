// What `svc login` says when the sign-in's answer or its code exchange goes wrong, each with a
// next step that works, and how a token pair the login cannot keep is ended at the service
// (RFC 7009), so that nothing it caused to be issued stays open unsaid.
import type { Context } from '../../context.js';
import type { CallbackOutcome } from '../../auth/callback.js';
import type { AuthServerMetadata } from '../../auth/discovery.js';
import { OAuthStepError } from '../../auth/http.js';
import { fetchOf } from '../../auth/stored.js';
import { exchangeCode, revokeToken, type ClientAuth, type TokenSet } from '../../auth/tokens.js';
import { DeadlineError } from '../../api/limits.js';
import { ConnectionError } from '../../api/network.js';
import { AuthError, CliError, InterruptedError, NetworkError } from '../../errors.js';
import { warn } from '../../io/output.js';

/** How a sign-in svc could not end itself is ended. */
export const END_BY_HAND = "an admin of the organization can end it by disconnecting the app in the organization's connected apps";

/** Said up front: an error page in the browser (an unknown client id, a redirect URI it refuses) never comes back to svc. */
export const BROWSER_ERROR_NOTE = 'If the browser shows an error instead of the sign-in page, press Ctrl-C: svc cannot see it.';

/** The error for every answer of the authorization step but a usable code. */
export function callbackFailure(
  outcome: Exclude<CallbackOutcome, { kind: 'code' }>,
  asked: readonly string[],
  metadata: AuthServerMetadata,
  clientId: string,
): CliError {
  switch (outcome.kind) {
    case 'denied':
      return new AuthError('the admin refused the sign-in (access_denied)', 'run `svc login` again and approve, or ask an admin of the organization');
    case 'wrong_issuer':
      return wrongIssuer(outcome.expected, outcome.got);
    case 'error': {
      const said = `${outcome.error}${outcome.description ? `: ${outcome.description}` : ''}`;
      if (outcome.error === 'invalid_scope') return scopeRefusal(asked, metadata, said, outcome.scope);
      if (outcome.error === 'unauthorized_client' || outcome.error === 'invalid_client')
        return new AuthError(
          `the service does not let the app ${clientId} sign in (${said})`,
          'check --client-id / SVC_CLIENT_ID, or ask an admin of the organization whether the app may connect',
        );
      return new AuthError(`the sign-in failed: ${outcome.error}${outcome.description ? ` (${outcome.description})` : ''}`, 'run `svc login` again');
    }
  }
}

/** RFC 9207 §2.4: an answer from another server than the one discovered (the mix-up attack, RFC 9700 §4.4), or one that does not name its server where it must. */
function wrongIssuer(expected: string, got: string | null): CliError {
  if (got === null)
    return new CliError(
      `the sign-in's answer did not name its server (no "iss"), though ${expected} says it always does (RFC 9207); svc did not use it`,
      1,
      'run `svc login` again; if it happens again, something between the browser and svc changes the answer',
    );
  return new CliError(
    `the sign-in's answer came from ${got}, not from ${expected}, where this login started (RFC 9207 "iss" differs); svc did not use its code`,
    1,
    `if you meant to sign in to ${got}, run \`svc login --base-url ${got}\`; otherwise the server at ${expected} may be trying to capture your sign-in: do not use it`,
  );
}

/** invalid_scope, naming the scope: asking again the same way would fail the same way. */
function scopeRefusal(asked: readonly string[], metadata: AuthServerMetadata, said: string, refused?: string): AuthError {
  const offered = metadata.scopes_supported;
  const notOffered = offered ? asked.filter((scope) => !offered.includes(scope)) : [];
  // The server's own word first (a `scope` on the error), then what its metadata does not offer, then its description.
  const byServer = refused ? asked.filter((scope) => refused.split(' ').includes(scope)) : [];
  const named = byServer.length ? byServer : notOffered.length ? notOffered : asked.filter((scope) => said.includes(scope));
  const rest = asked.filter((scope) => !named.includes(scope));
  if (named.length && rest.length)
    return new AuthError(
      `the service refused the scope${named.length > 1 ? 's' : ''} ${named.join(', ')} (${said})`,
      `sign in without ${named.length > 1 ? 'them' : 'it'}: svc login --scopes ${rest.join(',')}`,
    );
  return new AuthError(
    `the service refused the scopes asked for, ${asked.join(' ')} (${said})`,
    offered
      ? `ask only for scopes it offers with --scopes (it offers: ${offered.join(' ')}), or ask an admin of the organization which scopes the app may have`
      : 'ask for fewer with --scopes, or ask an admin of the organization which scopes the app may have',
  );
}

/** The code exchange's refusals, each with its own next step. */
function exchangeRefusal(error: OAuthStepError, asked: readonly string[], metadata: AuthServerMetadata, clientId: string): CliError {
  const said = error.message.replace(/^the token endpoint refused: /, '');
  switch (error.details.oauthError) {
    case 'invalid_grant':
      // The server sets how long a code lasts (RFC 6749 §4.1.2 advises at most 10 minutes); svc does not know it.
      return new AuthError(
        `the service refused the authorization code (${said}): the service's code expired before svc exchanged it, or it was used already`,
        'run `svc login` again and approve in the browser without a long pause',
      );
    case 'invalid_client':
      return new AuthError(
        `the token endpoint does not accept the app ${clientId} (${said})`,
        'check --client-id / SVC_CLIENT_ID (and SVC_CLIENT_SECRET for a confidential app)',
      );
    case 'invalid_scope':
      return scopeRefusal(asked, metadata, said);
    default:
      return new AuthError(error.message, 'run `svc login` again');
  }
}

/** A request that may have been processed though its answer never came: the code may have been spent. */
function mayBeProcessed(error: unknown): boolean {
  if (error instanceof DeadlineError) return error.reach === 'may-be-processed';
  if (error instanceof ConnectionError) return error.facts.reached;
  return error instanceof OAuthStepError && error.kind === 'invalid_response' && (error.details.status === 502 || error.details.status === 504);
}

/**
 * RFC 6749 §4.1.3: the code exchanged for tokens. What the service issued but svc refuses is
 * revoked at once. An exchange that may have been processed with its answer lost is sent once
 * more: the answer then either arrives, or refuses the code as used, which makes the server
 * revoke what the first use issued (RFC 6749 §4.1.2, §10.5). Whatever stays open is said.
 */
export async function exchangeForKeeps(
  ctx: Context,
  metadata: AuthServerMetadata,
  client: ClientAuth,
  grant: { code: string; redirectUri: string; codeVerifier: string; scopes: readonly string[] },
  revocationEndpoint: string,
): Promise<TokenSet> {
  const send = () => exchangeCode(fetchOf(ctx), metadata.token_endpoint, client, grant, ctx.signal);
  let first: unknown;
  try {
    return await send();
  } catch (error) {
    first = error;
  }
  if (ctx.signal.aborted) {
    await endInterruptedExchange(ctx, metadata, client, grant, revocationEndpoint);
    throw new InterruptedError();
  }
  if (first instanceof OAuthStepError && first.details.issued) {
    const ended = await revokeIssued(ctx, revocationEndpoint, client, first.details.issued);
    throw new CliError(`${first.message}; ${ended}`, 1, 'svc cannot use what this server answers; `svc --debug login` shows the answer (its tokens redacted)');
  }
  if (first instanceof OAuthStepError && first.kind === 'oauth') throw exchangeRefusal(first, grant.scopes, metadata, client.clientId);
  if (!mayBeProcessed(first)) throw first;
  try {
    return await send();
  } catch (again) {
    if (ctx.signal.aborted) throw new InterruptedError();
    const lost = `the code exchange got no answer (${(first as Error).message})`;
    if (again instanceof OAuthStepError && again.details.oauthError === 'invalid_grant')
      throw new NetworkError(
        `${lost}; sent once more, the code was refused as used, which makes the service end whatever the first exchange issued (RFC 6749 §4.1.2); nothing was stored`,
        "run `svc login` again; if the app still shows in the organization's connected apps, an admin can disconnect it there",
      );
    throw new NetworkError(
      `${lost}, and sending the code once more failed too (${(again as Error).message}); the service may have issued a sign-in that svc never received: it stays open until it expires, or ${END_BY_HAND}`,
      'check the network and the base URL, then run `svc login` again',
    );
  }
}

/** How long svc still works after Ctrl-C to end what the interrupted exchange may have issued. */
const AFTER_INTERRUPT_MS = 5_000;

/**
 * Ctrl-C during the code exchange: the service may have issued tokens whose answer svc no longer
 * reads. The code is sent once more, briefly: refused as used, the service ends what the first
 * use issued (RFC 6749 §4.1.2); answered, the new pair is revoked at once. Said either way.
 */
async function endInterruptedExchange(
  ctx: Context,
  metadata: AuthServerMetadata,
  client: ClientAuth,
  grant: { code: string; redirectUri: string; codeVerifier: string; scopes: readonly string[] },
  revocationEndpoint: string,
): Promise<void> {
  const signal = AbortSignal.timeout(AFTER_INTERRUPT_MS);
  try {
    const tokens = await exchangeCode(fetchOf(ctx), metadata.token_endpoint, client, grant, signal);
    await revokeToken(fetchOf(ctx), revocationEndpoint, client, { value: tokens.refresh_token, hint: 'refresh_token' }, signal);
    warn(ctx, 'the sign-in was interrupted during the code exchange; what the service issued was revoked there, nothing of it stays open');
  } catch (error) {
    if (error instanceof OAuthStepError && error.details.oauthError === 'invalid_grant')
      warn(
        ctx,
        'the sign-in was interrupted during the code exchange; its code, sent once more, was refused as used, which makes the service end what it issued',
      );
    else warn(ctx, `the sign-in was interrupted during the code exchange: if the service issued it, it stays open until it expires, or ${END_BY_HAND}`);
  }
}

/** Revokes tokens svc refused (the refresh token ends the whole grant, RFC 7009 §2.1); what happened, as a clause. */
async function revokeIssued(ctx: Context, endpoint: string, client: ClientAuth, issued: { refresh_token?: string; access_token?: string }): Promise<string> {
  const token = issued.refresh_token
    ? { value: issued.refresh_token, hint: 'refresh_token' as const }
    : issued.access_token
      ? { value: issued.access_token, hint: 'access_token' as const }
      : undefined;
  if (!token) return `if the service issued a sign-in, it stays open until it expires, or ${END_BY_HAND}`;
  try {
    await revokeToken(fetchOf(ctx), endpoint, client, token, ctx.signal);
    return 'the sign-in it issued was revoked at the service, nothing of it stays open';
  } catch (error) {
    return `revoking the sign-in it issued failed (${(error as Error).message}): it stays open until it expires, or ${END_BY_HAND}`;
  }
}
