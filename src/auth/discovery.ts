// Authorization server metadata discovery (RFC 8414), docs/contract.md "Authorization server".
import { OAuthStepError, parseJsonObject, send, type FetchLike } from './http.js';

export interface AuthServerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  revocation_endpoint?: string;
  scopes_supported?: string[];
  code_challenge_methods_supported?: string[];
}

/** RFC 8414 §3: the well-known URL, inserted between the host and any path of the issuer. */
export function metadataUrl(baseUrl: string): string {
  const base = new URL(baseUrl);
  const path = base.pathname.replace(/\/+$/, '');
  return `${base.origin}/.well-known/oauth-authorization-server${path}`;
}

/** RFC 8414 §3.1–3.3: fetch the metadata and validate it before using any of it. */
export async function discover(fetchLike: FetchLike, baseUrl: string, signal?: AbortSignal, url: string = metadataUrl(baseUrl)): Promise<AuthServerMetadata> {
  const what = `the authorization server metadata (${url})`;
  const { status, body, headers } = await send(fetchLike, url, { method: 'GET', headers: { accept: 'application/json' }, signal });
  // RFC 8414 §3.2: a successful response uses 200.
  if (status !== 200) throw new OAuthStepError('invalid_response', `${what} answered HTTP ${status}`, { status });
  return validateMetadata(parseJsonObject(body, what, { status, headers }), baseUrl);
}

export function validateMetadata(json: Record<string, unknown>, baseUrl: string): AuthServerMetadata {
  const what = 'the authorization server metadata';
  const url = (field: string, required: boolean): string | undefined => {
    const value = json[field];
    if (value === undefined && !required) return undefined;
    if (typeof value !== 'string' || !URL.canParse(value)) {
      throw new OAuthStepError('invalid_response', `${what} has no valid "${field}"`);
    }
    return value;
  };
  const strings = (field: string): string[] | undefined => {
    const value = json[field];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
      throw new OAuthStepError('invalid_response', `${what} has an invalid "${field}"`);
    }
    return value as string[];
  };

  const issuer = url('issuer', true)!;
  // RFC 8414 §3.3: the issuer must be identical to the one the metadata was asked for,
  // so a tampered document cannot send the login elsewhere.
  if (stripSlash(issuer) !== stripSlash(baseUrl)) {
    throw new OAuthStepError('invalid_response', `${what} names issuer ${issuer}, expected ${stripSlash(baseUrl)}`);
  }
  // Codes, refresh tokens and tokens to revoke go to these two: only on the issuer's own
  // origin, where the credential is bound (docs/design.md "Credentials"). A document naming
  // another origin (tampered, or a misconfigured proxy) is refused before anything is sent.
  // The authorization endpoint is a page in the admin's browser ({auth_url}): it may differ.
  const sameOriginAsIssuer = (field: string): string | undefined => {
    const value = url(field, field === 'token_endpoint');
    if (value !== undefined && new URL(value).origin !== new URL(issuer).origin) {
      throw new OAuthStepError(
        'invalid_response',
        `${what} puts its "${field}" on ${new URL(value).origin}, another origin than the issuer ${new URL(issuer).origin}; refused`,
      );
    }
    return value;
  };
  const metadata: AuthServerMetadata = {
    issuer,
    authorization_endpoint: url('authorization_endpoint', true)!,
    token_endpoint: sameOriginAsIssuer('token_endpoint')!,
  };
  const revocation = sameOriginAsIssuer('revocation_endpoint');
  if (revocation) metadata.revocation_endpoint = revocation;
  const scopes = strings('scopes_supported');
  if (scopes) metadata.scopes_supported = scopes;
  const methods = strings('code_challenge_methods_supported');
  if (methods) {
    metadata.code_challenge_methods_supported = methods;
    // RFC 7636 §4.2: we only ever send S256; a server without it cannot do this login.
    if (!methods.includes('S256')) throw new OAuthStepError('invalid_response', `${what} does not offer PKCE S256`);
  }
  return metadata;
}

function stripSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
