// Asks the service whether a stored credential still works (`svc auth status`, `svc
// doctor`): GET /v1/account with it. 401 means refused (revoked, expired, disconnected);
// 403 means accepted but without account:read, so the credential itself is fine.
import type { ApiClientDeps } from '../api/client.js';
import type { Profile } from '../config/config.js';
import type { ResolvedCredential } from './resolve.js';
import type { SecretStore } from './store.js';
import { confirmedOrg } from './confirmed.js';
import { ApiError, CliError } from '../errors.js';

export type CredentialVerdict = 'valid' | 'refused' | 'unknown';

export interface CredentialCheck {
  /** `oauth`, or the key's name. */
  credential: string;
  kind: 'oauth' | 'api_key';
  mode: 'test' | 'live';
  verdict: CredentialVerdict;
  /** Why: the service's answer, or what kept us from asking. */
  detail: string;
}

/** Every credential stored in the profile, as the resolution would use it. */
export function storedCredentials(profileName: string, profile: Profile, baseUrl: string): ResolvedCredential[] {
  const list: ResolvedCredential[] = [];
  if (profile.oauth) list.push({ kind: 'oauth', source: 'profile', mode: 'live', profileName, profile, baseUrl });
  for (const key of Object.values(profile.keys ?? {}).sort((a, b) => a.name.localeCompare(b.name)))
    list.push({ kind: 'api_key', source: 'profile', mode: key.mode, profileName, profile, baseUrl, keyName: key.name });
  return list;
}

/** Checks one credential online; never throws but for Ctrl-C. */
export async function checkCredential(ctx: ApiClientDeps & { secrets: SecretStore }, credential: ResolvedCredential): Promise<CredentialCheck> {
  const name = credential.kind === 'oauth' ? 'oauth' : (credential.keyName ?? 'SVC_API_KEY');
  const base = { credential: name, kind: credential.kind, mode: credential.mode } as const;
  try {
    if (credential.kind === 'api_key' && credential.apiKey === undefined) {
      const meta = credential.profile?.keys?.[name];
      const secret = await ctx.secrets.get(credential.profileName, name, meta?.storage);
      if (secret === null) return { ...base, verdict: 'refused', detail: `its secret is missing from ${meta?.storage ?? 'its store'}` };
      credential = { ...credential, apiKey: secret };
    }
    if (credential.kind === 'oauth' && credential.profile?.oauth?.ended_at)
      return {
        ...base,
        verdict: 'refused',
        detail: `the connection ended ${credential.profile.oauth.ended_at}${credential.profile.oauth.ended_reason ? ` (${credential.profile.oauth.ended_reason})` : ''}`,
      };
    const { createApiClient } = await import('../api/client.js');
    const account = await createApiClient(ctx, credential, confirmedOrg(credential)).request<{ id?: string; name?: string }>({ endpoint: 'account.get' });
    return { ...base, verdict: 'valid', detail: `accepted by the service${account?.name ? ` for ${account.name}` : ''}` };
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    if (error instanceof ApiError && error.status === 403)
      return { ...base, verdict: 'valid', detail: 'accepted by the service (it lacks account:read, so its organization was not read)' };
    if (error instanceof ApiError && error.status === 401)
      return { ...base, verdict: 'refused', detail: 'refused by the service (revoked, expired or disconnected)' };
    // A refresh refused (invalid_grant) is an AuthError: the connection is over.
    if (error instanceof CliError && error.exitCode === 3) return { ...base, verdict: 'refused', detail: error.message };
    return { ...base, verdict: 'unknown', detail: `could not check: ${(error as Error).message}` };
  }
}
