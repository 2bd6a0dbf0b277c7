// The store commands use: the keychain first, credentials.json when it fails (said before the
// secret is written, and why: cli/cli#8954). SVC_CREDENTIAL_STORE=keychain|file forces one.
import type { SecretStorage } from '../config/config.js';
import { InterruptedError, KeychainError, UsageError } from '../errors.js';
import type { FileSecretStore } from './file-store.js';
import { KeychainAddonError } from './keychain-process.js';
import type { KeychainSecretStore } from './keychain-store.js';
import type { SecretReservation, SecretStore } from './secret-store.js';
import { describeLeft, keychainTrouble, leftByError, NO_SECRET_SERVICE_HERE, secretAccount, type SecretLeft } from './store-errors.js';

/**
 * The entry `svc doctor` writes and deletes to see that the keychain takes a write. Its name
 * is one no key can have (a key's name starts with a letter or digit: keys add refuses "_"),
 * so the probe never overwrites, then deletes, a user's key.
 */
const DOCTOR_PROBE = { profile: 'svc-doctor', name: '_probe' } as const;

/** A damaged install and Ctrl-C stop svc; any other keychain failure leaves the write to the file. */
function rethrowStops(error: unknown): void {
  if (error instanceof KeychainAddonError || error instanceof InterruptedError) throw error;
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
    private readonly keychain: SecretStore & Partial<Pick<KeychainSecretStore, 'forgetKernelCopy' | 'prepare'>>,
    private readonly file: FileSecretStore,
    private readonly preference: StorePreference,
    private readonly warn: (message: string) => void,
    /** --debug: the keychain's own words (D-Bus, X11) when it fails; absent, they are not shown. */
    private readonly debug?: (line: string) => void,
    /** The command's Ctrl-C: a keychain write it cut short is the interruption, never a reason to use the file. */
    private readonly stop?: AbortSignal,
  ) {}

  /** A keychain call that failed because the command was interrupted stops it (exit 130). */
  private throwIfInterrupted(): void {
    if (this.stop?.aborted) throw new InterruptedError();
  }

  async get(profile: string, name: string, where?: SecretStorage): Promise<string | null> {
    if (this.preference === 'file' || where === 'file') return this.file.get(profile, name);
    if (this.preference === 'keychain' || where === 'keychain') return this.keychain.get(profile, name);
    let failed: unknown;
    try {
      const value = await this.keychain.get(profile, name);
      if (value !== null) return value;
    } catch (error) {
      // A damaged install stops svc, and so does Ctrl-C.
      if (error instanceof KeychainAddonError) throw error;
      this.throwIfInterrupted();
      failed = error;
    }
    const fromFile = await this.file.get(profile, name);
    // No Secret Service at all: the file is the one place the secret can be. A keychain that
    // did not answer (or failed otherwise) may hold it: "none" would be a guess, and a caller
    // would make a second one (a forwarding secret) that then alternates with the keychain's.
    if (fromFile === null && failed !== undefined && !NO_SECRET_SERVICE_HERE.test((failed as Error).message ?? '')) throw failed;
    return fromFile;
  }

  async set(profile: string, name: string, value: string, where?: SecretStorage): Promise<SecretStorage> {
    const storage = await this.store(profile, name, value, where);
    // Wherever it went, an earlier svc's copy in the kernel keyring goes.
    const left = await this.forgetKernelCopy(profile, name);
    if (left) this.warn(describeLeft(left));
    return storage;
  }

  private async store(profile: string, name: string, value: string, where?: SecretStorage): Promise<SecretStorage> {
    if (this.preference === 'file') return this.file.set(profile, name, value);
    // Already in the file (the user was warned when it went there): a rotation stays there quietly.
    if (this.preference === 'auto' && where === 'file') return this.file.set(profile, name, value);
    try {
      await this.keychain.set(profile, name, value);
    } catch (error) {
      if (error instanceof KeychainAddonError) throw error;
      this.throwIfInterrupted();
      const reason = (error as Error).message;
      if (this.preference === 'keychain')
        throw new KeychainError(
          `${reason}; SVC_CREDENTIAL_STORE=keychain forbids the file fallback`,
          'unlock or start the OS keychain, or unset SVC_CREDENTIAL_STORE',
        );
      await this.warnFallback(profile, name, reason);
      return this.file.set(profile, name, value);
    }
    // Now in the keychain: no copy may stay in the file, and one that does is said.
    await this.deleteFileCopy(profile, name);
    return 'keychain';
  }

  /** Deletes the file's copy of a secret the keychain now holds; one that stays is warned of, by name. */
  private async deleteFileCopy(profile: string, name: string): Promise<void> {
    const left = await this.file.delete(profile, name).then(
      () => null,
      (error: unknown) => leftByError(profile, name, error),
    );
    if (left) this.warn(describeLeft(left));
  }

  /** The file is read whatever the keychain does (a fallback writes it; a keychain write deletes from it). */
  checkStorage(): Promise<void> {
    return this.file.checkStorage();
  }

  /** Said before the secret touches the disk, so the user can stop here; once per profile and file (a profile with a secret there was told already), in three short lines. */
  private async warnFallback(profile: string, name: string, reason: string): Promise<void> {
    this.debug?.(`svc: keychain write of ${secretAccount(profile, name)} failed: ${reason}`);
    if (await this.file.holdsSecretsOf(profile)) return;
    const trouble = keychainTrouble(reason);
    this.warn(
      `${trouble.short}, so profile "${profile}" keeps its secrets in a file:\n  ${this.file.path} (SVC_CREDENTIAL_STORE=file chooses it on purpose)\n  why: ${trouble.cause}`,
    );
  }

  /**
   * A secret with no place yet (`where` undefined: a first sign-in) may go to the keychain or,
   * when that fails, to the file: the file's place is reserved too, and given up once the
   * keychain took it. A secret the keychain holds is rotated there: its disk is not ours to reserve.
   */
  private async reserveEither(profile: string, name: string, bytes: number): Promise<SecretReservation> {
    const fallback = await this.file.reserve(profile, name, bytes);
    // A keychain that cannot start now fails the write at once later, which then goes to the file reserved here.
    await this.prepareKeychain().catch(rethrowStops);
    const tidy = this.tidyOnRelease(profile, name, () => fallback.release());
    return {
      store: async (value) => {
        try {
          await this.keychain.set(profile, name, value);
        } catch (error) {
          if (error instanceof KeychainAddonError) throw error;
          this.throwIfInterrupted();
          await this.warnFallback(profile, name, (error as Error).message);
          const storage = await fallback.store(value);
          tidy.after(false);
          return storage;
        }
        // In the keychain now: the file's place goes (release), and so does any copy left in the file.
        tidy.after(true);
        return 'keychain';
      },
      release: tidy.release,
    };
  }

  /**
   * What follows a write but does not make it durable (a copy left in the file, an earlier svc's
   * kernel-keyring copy) is done at release, after the caller has recorded the secret: never
   * inside the time a new token pair is only in memory.
   */
  private tidyOnRelease(profile: string, name: string, releasePlace: () => Promise<void>): { after(fileCopy: boolean): void; release(): Promise<void> } {
    let pending: { fileCopy: boolean } | undefined;
    return {
      after: (fileCopy) => void (pending = { fileCopy }),
      release: async () => {
        await releasePlace();
        const todo = pending;
        pending = undefined;
        if (!todo) return;
        if (todo.fileCopy) await this.deleteFileCopy(profile, name);
        const left = await this.forgetKernelCopy(profile, name);
        if (left) this.warn(describeLeft(left));
      },
    };
  }

  /** The file's reservation when the secret goes to the file; the keychain's disk is not ours to reserve. */
  async reserve(profile: string, name: string, bytes: number, where?: SecretStorage): Promise<SecretReservation> {
    if (this.preference === 'auto' && where === undefined) return this.reserveEither(profile, name, bytes);
    if (this.preference === 'file' || (this.preference === 'auto' && where === 'file')) {
      const reservation = await this.file.reserve(profile, name, bytes);
      const tidy = this.tidyOnRelease(profile, name, () => reservation.release());
      return {
        store: async (value) => {
          const storage = await reservation.store(value);
          tidy.after(false);
          return storage;
        },
        release: tidy.release,
      };
    }
    // The keychain process ready before the caller spends what a write must keep: forced, a
    // keychain that cannot start stops it here; otherwise the write falls back to the file as ever.
    if (this.preference === 'keychain') await this.prepareKeychain();
    else await this.prepareKeychain().catch(rethrowStops);
    const tidy = this.tidyOnRelease(profile, name, async () => {});
    return {
      store: async (value) => {
        const storage = await this.store(profile, name, value, where);
        tidy.after(false);
        return storage;
      },
      release: tidy.release,
    };
  }

  private async prepareKeychain(): Promise<void> {
    try {
      await this.keychain.prepare?.();
    } catch (error) {
      if (error instanceof KeychainAddonError) throw error;
      this.throwIfInterrupted();
      throw new KeychainError(
        `${(error as Error).message}; SVC_CREDENTIAL_STORE=keychain forbids the file fallback`,
        'unlock or start the OS keychain, or unset SVC_CREDENTIAL_STORE',
      );
    }
  }

  async delete(profile: string, name: string, where?: SecretStorage): Promise<SecretLeft | null> {
    // Recorded as in the file: the keychain never held it (and may not exist here).
    const left = this.preference === 'file' || (this.preference === 'auto' && where === 'file') ? null : await this.keychain.delete(profile, name);
    await this.file.delete(profile, name);
    const kernelLeft = await this.forgetKernelCopy(profile, name);
    return left ?? kernelLeft;
  }

  private async forgetKernelCopy(profile: string, name: string): Promise<SecretLeft | null> {
    return (await this.keychain.forgetKernelCopy?.(profile, name)) ?? null;
  }

  /**
   * For `svc doctor`: where new secrets go here, and why. The check is what a write does: a
   * probe entry written, then deleted (a Secret Service with no default collection
   * answers reads, while every write fails and falls back to the file). `trouble`: the cause in
   * the fallback warning's words.
   */
  async whereSecretsGo(): Promise<{ storage: 'keychain' | 'file'; path: string; reason?: string; trouble?: string; forced: boolean; probeLeft?: SecretLeft }> {
    const forced = this.preference !== 'auto';
    if (this.preference === 'file') return { storage: 'file', path: this.file.path, forced };
    try {
      await this.keychain.set(DOCTOR_PROBE.profile, DOCTOR_PROBE.name, `svc doctor's probe, deleted at once`);
    } catch (error) {
      const reason = (error as Error).message;
      const trouble = keychainTrouble(reason);
      return { storage: 'file', path: this.file.path, reason, trouble: `${trouble.short}: ${trouble.cause}`, forced };
    }
    const probeLeft = await this.keychain.delete(DOCTOR_PROBE.profile, DOCTOR_PROBE.name);
    return { storage: 'keychain', path: this.file.path, forced, ...(probeLeft ? { probeLeft } : {}) };
  }

  /** For `svc doctor`: the accounts with a copy an earlier svc left in the kernel keyring. */
  kernelCopies(): Promise<string[]> {
    return (this.keychain as Partial<KeychainSecretStore>).kernelCopies?.() ?? Promise.resolve([]);
  }

  /** For `svc doctor --fix`: an earlier svc's copy in the kernel keyring. */
  readKernelCopy(profile: string, name: string): Promise<string | null> {
    return (this.keychain as Partial<KeychainSecretStore>).readKernelCopy?.(profile, name) ?? Promise.resolve(null);
  }

  /** For `svc doctor --fix`: deletes such a copy; what stays is returned. */
  forgetKernelCopyOf(profile: string, name: string): Promise<SecretLeft | null> {
    return this.forgetKernelCopy(profile, name);
  }
}
