// What every secret store offers (store.ts gathers the stores and their words for callers; the
// stores themselves import this file, so the interface has no cycle through that gathering).
import type { SecretStorage } from '../config/config.js';
import type { SecretLeft } from './store-errors.js';

export interface SecretStore {
  /** The secret, or null when there is none. `where` (recorded in config.json) skips looking elsewhere. */
  get(profile: string, name: string, where?: SecretStorage): Promise<string | null>;
  /**
   * Stores the secret and says where it went (to record in config.json). `where` is where
   * config.json says it is now: an entry already in the file stays there without asking the
   * keychain again (or warning again: the warning is once, when the storage changes).
   */
  set(profile: string, name: string, value: string, where?: SecretStorage): Promise<SecretStorage>;
  /**
   * Removes it from every place it may be (`where`: config.json's record, `file` skips the
   * keychain). A keychain entry that could not be deleted is returned, never swallowed: the
   * command tells the user how to remove it by hand.
   */
  delete(profile: string, name: string, where?: SecretStorage): Promise<SecretLeft | null>;
  /**
   * Makes sure a new value of this secret, up to `bytes` long, can be stored, before the caller
   * does what cannot be undone (spends a refresh token). Fails now when it cannot (a full disk,
   * a lock it cannot take); absent: set() is all there is.
   */
  reserve?(profile: string, name: string, bytes: number, where?: SecretStorage): Promise<SecretReservation>;
  /**
   * Refuses now, by name, a file svc would have to keep a new secret in but could not (its
   * credentials.json of another shape), before a sign-in issues what could then not be kept.
   */
  checkStorage?(): Promise<void>;
}

/** A place made sure for one secret's next value: store() writes it there; release() gives the place up. */
export interface SecretReservation {
  /** Where the secret is stored (config.json records it). */
  store(value: string): Promise<SecretStorage>;
  /** Always called, stored or not. */
  release(): Promise<void>;
}

/** The store's reservation, or one that only calls set() when the store has none. */
export async function reserveSecret(store: SecretStore, profile: string, name: string, bytes: number, where?: SecretStorage): Promise<SecretReservation> {
  if (store.reserve) return store.reserve(profile, name, bytes, where);
  return { store: (value) => store.set(profile, name, value, where), release: async () => {} };
}
