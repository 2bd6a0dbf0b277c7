// Token endpoint (docs/contract.md "Token endpoint", RFC 6749 §4.1.3 and §6) and revocation
// endpoint (§4.3, RFC 7009) requests, each paired with the validation of its answer.
import { rememberSecret } from '../io/redact.js';
import { OAuthStepError, parseJsonObject, send, type FetchLike } from './http.js';

/** Who the app is at the token endpoint. A public client (the CLI's own) has no secret. */
export interface ClientAuth {
  clientId: string;
  clientSecret?: string;
}

/** A token response that passed field-by-field validation (docs/contract.md "Credentials and scopes"). */
export interface TokenSet {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  /** Granted scopes, in the order the server listed them. */
  scopes: string[];
  org_id: string;
}

/** RFC 6749 §4.1.3: exchange the authorization code, proving possession of the PKCE verifier (RFC 7636 §4.5). */
export function exchangeCode(
  fetchLike: FetchLike,
  tokenEndpoint: string,
  client: ClientAuth,
  grant: { code: string; redirectUri: string; codeVerifier: string; scopes?: readonly string[] },
  signal?: AbortSignal,
): Promise<TokenSet> {
  return tokenRequest(
    fetchLike,
    tokenEndpoint,
    client,
    {
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: grant.redirectUri,
      code_verifier: grant.codeVerifier,
    },
    signal,
    grant.scopes,
  );
}

/** RFC 6749 §6: trade the (single-use) refresh token for a new pair; `scopes`: the granted ones, which §5.1 lets the answer leave out. */
export function refreshTokens(
  fetchLike: FetchLike,
  tokenEndpoint: string,
  client: ClientAuth,
  refreshToken: string,
  signal?: AbortSignal,
  scopes?: readonly string[],
): Promise<TokenSet> {
  return tokenRequest(fetchLike, tokenEndpoint, client, { grant_type: 'refresh_token', refresh_token: refreshToken }, signal, scopes);
}

/**
 * RFC 7009 §2.1: revoke a token, which on this service disconnects the app from the
 * organization (docs/contract.md "Revocation"). §2.2: 200 means revoked (or already unknown).
 */
export async function revokeToken(
  fetchLike: FetchLike,
  revocationEndpoint: string,
  client: ClientAuth,
  token: { value: string; hint: 'access_token' | 'refresh_token' },
  signal?: AbortSignal,
): Promise<void> {
  const { status, body } = await send(fetchLike, revocationEndpoint, {
    method: 'POST',
    headers: formHeaders(client),
    body: formBody(client, { token: token.value, token_type_hint: token.hint }),
    signal,
  });
  if (status !== 200) throw oauthError(status, body, 'the revocation endpoint');
}

async function tokenRequest(
  fetchLike: FetchLike,
  tokenEndpoint: string,
  client: ClientAuth,
  params: Record<string, string>,
  signal?: AbortSignal,
  requested?: readonly string[],
): Promise<TokenSet> {
  const { status, body, headers } = await send(fetchLike, tokenEndpoint, {
    method: 'POST',
    headers: formHeaders(client),
    body: formBody(client, params),
    signal,
  });
  // RFC 6749 §5.1: success is 200; anything else carries a §5.2 error.
  // (Retry-After: a 429 or 503 says when a retry may come; src/auth/refresh-retry.ts honours it.)
  if (status !== 200) throw oauthError(status, body, 'the token endpoint', headers.get('retry-after'));
  // Cache-Control: no-store is the server's duty; nothing for the client to check.
  const json = parseJsonObject(body, 'the token endpoint', { status, headers });
  try {
    return validateTokenResponse(json, requested);
  } catch (error) {
    // The server issued something svc will not keep: the caller revokes what it can name.
    if (error instanceof OAuthStepError) error.details.issued = issuedTokens(json);
    throw error;
  }
}

/** The tokens of an answer svc refused, as far as they can be sent back to be revoked. */
function issuedTokens(json: Record<string, unknown>): { refresh_token?: string; access_token?: string } {
  const usable = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= 64 * 1024;
  const issued: { refresh_token?: string; access_token?: string } = {};
  if (usable(json.refresh_token)) issued.refresh_token = rememberSecret(json.refresh_token);
  if (usable(json.access_token)) issued.access_token = rememberSecret(json.access_token);
  return issued;
}

/**
 * RFC 6749 §2.3.1: a confidential client authenticates with HTTP Basic (id and secret
 * form-encoded first); a public client sends only its client_id in the body (§3.2.1).
 */
function formHeaders(client: ClientAuth): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (client.clientSecret !== undefined) {
    const id = encodeURIComponent(client.clientId);
    const secret = encodeURIComponent(client.clientSecret);
    headers.authorization = `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
  }
  return headers;
}

function formBody(client: ClientAuth, params: Record<string, string>): string {
  const form = new URLSearchParams(params);
  if (client.clientSecret === undefined) form.set('client_id', client.clientId);
  return form.toString();
}

/** RFC 6749 §5.2: `error` (and `error_description`) in a JSON body. */
function oauthError(status: number, body: string, endpoint: string, retryAfter?: string | null): OAuthStepError {
  let code: string | undefined;
  let description: string | undefined;
  try {
    const json = JSON.parse(body) as Record<string, unknown>;
    if (typeof json.error === 'string') code = json.error;
    if (typeof json.error_description === 'string') description = json.error_description;
  } catch {
    // not JSON: keep the status alone
  }
  if (code === undefined) {
    return new OAuthStepError('invalid_response', `${endpoint} answered HTTP ${status}`, { status, retryAfter });
  }
  const text = description ? `${code}: ${description}` : code;
  return new OAuthStepError('oauth', `${endpoint} refused: ${text}`, { status, oauthError: code, retryAfter });
}

/** The longest token kept: a JWT access token with its claims fits well under it; anything longer is not a token. */
export const MAX_TOKEN_LENGTH = 4096;

/** RFC 6749 Appendix A.12/A.17 (VSCHAR without the space): what goes into a Bearer header and the store unchanged. */
const PRINTABLE = /^[\x21-\x7e]+$/;

/**
 * RFC 6749 §5.1 and docs/contract.md "Token response", checked one field at a time for what
 * svc relies on. The tokens are opaque (RFC 6749 §1.4): their shape is the server's business,
 * so only a bounded printable string is asked of them. `requested`: the scopes asked for,
 * which §5.1 lets the server leave out of its answer when it granted exactly those.
 */
export function validateTokenResponse(json: Record<string, unknown>, requested?: readonly string[]): TokenSet {
  const bad = (field: string, rule: string): never => {
    throw new OAuthStepError('invalid_response', `the token endpoint answered an invalid "${field}": ${rule}`);
  };
  const opaque = (field: string): string => {
    const value = json[field];
    if (typeof value !== 'string' || value.length === 0 || value.length > MAX_TOKEN_LENGTH || !PRINTABLE.test(value)) {
      return bad(field, `expected a token of 1 to ${MAX_TOKEN_LENGTH} printable characters`);
    }
    return value;
  };

  const access_token = opaque('access_token');
  const refresh_token = opaque('refresh_token');
  // Known as soon as they arrive, so no text svc prints can carry them (src/io/redact.ts).
  rememberSecret(access_token);
  rememberSecret(refresh_token);
  // RFC 6749 §7.1: the type is case-insensitive; the service uses Bearer.
  if (typeof json.token_type !== 'string' || json.token_type.toLowerCase() !== 'bearer') bad('token_type', 'expected Bearer');
  const expires_in = json.expires_in;
  if (typeof expires_in !== 'number' || !Number.isInteger(expires_in) || expires_in <= 0) {
    bad('expires_in', 'expected a positive whole number of seconds');
  }
  // An organization id: kept in config.json, shown, and compared; never a path or a prefix svc builds on.
  const org_id = json.org_id;
  if (typeof org_id !== 'string' || !/^[A-Za-z0-9_.:-]{1,128}$/.test(org_id)) bad('org_id', "expected the organization's id");
  // docs/contract.md "Credentials and scopes": granted scopes separated by single spaces. Scopes this version
  // does not know are kept (the service may add some), but the shape must hold.
  const scope = json.scope === undefined && requested ? requested.join(' ') : json.scope;
  if (typeof scope !== 'string') return bad('scope', 'expected the granted scopes separated by spaces');
  const scopes = scope === '' ? [] : scope.split(' ');
  if (scopes.some((item) => item === '' || !PRINTABLE.test(item))) bad('scope', 'expected scopes separated by single spaces');
  return { access_token, token_type: 'Bearer', expires_in: expires_in as number, refresh_token, scopes, org_id: org_id as string };
}
