// Which organization a credential acts for, as svc may say it: only what the service
// confirmed. A stored credential's profile records the organization the service answered
// when it was stored (keys add, login). SVC_API_KEY says nothing of its organization: the
// profile chosen beside it (the default, or one at another address) is not its owner.
import type { Profile } from '../config/config.js';
import type { ResolvedCredential } from './resolve.js';

/** The profile whose organization the credential is known to act for, or undefined (SVC_API_KEY). */
export function confirmedProfile(credential: Pick<ResolvedCredential, 'source' | 'profile'>): Profile | undefined {
  return credential.source === 'profile' ? credential.profile : undefined;
}

/** The organization's name (else its id) when confirmed, else undefined. */
export function confirmedOrg(credential: Pick<ResolvedCredential, 'source' | 'profile'>): string | undefined {
  const profile = confirmedProfile(credential);
  return profile?.org_name ?? profile?.org_id;
}

/** The organization in a sentence: its confirmed name, else what the credential is. */
export function orgLabel(credential: Pick<ResolvedCredential, 'source' | 'profile'>): string {
  return confirmedOrg(credential) ?? (credential.source === 'env' ? 'the organization of SVC_API_KEY' : 'the organization');
}
