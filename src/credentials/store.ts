// Secret storage (design.md "Credentials"): the OS keychain through @napi-rs/keyring
// (service `svc`, account `<profile>:<name>`), every call time-boxed at 3 s; without a
// keychain, a 0600 credentials.json beside config.json, announced BEFORE the secret is
// written and saying why (cli/cli#8954). SVC_CREDENTIAL_STORE=keychain|file forces one.
import { readFile, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import type { SecretStorage } from '../config/config.js';
import { writeFileAtomic } from '../config/atomic.js';
import { withFileLock } from '../config/lock.js';
import { CREDENTIALS_FILE } from '../config/paths.js';
import { ConfigError, KeychainError, UsageError } from '../errors.js';

export const KEYCHAIN_SERVICE = 'svc';
export const KEYCHAIN_TIMEOUT_MS = 3_000;

export interface SecretStore {
  /** The secret, or null when there is none. `where` (recorded in config.json) skips looking elsewhere. */
  get(profile: string, name: string, where?: SecretStorage): Promise<string | null>;
  /** Stores the secret and says where it went (to record in config.json). */
  set(profile: string, name: string, value: string): Promise<SecretStorage>;
  /** Removes it from every place it may be. */
  delete(profile: string, name: string): Promise<void>;
}

export function secretAccount(profile: string, name: string): string {
  return `${profile}:${name}`;
}

/** The keychain itself, as a seam: the real one is @napi-rs/keyring; tests inject failing or hanging ones. */
export interface KeychainBackend {
  get(service: string, account: string, signal: AbortSignal): Promise<string | null>;
  set(service: string, account: string, value: string, signal: AbortSignal): Promise<void>;
  delete(service: string, account: string, signal: AbortSignal): Promise<boolean>;
}

/** @napi-rs/keyring, loaded on first use (a native addon: never at start-up, never fatal to install). */
export function napiKeychain(): KeychainBackend {
  const entry = async (service: string, account: string) => {
    const { AsyncEntry } = await import('@napi-rs/keyring');
    return new AsyncEntry(service, account);
  };
  return {
    async get(service, account, signal) {
      return (await (await entry(service, account)).getPassword(signal)) ?? null;
    },
    async set(service, account, value, signal) {
      await (await entry(service, account)).setPassword(value, signal);
    },
    async delete(service, account, signal) {
      return (await entry(service, account)).deletePassword(signal);
    },
  };
}

/** Runs one keychain call with a time limit (cli/cli#7145: keychain calls that hang forever). */
async function timeBoxed<T>(what: string, timeoutMs: number, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new KeychainError(`the OS keychain did not answer within ${timeoutMs / 1000} s (${what})`));
    }, timeoutMs);
    timer.unref?.();
  });
  try {
    return await Promise.race([call(controller.signal), timeout]);
  } catch (error) {
    if (error instanceof KeychainError) throw error;
    throw new KeychainError(`the OS keychain failed (${what}): ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
  }
}

export class KeychainSecretStore implements SecretStore {
  constructor(
    private readonly backend: KeychainBackend,
    private readonly timeoutMs = KEYCHAIN_TIMEOUT_MS,
  ) {}
  get(profile: string, name: string): Promise<string | null> {
    return timeBoxed('read', this.timeoutMs, (signal) => this.backend.get(KEYCHAIN_SERVICE, secretAccount(profile, name), signal));
  }
  async set(profile: string, name: string, value: string): Promise<SecretStorage> {
    await timeBoxed('write', this.timeoutMs, (signal) => this.backend.set(KEYCHAIN_SERVICE, secretAccount(profile, name), value, signal));
    return 'keychain';
  }
  async delete(profile: string, name: string): Promise<void> {
    await timeBoxed('delete', this.timeoutMs, (signal) => this.backend.delete(KEYCHAIN_SERVICE, secretAccount(profile, name), signal));
  }
}

interface CredentialsFile {
  version: 1;
  secrets: Record<string, string>;
}

/** credentials.json, mode 0600, written atomically under a lock. */
export class FileSecretStore implements SecretStore {
  readonly path: string;
  constructor(readonly dir: string) {
    this.path = join(dir, CREDENTIALS_FILE);
  }
  private async read(): Promise<CredentialsFile> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, secrets: {} };
      throw new ConfigError(`cannot read ${this.path}: ${(error as Error).message}`, this.path);
    }
    try {
      const data = JSON.parse(text) as CredentialsFile;
      if (typeof data.secrets !== 'object' || data.secrets === null) throw new Error('"secrets" is not an object');
      return data;
    } catch (error) {
      throw new ConfigError(`the credentials file ${this.path} is not valid (${(error as Error).message}); it was left untouched`, this.path, `fix or remove ${this.path}`);
    }
  }
  private async change(fn: (data: CredentialsFile) => void): Promise<void> {
    await withFileLock(this.path, async () => {
      const data = await this.read();
      fn(data);
      try {
        await writeFileAtomic(this.path, JSON.stringify(data, null, 2) + '\n', 0o600);
        await chmod(this.path, 0o600);
      } catch (error) {
        throw new ConfigError(`cannot write ${this.path}: ${(error as Error).message}`, this.path, 'make the config directory writable, or set SVC_CONFIG_DIR');
      }
    });
  }
  async get(profile: string, name: string): Promise<string | null> {
    return (await this.read()).secrets[secretAccount(profile, name)] ?? null;
  }
  async set(profile: string, name: string, value: string): Promise<SecretStorage> {
    await this.change((data) => {
      data.secrets[secretAccount(profile, name)] = value;
    });
    return 'file';
  }
  async delete(profile: string, name: string): Promise<void> {
    const data = await this.read();
    if (!(secretAccount(profile, name) in data.secrets)) return;
    await this.change((d) => {
      delete d.secrets[secretAccount(profile, name)];
    });
  }
}

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
  async delete(profile: string, name: string): Promise<void> {
    this.secrets.delete(secretAccount(profile, name));
  }
}

export type StorePreference = 'auto' | 'keychain' | 'file';

export function storePreference(value: string | undefined): StorePreference {
  if (value === undefined || value === '' || value === 'auto') return 'auto';
  if (value === 'keychain' || value === 'file') return value;
  throw new UsageError(`SVC_CREDENTIAL_STORE must be "keychain" or "file", not ${JSON.stringify(value)}`);
}

/**
 * The store commands use: keychain first, the file when the keychain fails (with a
 * warning printed before the write), or exactly one of them when SVC_CREDENTIAL_STORE says.
 */
export class FallbackSecretStore implements SecretStore {
  constructor(
    private readonly keychain: SecretStore,
    private readonly file: FileSecretStore,
    private readonly preference: StorePreference,
    private readonly warn: (message: string) => void,
  ) {}

  async get(profile: string, name: string, where?: SecretStorage): Promise<string | null> {
    if (this.preference === 'file' || where === 'file') return this.file.get(profile, name);
    if (this.preference === 'keychain' || where === 'keychain') return this.keychain.get(profile, name);
    try {
      const value = await this.keychain.get(profile, name);
      if (value !== null) return value;
    } catch {
      // No keychain here: the secret can only be in the file.
    }
    return this.file.get(profile, name);
  }

  async set(profile: string, name: string, value: string): Promise<SecretStorage> {
    if (this.preference === 'file') return this.file.set(profile, name, value);
    try {
      await this.keychain.set(profile, name, value);
    } catch (error) {
      const reason = (error as Error).message;
      if (this.preference === 'keychain')
        throw new KeychainError(`${reason}; SVC_CREDENTIAL_STORE=keychain forbids the file fallback`, 'unlock or start the OS keychain, or unset SVC_CREDENTIAL_STORE');
      // Said before the secret touches the disk, so the user can stop here.
      this.warn(
        `${reason}. Storing the "${name}" secret of profile "${profile}" in ${this.file.path} (readable only by you, mode 0600) instead. ` +
          'Set SVC_CREDENTIAL_STORE=keychain to refuse this fallback.',
      );
      return this.file.set(profile, name, value);
    }
    // Now in the keychain: no copy may stay in the file.
    await this.file.delete(profile, name).catch(() => {});
    return 'keychain';
  }

  async delete(profile: string, name: string): Promise<void> {
    const errors: unknown[] = [];
    if (this.preference !== 'file') await this.keychain.delete(profile, name).catch((e: unknown) => errors.push(e));
    await this.file.delete(profile, name);
    if (this.preference === 'keychain' && errors.length > 0) throw errors[0];
  }
}
