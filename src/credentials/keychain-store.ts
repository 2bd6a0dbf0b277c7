// The OS keychain as a SecretStore (service `svc`, account `<profile>:<name>`), every call
// time-boxed (cli/cli#7145).
import type { SecretStorage } from '../config/config.js';
import { KeychainError } from '../errors.js';
import { KeychainAddonError } from './keychain-process.js';
import type { KeychainBackend } from './keychain-backend.js';
import type { SecretStore } from './secret-store.js';
import { KEYCHAIN_HINT, KEYCHAIN_SERVICE, manualKeychainRemoval, secretAccount, type SecretLeft } from './store-errors.js';

export const KEYCHAIN_TIMEOUT_MS = 3_000;

/** Runs one keychain call with a time limit (cli/cli#7145: keychain calls that hang forever). */
async function timeBoxed<T>(what: string, timeoutMs: number, whom: string | undefined, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // The backend abandons the call on this reason (and says it again to every later call).
      const error = new KeychainError(
        `the OS keychain did not answer within ${timeoutMs / 1000} s (${what}${whom ? `; ${whom}` : ''})`,
        `${whom?.includes('D-Bus') ? 'a stale DBUS_SESSION_BUS_ADDRESS (from an old SSH or tmux session) or a stopped keyring daemon does this: ' : ''}${KEYCHAIN_HINT}`,
      );
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    return await Promise.race([call(controller.signal), timeout]);
  } catch (error) {
    if (error instanceof KeychainError || error instanceof KeychainAddonError) throw error;
    throw new KeychainError(`the OS keychain failed (${what}): ${(error as Error).message}`, KEYCHAIN_HINT);
  } finally {
    clearTimeout(timer);
  }
}

export class KeychainSecretStore implements SecretStore {
  constructor(
    private readonly backend: KeychainBackend,
    private readonly timeoutMs = KEYCHAIN_TIMEOUT_MS,
  ) {}
  /** The keychain process started and ready to write: see KeychainProcess.prepare. */
  async prepare(): Promise<void> {
    const prepare = this.backend.prepare?.bind(this.backend);
    if (prepare) await timeBoxed('start', this.timeoutMs, this.backend.whom, prepare);
  }
  get(profile: string, name: string): Promise<string | null> {
    return timeBoxed('read', this.timeoutMs, this.backend.whom, (signal) => this.backend.get(KEYCHAIN_SERVICE, secretAccount(profile, name), signal));
  }
  async set(profile: string, name: string, value: string): Promise<SecretStorage> {
    await timeBoxed('write', this.timeoutMs, this.backend.whom, (signal) => this.backend.set(KEYCHAIN_SERVICE, secretAccount(profile, name), value, signal));
    return 'keychain';
  }
  async delete(profile: string, name: string): Promise<SecretLeft | null> {
    const account = secretAccount(profile, name);
    try {
      await timeBoxed('delete', this.timeoutMs, this.backend.whom, (signal) => this.backend.delete(KEYCHAIN_SERVICE, account, signal));
      return null;
    } catch (error) {
      return { service: KEYCHAIN_SERVICE, account, reason: (error as Error).message, remove_with: manualKeychainRemoval(account) };
    }
  }
  /** The accounts with a copy an earlier svc left in the Linux kernel keyring. */
  async kernelCopies(): Promise<string[]> {
    return (await this.backend.kernelCopies?.(KEYCHAIN_SERVICE)) ?? [];
  }
  /** An earlier svc's copy of this secret in the Linux kernel keyring, or null. */
  async readKernelCopy(profile: string, name: string): Promise<string | null> {
    const read = this.backend.readKernelCopy?.bind(this.backend);
    if (!read) return null;
    return timeBoxed('read from the kernel keyring', this.timeoutMs, undefined, (signal) => read(KEYCHAIN_SERVICE, secretAccount(profile, name), signal));
  }
  /** Deletes an earlier svc's copy of this secret from the Linux kernel keyring; what could not be deleted is returned. */
  async forgetKernelCopy(profile: string, name: string): Promise<SecretLeft | null> {
    const forget = this.backend.forgetKernelCopy?.bind(this.backend);
    if (!forget) return null;
    const account = secretAccount(profile, name);
    try {
      await timeBoxed('delete from the kernel keyring', this.timeoutMs, undefined, (signal) => forget(KEYCHAIN_SERVICE, account, signal));
      return null;
    } catch (error) {
      return {
        service: KEYCHAIN_SERVICE,
        account,
        reason: (error as Error).message,
        remove_with: `keyctl purge -s user 'keyring:${account}@${KEYCHAIN_SERVICE}'`,
      };
    }
  }
}
