// Asks the service whether a profile's stored credentials work (`svc auth status`): for each
// mode the profile has a credential for, what `svc account --profile P --<mode>` asks, through
// the same resolution (its guards: a damaged key is never sent) and the same pipe
// (`apiFor`, the context's). 401, a refused refresh or a credential resolution refuses:
// refused. Only the service's own scope refusal (its JSON `detail`, docs/contract.md
// "Conventions") means accepted without account:read; any other failure (a proxy's HTML 403,
// a network error) is "could not check", never "valid".
import type { ApiClient } from '../api/client.js';
import type { Profile } from '../config/config.js';
import type { Mode } from '../contract/constants.js';
import type { ResolvedCredential } from './resolve.js';
import { storedFor } from './resolve.js';
import { lackedScope } from '../api/errors.js';
import { ApiError, CliError, EXIT } from '../errors.js';

export type CredentialVerdict = 'valid' | 'refused' | 'unknown';

export interface CredentialCheck {
  /** `oauth`, or the key's name. */
  credential: string;
  kind: 'oauth' | 'api_key';
  mode: Mode;
  verdict: CredentialVerdict;
  /** Why: the service's answer, or what kept us from asking. */
  detail: string;
}

/** A verdict, and the error asking ended with (what `svc account` would have failed with), if it failed. */
export interface Asked extends Pick<CredentialCheck, 'verdict' | 'detail'> {
  failure?: CliError;
}

export interface CheckingContext {
  signal: AbortSignal;
  apiFor(choice: { profile: string; mode: Mode }): Promise<ApiClient<ResolvedCredential>>;
}

/** Every credential stored in the profile: its name, kind and mode. */
function storedCredentials(profile: Profile): Pick<CredentialCheck, 'credential' | 'kind' | 'mode'>[] {
  const list: Pick<CredentialCheck, 'credential' | 'kind' | 'mode'>[] = [];
  if (profile.oauth) list.push({ credential: 'oauth', kind: 'oauth', mode: 'live' });
  for (const key of Object.values(profile.keys ?? {}).sort((a, b) => a.name.localeCompare(b.name)))
    list.push({ credential: key.name, kind: 'api_key', mode: key.mode });
  return list;
}

/** The verdict of what asking answered; never throws but for Ctrl-C. */
function verdictOf(signal: AbortSignal, error: unknown): Asked {
  if (signal.aborted || !(error instanceof CliError)) throw error;
  if (lackedScope(error) !== undefined)
    return { verdict: 'valid', detail: 'accepted by the service (it lacks account:read, so its organization was not read)' };
  if (error instanceof ApiError && error.status === 401)
    return { verdict: 'refused', detail: 'refused by the service (revoked, expired or disconnected)', failure: error };
  // A refresh refused (invalid_grant), a key missing from its store or damaged: the AuthError svc account stops on.
  if (error.exitCode === EXIT.unauthenticated) return { verdict: 'refused', detail: error.message, failure: error };
  return { verdict: 'unknown', detail: `could not check: ${error.message}`, failure: error };
}

/** What `svc account` asks (GET /v1/account), of the client given; never throws but for Ctrl-C and bugs. */
export async function askAccount(signal: AbortSignal, client: () => Promise<ApiClient<ResolvedCredential>>): Promise<Asked> {
  try {
    const account = await (await client()).request<{ name: string }>({ endpoint: 'account.get' });
    return { verdict: 'valid', detail: `accepted by the service for ${account.name}` };
  } catch (error) {
    return verdictOf(signal, error);
  }
}

/** Asks what `svc account --profile NAME --<mode>` asks. */
async function askMode(ctx: CheckingContext, profileName: string, profile: Profile, mode: Mode): Promise<Asked> {
  const oauth = profile.oauth;
  if (mode === 'live' && oauth?.ended_at)
    return { verdict: 'refused', detail: `the connection ended ${oauth.ended_at}${oauth.ended_reason ? ` (${oauth.ended_reason})` : ''}` };
  return askAccount(ctx.signal, () => ctx.apiFor({ profile: profileName, mode }));
}

/**
 * Each stored credential of a profile with its verdict: the one each mode uses is asked; another
 * of the same mode (an older key, a live key beside the sign-in) is not used by any command.
 */
export async function checkProfile(ctx: CheckingContext, profileName: string, profile: Profile): Promise<(CredentialCheck & Pick<Asked, 'failure'>)[]> {
  const checks: (CredentialCheck & Pick<Asked, 'failure'>)[] = [];
  const asked = new Map<Mode, Asked>();
  for (const stored of storedCredentials(profile)) {
    const used = storedFor(profile, stored.mode);
    const usedName = used === 'oauth' ? 'oauth' : used?.name;
    if (usedName !== stored.credential) {
      const other = usedName === 'oauth' ? 'the OAuth sign-in' : `the key "${usedName}"`;
      checks.push({ ...stored, verdict: 'unknown', detail: `commands in ${stored.mode} mode use ${other}` });
      continue;
    }
    let verdict = asked.get(stored.mode);
    if (!verdict) asked.set(stored.mode, (verdict = await askMode(ctx, profileName, profile, stored.mode)));
    checks.push({ ...stored, ...verdict });
  }
  return checks;
}
