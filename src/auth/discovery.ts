// Authorization server metadata discovery (RFC 8414), docs/contract.md "Authorization server".
import { OAuthStepError, parseJsonObject, send, type FetchLike } from './http.js';

export interface AuthServerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  revocation_endpoint?: string;
  scopes_supported?: string[];
  code_challenge_methods_supported?: string[];
  /** RFC 9207 §3: every authorization response carries `iss`, and svc then requires it. */
  authorization_response_iss_parameter_supported?: boolean;
}

/** RFC 8414 §3: the well-known URL, inserted between the host and any path of the issuer. */
export function metadataUrl(baseUrl: string): string {
  const base = new URL(baseUrl);
  const path = base.pathname.replace(/\/+$/, '');
  return `${base.origin}/.well-known/oauth-authorization-server${path}`;
}

/** The other place servers keep it for an issuer with a path: the well-known name appended to the issuer. */
export function appendedMetadataUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/.well-known/oauth-authorization-server`;
}

/**
 * RFC 8414 §3.1–3.3: fetch the metadata and validate it before using any of it. For an issuer
 * with a path, §3.1's address comes first and the appended form second (only after a 404), so
 * an issuer without a path costs one request.
 */
export async function discover(fetchLike: FetchLike, baseUrl: string, signal?: AbortSignal): Promise<AuthServerMetadata> {
  const urls = [...new Set([metadataUrl(baseUrl), appendedMetadataUrl(baseUrl)])];
  const notFound: string[] = [];
  for (const [index, url] of urls.entries()) {
    const what = `the authorization server metadata (${url})`;
    const { status, body, headers } = await send(fetchLike, url, { method: 'GET', headers: { accept: 'application/json' }, signal });
    if (status === 404 && index < urls.length - 1) {
      notFound.push(url);
      continue;
    }
    // RFC 8414 §3.2: a successful response uses 200.
    if (status !== 200) {
      const tried = notFound.length ? ` (also tried ${notFound.join(', ')}: 404)` : '';
      throw new OAuthStepError('invalid_response', `${what} answered HTTP ${status}${tried}`, { status });
    }
    return validateMetadata(parseJsonObject(body, what, { status, headers }), baseUrl);
  }
  throw new Error('unreachable: the last address always answers');
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
  const issSupported = json.authorization_response_iss_parameter_supported;
  if (issSupported !== undefined && typeof issSupported !== 'boolean') {
    throw new OAuthStepError('invalid_response', `${what} has an invalid "authorization_response_iss_parameter_supported"`);
  }
  const authorizationEndpoint = url('authorization_endpoint', true)!;
  // RFC 9700 §4.4 (mix-up): a document at --base-url may name another server's sign-in page, and
  // that server's code would then come back to be redeemed here. A server that names itself in
  // its answers (RFC 9207 `iss`) lets svc tell; without that, the sign-in page must be the
  // issuer's own origin, where the code it issues is the issuer's.
  if (issSupported !== true && new URL(authorizationEndpoint).origin !== new URL(issuer).origin) {
    throw new OAuthStepError(
      'invalid_response',
      `${what} sends the sign-in to ${new URL(authorizationEndpoint).origin}, another origin than the issuer ${new URL(issuer).origin}, ` +
        'without naming itself in its answers (RFC 9207 "authorization_response_iss_parameter_supported"), so a sign-in there could not be told from one meant for another server; refused',
    );
  }
  const metadata: AuthServerMetadata = {
    issuer,
    authorization_endpoint: authorizationEndpoint,
    token_endpoint: sameOriginAsIssuer('token_endpoint')!,
  };
  if (issSupported === true) metadata.authorization_response_iss_parameter_supported = true;
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
