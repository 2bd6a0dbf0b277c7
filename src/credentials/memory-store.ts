import type { SecretStorage } from '../config/config.js';
import type { SecretStore } from './secret-store.js';
import { secretAccount, type SecretLeft } from './store-errors.js';

/** In memory: tests, and nothing else. */
export class MemorySecretStore implements SecretStore {
  readonly secrets = new Map<string, string>();
  async get(profile: string, name: string): Promise<string | null> {
    return this.secrets.get(secretAccount(profile, name)) ?? null;
  }
  async set(profile: string, name: string, value: string): Promise<SecretStorage> {
    this.secrets.set(secretAccount(profile, name), value);
    return 'memory';
  }
  async delete(profile: string, name: string): Promise<SecretLeft | null> {
    this.secrets.delete(secretAccount(profile, name));
    return null;
  }
}
