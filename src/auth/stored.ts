// The OAuth connection as stored: ONE secret entry `<profile>:oauth` holding JSON, so a
// token rotation is a single write (docs/design.md "Credentials").
import type { ConfigData, SecretStorage } from '../config/config.js';
import { OAUTH_SECRET_NAME } from '../config/config.js';
import type { SecretStore } from '../credentials/store.js';
import type { HttpTransport } from '../api/http.js';
import { AuthError } from '../errors.js';
import { rememberSecret } from '../io/redact.js';
import type { FetchLike } from './http.js';
import type { ClientAuth, TokenSet } from './tokens.js';

export interface StoredOAuth {
  org_id: string;
  access_token: string;
  refresh_token: string;
  /** Access token expiry, epoch ms. */
  expires_at: number;
  /** Granted scopes separated by single spaces, as the token endpoint sent them. */
  scope: string;
  client_id: string;
  token_endpoint: string;
  revocation_endpoint?: string;
  /** Only for an organization's own confidential app (SVC_CLIENT_SECRET at login): needed to refresh. */
  client_secret?: string;
}

/** Refresh this long before the access token expires (docs/design.md "Credentials"). */
export const REFRESH_AHEAD_MS = 60_000;

export function storedFromTokens(
  tokens: TokenSet,
  now: number,
  rest: { client: ClientAuth; token_endpoint: string; revocation_endpoint?: string },
): StoredOAuth {
  const stored: StoredOAuth = {
    org_id: tokens.org_id,
    access_token: tokens.access_token,
    refresh_token: tokens.refresh_token,
    expires_at: now + tokens.expires_in * 1000,
    scope: tokens.scopes.join(' '),
    client_id: rest.client.clientId,
    token_endpoint: rest.token_endpoint,
  };
  if (rest.revocation_endpoint) stored.revocation_endpoint = rest.revocation_endpoint;
  if (rest.client.clientSecret !== undefined) stored.client_secret = rest.client.clientSecret;
  return stored;
}

export function clientOf(stored: StoredOAuth): ClientAuth {
  return stored.client_secret === undefined ? { clientId: stored.client_id } : { clientId: stored.client_id, clientSecret: stored.client_secret };
}

/** The JSON of the entry, checked enough that a damaged entry is reported instead of crashing later. */
export function parseStored(text: string, profile: string): StoredOAuth {
  let value: Partial<StoredOAuth>;
  try {
    value = JSON.parse(text) as Partial<StoredOAuth>;
  } catch {
    throw damaged(profile);
  }
  const strings = ['org_id', 'access_token', 'refresh_token', 'scope', 'client_id', 'token_endpoint'] as const;
  if (typeof value !== 'object' || value === null || strings.some((f) => typeof value[f] !== 'string') || typeof value.expires_at !== 'number') {
    throw damaged(profile);
  }
  // Opaque tokens are scrubbed from every text by value (src/io/redact.ts).
  rememberSecret(value.access_token!);
  rememberSecret(value.refresh_token!);
  if (typeof value.client_secret === 'string') rememberSecret(value.client_secret);
  return value as StoredOAuth;
}

function damaged(profile: string): AuthError {
  return new AuthError(`the stored OAuth sign-in of profile "${profile}" is damaged`, `run \`svc login --profile ${profile}\` again`);
}

/** Where config.json says the entry lives (so the keychain is not asked in vain). */
export function storageOf(config: ConfigData, profile: string): SecretStorage | undefined {
  return config.profiles[profile]?.oauth?.storage;
}

export async function readStored(ctx: { secrets: SecretStore }, profile: string, storage?: SecretStorage): Promise<StoredOAuth | null> {
  const text = await ctx.secrets.get(profile, OAUTH_SECRET_NAME, storage);
  return text === null ? null : parseStored(text, profile);
}

/** `where`: where config.json says the entry is now (a rotation of a file-stored entry stays in the file, silently). */
export async function writeStored(ctx: { secrets: SecretStore }, profile: string, stored: StoredOAuth, where?: SecretStorage): Promise<SecretStorage> {
  return ctx.secrets.set(profile, OAUTH_SECRET_NAME, JSON.stringify(stored), where);
}

/** ctx.http (the invocation's one connection pool, --debug with redaction) as the protocol functions' fetch. */
export function fetchOf(ctx: { http: HttpTransport }): FetchLike {
  return (url, init) => ctx.http.fetch(url, init);
}
