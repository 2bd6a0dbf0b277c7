// RFC 8414 metadata, the token endpoint (RFC 6749 §3.2) and revocation (RFC 7009).
import type { Context, Hono } from 'hono';
import { SCOPES } from '../../contract/constants.js';
import { OAuthError } from '../errors.js';
import type { EmulatorEnv } from '../http.js';
import { authenticateClient, exchangeCode, refresh, revokeToken } from '../oauth.js';
import type { State } from '../state.js';
import { oauthRoute } from './wire.js';
import { JSON_BODY_LIMIT, readBody } from '../validate.js';

/** RFC 6749 §3.2: form-encoded parameters, none of them repeated. */
async function formParams(c: Context<EmulatorEnv>): Promise<(name: string) => string | null> {
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) {
    throw new OAuthError(400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
  }
  const params = new URLSearchParams((await readBody(c, JSON_BODY_LIMIT)).toString('utf8'));
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (seen.has(name)) throw new OAuthError(400, 'invalid_request', `parameter ${name} is repeated`);
    seen.add(name);
  }
  return (name) => {
    const value = params.get(name);
    return value === null || value === '' ? null : value;
  };
}

/** The issuer: the emulator's own address, never the request's Host (a forged Host must not name it). */
export function issuerOf(state: State, requestUrl: string): string {
  return state.address?.url ?? new URL(requestUrl).origin;
}

export function oauthRoutes(app: Hono<EmulatorEnv>, state: State): void {
  oauthRoute(app, 'oauth.metadata', (c) => {
    const origin = issuerOf(state, c.req.url);
    return c.json({
      issuer: origin,
      authorization_endpoint: `${origin}/oauth/authorize`,
      token_endpoint: `${origin}/oauth2/token`,
      revocation_endpoint: `${origin}/oauth2/revoke`,
      scopes_supported: [...SCOPES],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'none'],
      // RFC 9207: every authorization response names its issuer, the app's mix-up defence.
      authorization_response_iss_parameter_supported: true,
    });
  });

  oauthRoute(app, 'oauth.token', async (c) => {
    const param = await formParams(c);
    const client = authenticateClient(state, c.req.header('authorization'), param('client_id'), param('client_secret'));
    const grantType = param('grant_type');
    const required = (name: string) => {
      const value = param(name);
      if (value === null) throw new OAuthError(400, 'invalid_request', `missing parameter ${name}`);
      return value;
    };
    let tokens;
    if (grantType === null) throw new OAuthError(400, 'invalid_request', 'missing parameter grant_type');
    else if (grantType === 'authorization_code') {
      tokens = exchangeCode(state, client, required('code'), required('redirect_uri'), required('code_verifier'));
    } else if (grantType === 'refresh_token') {
      tokens = refresh(state, client, required('refresh_token'), param('scope'));
    } else throw new OAuthError(400, 'unsupported_grant_type', `grant_type ${grantType} is not supported`);
    // RFC 6749 §5.1: token responses must not be cached.
    return c.json(tokens, 200, { 'Cache-Control': 'no-store', Pragma: 'no-cache' });
  });

  oauthRoute(app, 'oauth.revoke', async (c) => {
    const param = await formParams(c);
    const token = param('token');
    if (token === null) throw new OAuthError(400, 'invalid_request', 'missing parameter token');
    // Client authentication is optional for public clients ("none"), checked when sent.
    const authorization = c.req.header('authorization');
    const clientId = authorization ? authenticateClient(state, authorization, param('client_id'), null).client_id : param('client_id');
    revokeToken(state, token, clientId);
    return c.body(null, 200);
  });
}
