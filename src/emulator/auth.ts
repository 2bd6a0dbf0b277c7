// Who is calling: an API key (Bearer or X-Api-Key, docs/contract.md "Authentication" 1–2) or an OAuth
// access token (always live, docs/contract.md "Authentication" 8). Keys and tokens are looked up by their sha256 only.
import { PREFIX, modeOfKey } from '../contract/constants.js';
import type { Mode, Scope } from '../contract/constants.js';
import { missingScope, unauthorized } from './errors.js';
import { sha256 } from './ids.js';
import type { State } from './state.js';

export interface Credential {
  type: 'api_key' | 'oauth';
  org_id: string;
  mode: Mode;
  scopes: Scope[];
  key_id?: string;
  client_id?: string;
  /** What the rate limit counts against: each API key, and each connected app (docs/contract.md "Limits"). */
  rate_key: string;
  /** Re-checked by open streams, so that they end when the credential stops working. */
  authorized(): boolean;
  /** When the credential dies by itself (emulator clock, ms), for an OAuth access token; streams end then. */
  expires_at?: number;
}

export function presentedSecret(headers: { authorization?: string | undefined; apiKey?: string | undefined }): string | null {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  if (bearer?.[1]) return bearer[1];
  const apiKey = headers.apiKey?.trim();
  return apiKey ? apiKey : null;
}

/** Resolves a presented key or token to its credential, or throws 401. */
export function authenticate(state: State, secret: string | null): Credential {
  if (!secret) throw unauthorized('no API key or access token was sent');
  if (secret.startsWith(PREFIX.accessToken)) {
    const token = state.accessTokens.get(sha256(secret));
    const grant = token && state.grants.get(token.grant_id);
    if (!token || !grant) throw unauthorized('unknown access token');
    const authorized = () => !token.revoked && grant.active && state.clock.now() < token.expires_at;
    if (!authorized()) throw unauthorized('the access token is revoked or expired');
    return {
      type: 'oauth',
      org_id: grant.org_id,
      mode: 'live',
      scopes: token.scopes,
      client_id: grant.client_id,
      rate_key: `app:${grant.client_id}:${grant.org_id}`,
      authorized,
      expires_at: token.expires_at,
    };
  }
  const mode = modeOfKey(secret);
  const key = mode ? state.keysByHash.get(sha256(secret)) : undefined;
  if (!key) throw unauthorized('unknown API key');
  if (key.revoked) throw unauthorized('the API key has been revoked');
  key.last_used_at = state.clock.now();
  // Reaching the key through its collection marks it for the state file when this request writes
  // anyway; a read alone does not add a journal record just for the time.
  state.keys.get(key.id);
  return {
    type: 'api_key',
    org_id: key.org_id,
    mode: key.mode,
    scopes: key.scopes,
    key_id: key.id,
    rate_key: `key:${key.id}`,
    authorized: () => !key.revoked && state.orgs.has(key.org_id),
  };
}

export function requireScope(credential: Credential, scope: Scope): void {
  if (!credential.scopes.includes(scope)) throw missingScope(scope);
}
