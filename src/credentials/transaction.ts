// A profile's credential transaction: the profile's lock, its secrets and its config.json
// entry, changed as one unit. Login, logout, keys add/remove, profiles remove and an OAuth
// refresh each run as one: what one reads stays true until it has written, so a logout meeting a login in flight
// waits for it (and then revokes and deletes what it stored), and neither ever leaves
// config.json naming a sign-in whose secret is gone, or a secret config.json does not name.
import type { ConfigData, ConfigStore, SecretStorage } from '../config/config.js';
import { reserveSecret, type SecretReservation, type SecretStore } from './store.js';
import type { SecretLeft } from './store-errors.js';
import type { Uninterruptible } from '../shared/runtime.js';

/**
 * Where a transaction is: test seams pause it there (never a sleep), so every interleaving
 * of two commands can be played (and a kill aimed at each). `waiting` is before the lock; the
 * others hold it. `answered`: a refresh's new pair is in hand, its old refresh token spent.
 */
export type TransactionStep =
  'waiting' | 'locked' | 'answered' | 'signed-in' | 'secret-written' | 'secret-deleted' | 'revoked' | 'config-written' | 'unlocking';

/** Called at each step with the profile; resolves when the transaction may go on. */
export type TransactionSteps = (step: TransactionStep, profile: string) => Promise<void>;

/** What a transaction needs (the context has all of it). */
export interface TransactionDeps {
  config: ConfigStore;
  secrets: SecretStore;
  /** Runs fn holding the per-profile lock file. */
  withProfileLock<T>(profile: string, fn: () => Promise<T>): Promise<T>;
  /** Test seam: pauses at each step. */
  transactionSteps?: TransactionSteps;
  /** Holds Ctrl-C back while a new token pair is stored (the process's; absent: nothing to hold). */
  uninterruptible?: Uninterruptible;
}

/** One profile's secrets and config entry, under its lock. */
export interface ProfileTransaction {
  readonly profile: string;
  /** config.json as read once the lock was taken (re-read after each change). */
  config(): Promise<ConfigData>;
  getSecret(name: string, where?: SecretStorage): Promise<string | null>;
  setSecret(name: string, value: string, where?: SecretStorage): Promise<SecretStorage>;
  /** The secret's place made sure before what cannot be undone (a refresh token spent, a sign-in issued). */
  reserveSecret(name: string, bytes: number, where?: SecretStorage): Promise<SecretReservation>;
  deleteSecret(name: string, where?: SecretStorage): Promise<SecretLeft | null>;
  updateConfig<T>(change: (config: ConfigData) => T | Promise<T>): Promise<T>;
  /** A step of the caller's own (signed in, revoked), for the test seams. */
  step(step: TransactionStep): Promise<void>;
  /** Runs `keep` with Ctrl-C held back until it ends (bounded): storing what was issued and cannot be asked again. */
  keep<T>(keep: () => Promise<T>): Promise<T>;
}

/** Runs `fn` as the profile's credential transaction: nothing else changes the profile's credentials meanwhile. */
export async function withCredentialTransaction<T>(deps: TransactionDeps, profile: string, fn: (tx: ProfileTransaction) => Promise<T>): Promise<T> {
  const step = async (at: TransactionStep): Promise<void> => {
    await deps.transactionSteps?.(at, profile);
  };
  await step('waiting');
  return deps.withProfileLock(profile, async () => {
    await step('locked');
    const tx = transactionOf(deps, profile, step);
    try {
      return await fn(tx);
    } finally {
      await step('unlocking');
    }
  });
}

function transactionOf(deps: TransactionDeps, profile: string, step: (at: TransactionStep) => Promise<void>): ProfileTransaction {
  const { config, secrets } = deps;
  return {
    profile,
    config: () => config.read(),
    getSecret: (name, where) => secrets.get(profile, name, where),
    async setSecret(name, value, where) {
      const storage = await secrets.set(profile, name, value, where);
      await step('secret-written');
      return storage;
    },
    async reserveSecret(name, bytes, where) {
      const reservation = await reserveSecret(secrets, profile, name, bytes, where);
      return {
        async store(value) {
          const storage = await reservation.store(value);
          await step('secret-written');
          return storage;
        },
        release: () => reservation.release(),
      };
    },
    async deleteSecret(name, where) {
      const left = await secrets.delete(profile, name, where);
      await step('secret-deleted');
      return left;
    },
    async updateConfig(change) {
      const result = await config.update(change);
      await step('config-written');
      return result;
    },
    step,
    keep: (keep) => (deps.uninterruptible ? deps.uninterruptible(keep) : keep()),
  };
}
