// Recording a new OAuth sign-in in config.json (`svc login`): the profile takes the
// organization and address the sign-in was made for. Keys of another organization or
// address would act for it under the profile's name, so they go, secrets included.
import { keepModeThroughChange } from './mode.js';
import type { ConfigData, KeyMeta, OAuthMeta, Profile, SecretStorage, SignInInFlight } from '../config/config.js';
import { DEFAULT_PROFILE } from '../config/config.js';
import type { SecretLeft } from './store.js';
import type { ProfileTransaction } from './transaction.js';

export interface SignIn {
  baseUrl: string;
  orgId: string;
  /** null: the organization's name could not be read (the stored one stays). */
  orgName: string | null;
  oauth: Pick<OAuthMeta, 'client_id' | 'scopes' | 'expires_at'>;
  /** Where the tokens were stored. */
  storage: SecretStorage;
  /** The profile moves from another address (confirmed by the user). */
  moved: boolean;
  /** The login's entry in config.json (src/auth/interrupted.ts): dropped in the same write that records the sign-in. */
  inFlight?: SignInInFlight;
}

/** Part of the login's transaction. Returns the keys removed and any secret that could not be deleted. */
export async function recordSignIn(tx: ProfileTransaction, signIn: SignIn): Promise<{ removed: KeyMeta[]; left: SecretLeft[] }> {
  const profileName = tx.profile;
  const removed = await tx.updateConfig((config: ConfigData) => {
    const profile: Profile = config.profiles[profileName] ?? {};
    let removedKeys: KeyMeta[] = [];
    if (signIn.moved || (profile.org_id && profile.org_id !== signIn.orgId)) {
      // Keys of the old organization (or service) would act for it under this profile's new name.
      // Its mode stays (src/credentials/mode.ts): a sign-in never switches it, nor does a key removed.
      keepModeThroughChange(profile);
      removedKeys = Object.values(profile.keys ?? {});
      delete profile.keys;
      delete profile.org_name;
    }
    keepModeThroughChange(profile, 'live');
    profile.base_url = signIn.baseUrl;
    profile.org_id = signIn.orgId;
    if (signIn.orgName !== null) profile.org_name = signIn.orgName;
    profile.oauth = { ...signIn.oauth, storage: signIn.storage };
    config.profiles[profileName] = profile;
    const entry = signIn.inFlight;
    if (entry) {
      config.sign_ins_in_flight = config.sign_ins_in_flight?.filter(
        (e) => !(e.pid === entry.pid && e.started_at === entry.started_at && e.profile === entry.profile),
      );
      if (!config.sign_ins_in_flight?.length) delete config.sign_ins_in_flight;
    }
    // The first profile becomes the default, so plain `svc …` finds it.
    if (config.default_profile === undefined && (profileName === DEFAULT_PROFILE || Object.keys(config.profiles).length === 1)) {
      config.default_profile = profileName;
    }
    return removedKeys;
  });
  const left: SecretLeft[] = [];
  for (const key of removed) {
    const entry = await tx.deleteSecret(key.name, key.storage);
    if (entry) left.push(entry);
  }
  return { removed, left };
}
