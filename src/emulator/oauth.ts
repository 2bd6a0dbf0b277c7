// OAuth operations over the state, each a step of RFC 6749 / RFC 7636 / RFC 7009.
import { createHash } from 'node:crypto';
import { LIMITS, PREFIX } from '../contract/constants.js';
import type { Scope } from '../contract/constants.js';
import { OAuthError } from './errors.js';
import { newId, randomToken, sameSecret, sha256 } from './ids.js';
import { endGrants, endUnauthorizedStreams } from './state.js';
import type { App, Grant, State } from './state.js';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
  org_id: string;
}

/** RFC 6749 §4.1.2: a code is short-lived (10 minutes here, docs/contract.md "Limits") and single-use. */
export function issueCode(state: State, request: { client_id: string; redirect_uri: string; scopes: Scope[]; code_challenge: string }, orgId: string): string {
  const code = randomToken(32);
  state.codes.set(sha256(code), {
    client_id: request.client_id,
    redirect_uri: request.redirect_uri,
    org_id: orgId,
    scopes: request.scopes,
    code_challenge: request.code_challenge,
    issued_at: state.clock.now(),
    used: false,
    grant_id: null,
  });
  return code;
}

/**
 * RFC 6749 §2.3.1 client authentication: HTTP Basic (confidential clients) or, for a
 * public client, just its client_id (it proves itself with the PKCE verifier instead).
 */
export function authenticateClient(state: State, authorization: string | undefined, formClientId: string | null, formSecret: string | null): App {
  if (formSecret !== null) throw new OAuthError(401, 'invalid_client', 'client_secret_post is not supported; use HTTP Basic');
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  if (basic?.[1]) {
    const { id, secret } = basicCredentials(basic[1]);
    const app = state.apps.get(id);
    if (!app || !app.secret_hash || !sameSecret(sha256(secret), app.secret_hash)) throw new OAuthError(401, 'invalid_client');
    if (formClientId !== null && formClientId !== id) throw new OAuthError(401, 'invalid_client', 'client_id does not match the Basic credentials');
    return app;
  }
  if (authorization) throw new OAuthError(401, 'invalid_client', 'unsupported client authentication');
  if (formClientId === null) throw new OAuthError(401, 'invalid_client', 'client authentication is required');
  const app = state.apps.get(formClientId);
  if (!app) throw new OAuthError(401, 'invalid_client');
  if (app.secret_hash) throw new OAuthError(401, 'invalid_client', 'a confidential client must authenticate with HTTP Basic');
  return app;
}

/**
 * The client id and secret of HTTP Basic credentials (base64 of `id:secret`, each form-encoded
 * first, §2.3.1); credentials that do not decode are invalid_client, as the service answers.
 */
export function basicCredentials(encoded: string): { id: string; secret: string } {
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const malformed = new OAuthError(401, 'invalid_client', 'malformed Basic credentials');
  if (colon < 0) throw malformed;
  try {
    const formDecode = (text: string) => decodeURIComponent(text.replace(/\+/g, ' '));
    return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    throw malformed;
  }
}

/** RFC 7636 §4.6: BASE64URL(SHA256(ASCII(code_verifier))) == code_challenge. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  const computed = createHash('sha256').update(verifier, 'ascii').digest('base64url');
  return sameSecret(computed, challenge);
}

/** RFC 6749 §4.1.3 (with RFC 7636 §4.5): exchange an authorization code. */
export function exchangeCode(state: State, app: App, code: string, redirectUri: string, verifier: string): TokenResponse {
  // RFC 7636 §4.1: 43–128 characters of the unreserved set.
  if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)) throw new OAuthError(400, 'invalid_request', 'code_verifier must be 43–128 unreserved characters');
  const record = state.codes.get(sha256(code));
  if (!record) throw new OAuthError(400, 'invalid_grant', 'unknown authorization code');
  if (record.used) {
    // §4.1.2: a code presented twice SHOULD revoke the tokens it issued.
    if (record.grant_id) endGrants(state, (grant) => grant.id === record.grant_id);
    throw new OAuthError(400, 'invalid_grant', 'the authorization code was already used; its tokens are revoked');
  }
  if (state.clock.now() >= record.issued_at + LIMITS.authorizationCodeSeconds * 1000) {
    throw new OAuthError(400, 'invalid_grant', 'the authorization code has expired');
  }
  if (record.client_id !== app.client_id) throw new OAuthError(400, 'invalid_grant', 'the code was issued to another client');
  if (record.redirect_uri !== redirectUri) throw new OAuthError(400, 'invalid_grant', 'redirect_uri differs from the authorization request');
  if (!pkceMatches(verifier, record.code_challenge)) throw new OAuthError(400, 'invalid_grant', 'code_verifier does not match the code_challenge');
  record.used = true;
  const grant: Grant = {
    id: newId('grant_'),
    client_id: app.client_id,
    org_id: record.org_id,
    scopes: record.scopes,
    active: true,
    created_at: state.clock.now(),
  };
  state.grants.set(grant.id, grant);
  record.grant_id = grant.id;
  return issueTokens(state, grant);
}

/** RFC 6749 §6: refresh; the refresh token rotates and the old access token dies (docs/contract.md "Authentication" 9). */
export function refresh(state: State, app: App, refreshToken: string, scope: string | null): TokenResponse {
  const record = state.refreshTokens.get(sha256(refreshToken));
  if (!record) throw new OAuthError(400, 'invalid_grant', 'unknown refresh token');
  const grant = state.grants.get(record.grant_id);
  if (!grant || grant.client_id !== app.client_id) throw new OAuthError(400, 'invalid_grant', 'the refresh token was issued to another client');
  if (record.used) {
    // Counted so that tests can prove a client never races its own refresh.
    state.stats.refresh_reuse++;
    throw new OAuthError(400, 'invalid_grant', 'the refresh token was already used');
  }
  if (!grant.active) throw new OAuthError(400, 'invalid_grant', 'the app was disconnected from the organization');
  // §6: a refresh may ask for fewer scopes than granted, never more; omitted means all granted.
  let scopes = grant.scopes;
  if (scope !== null) {
    const asked = [...new Set(scope.split(' ').filter(Boolean))];
    if (asked.length === 0 || asked.some((s) => !grant.scopes.includes(s as Scope))) {
      throw new OAuthError(400, 'invalid_scope', 'a refresh cannot widen the granted scopes');
    }
    scopes = grant.scopes.filter((s) => asked.includes(s));
  }
  record.used = true;
  for (const token of state.accessTokens.values()) {
    if (token.grant_id === grant.id) token.revoked = true;
  }
  // Streams opened with the old access token end with it.
  endUnauthorizedStreams(state);
  state.stats.refreshes++;
  return issueTokens(state, grant, scopes);
}

function issueTokens(state: State, grant: Grant, scopes: Scope[] = grant.scopes): TokenResponse {
  const access = PREFIX.accessToken + randomToken(32);
  const refreshToken = PREFIX.refreshToken + randomToken(32);
  state.accessTokens.set(sha256(access), {
    grant_id: grant.id,
    expires_at: state.clock.now() + LIMITS.accessTokenSeconds * 1000,
    revoked: false,
    scopes,
  });
  state.refreshTokens.set(sha256(refreshToken), { grant_id: grant.id, used: false });
  state.stats.tokens_issued++;
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: LIMITS.accessTokenSeconds,
    refresh_token: refreshToken,
    scope: scopes.join(' '),
    org_id: grant.org_id,
  };
}

/** RFC 7009 §2.1: revoking either token disconnects the app from that organization (docs/contract.md "Credential lifecycle"). */
export function revokeToken(state: State, token: string, clientId: string | null): void {
  const hash = sha256(token);
  const grantId = state.accessTokens.get(hash)?.grant_id ?? state.refreshTokens.get(hash)?.grant_id;
  const grant = grantId ? state.grants.get(grantId) : undefined;
  // §2.1: a token of another client is not revoked (and the answer stays 200, §2.2).
  if (!grant || (clientId !== null && grant.client_id !== clientId)) return;
  endGrants(state, (g) => g.client_id === grant.client_id && g.org_id === grant.org_id);
}
