// Kill-safety of key writes. A key is two writes in two places (the secret in the keychain
// or credentials.json, its metadata in config.json), and no store spans both. So each write
// is announced first in config.json (`secrets_in_flight`), and a process killed between the
// two leaves an entry that the next command settles: an add whose secret was stored is
// completed (roll forward), anything else is undone (the orphan secret is deleted). Only the
// entries of a writer that no longer runs are settled: a live one is still at work.
import { keepModeThroughChange } from './mode.js';
import { lazyRequire } from '../node-require.js';
import type { ConfigData, ConfigStore, KeyMeta, SecretInFlight, SecretStorage } from '../config/config.js';
import { processRuns } from '../files/process.js';
import { lastFour } from '../io/redact.js';
import { modeOfKey } from '../contract/constants.js';
import { leftByError, NewerCredentialsFileError, type SecretLeft, type SecretStore } from './store.js';

/** An entry of another machine (a shared config dir) is settled once this old. */
const FOREIGN_ENTRY_MS = 10 * 60_000;

type Ctx = { config: ConfigStore; secrets: SecretStore };

export function inFlight(profile: string, name: string, now: number, key?: KeyMeta, org?: SecretInFlight['org']): SecretInFlight {
  const entry: SecretInFlight = { profile, name, pid: process.pid, host: lazyRequire('node:os').hostname(), started_at: new Date(now).toISOString() };
  if (key) entry.key = key;
  if (org) entry.org = org;
  return entry;
}

function same(a: SecretInFlight, b: SecretInFlight): boolean {
  return a.profile === b.profile && a.name === b.name && a.pid === b.pid && a.started_at === b.started_at;
}

export function dropEntry(config: ConfigData, entry: SecretInFlight): void {
  config.secrets_in_flight = (config.secrets_in_flight ?? []).filter((e) => !same(e, entry));
  if (config.secrets_in_flight.length === 0) delete config.secrets_in_flight;
}

export function addEntry(config: ConfigData, entry: SecretInFlight): void {
  (config.secrets_in_flight ??= []).push(entry);
}

function abandoned(entry: SecretInFlight, now: number): boolean {
  if (entry.host === lazyRequire('node:os').hostname()) return entry.pid !== process.pid && !processRuns(entry.pid);
  return now - Date.parse(entry.started_at) > FOREIGN_ENTRY_MS;
}

/**
 * Records `key` as the profile's key of its mode; the profile's other keys of that mode are
 * taken out (one key per mode) and returned, with a delete entry each so their secrets go next.
 */
export function commitKey(config: ConfigData, profileName: string, key: KeyMeta, now: number, org?: SecretInFlight['org']): KeyMeta[] {
  const profile = (config.profiles[profileName] ??= {});
  if (org) {
    profile.org_id = org.id;
    profile.org_name = org.name;
    // A new profile is bound where its key was checked; an existing one keeps its address (keys add checked it is this one).
    profile.base_url ??= org.base_url;
  }
  config.default_profile ??= profileName;
  keepModeThroughChange(profile, key.mode);
  const keys = (profile.keys ??= {});
  const replaced = Object.values(keys).filter((k) => k.mode === key.mode && k.name !== key.name);
  for (const old of replaced) {
    delete keys[old.name];
    addEntry(config, inFlight(profileName, old.name, now));
  }
  keys[key.name] = key;
  return replaced;
}

/**
 * Deletes the secrets of delete entries (ours), then drops the entries of those deleted.
 * Returns the secrets that stayed. One whose delete failed (credentials.json's lock held by
 * another process) keeps its entry, so a later command, once this one has ended, tries again.
 */
export async function finishDeletes(ctx: Ctx, entries: Array<{ entry: SecretInFlight; storage?: SecretStorage }>): Promise<SecretLeft[]> {
  const left: SecretLeft[] = [];
  const done: SecretInFlight[] = [];
  for (const { entry, storage } of entries) {
    // A credentials file from a newer svc is said, not skipped: the announced delete stays in
    // config.json for that svc to finish.
    let stayed: SecretLeft | null;
    try {
      stayed = await ctx.secrets.delete(entry.profile, entry.name, storage);
      done.push(entry);
    } catch (error) {
      if (error instanceof NewerCredentialsFileError) throw error;
      stayed = leftByError(entry.profile, entry.name, error, true);
    }
    if (stayed) left.push(stayed);
  }
  if (done.length)
    await ctx.config.update((config) => {
      for (const entry of done) dropEntry(config, entry);
    });
  return left;
}

/** Where a stored secret is: the file first (a forced file store answers any `where` from it). */
async function findSecret(ctx: Ctx, profile: string, name: string): Promise<{ value: string; storage: SecretStorage } | null> {
  for (const storage of ['file', 'keychain'] as const) {
    const value = await ctx.secrets.get(profile, name, storage).catch(() => null);
    if (value !== null) return { value, storage };
  }
  return null;
}

/** Settles what killed writers left (see the top of this file). Cheap when there is nothing: config.json says so. */
export async function settleSecretsInFlight(ctx: Ctx, config: ConfigData, now: number): Promise<void> {
  if (!config.secrets_in_flight?.some((entry) => abandoned(entry, now))) return;
  // The secrets are looked at outside the config lock (a keychain call may take seconds)...
  const found = new Map<SecretInFlight, { value: string; storage: SecretStorage } | null>();
  for (const entry of config.secrets_in_flight) if (abandoned(entry, now) && entry.key) found.set(entry, await findSecret(ctx, entry.profile, entry.name));
  const deletes: Array<{ entry: SecretInFlight; storage?: SecretStorage }> = [];
  await ctx.config.update((current) => {
    for (const entry of [...(current.secrets_in_flight ?? [])]) {
      if (!abandoned(entry, now)) continue;
      dropEntry(current, entry);
      const meta = current.profiles[entry.profile]?.keys?.[entry.name];
      const secret = [...found].find(([e]) => same(e, entry))?.[1] ?? null;
      const stored = entry.key && secret && modeOfKey(secret.value) === entry.key.mode && lastFour(secret.value) === entry.key.last4;
      if (entry.key && stored) {
        // ...and the add completed under the lock, unless its name was taken meanwhile.
        if (!meta || meta.last4 !== entry.key.last4) {
          for (const old of commitKey(current, entry.profile, { ...entry.key, storage: secret.storage }, now, entry.org)) {
            const again = current.secrets_in_flight!.at(-1)!;
            deletes.push({ entry: again, storage: old.storage });
          }
        }
      } else if (!meta) {
        // No metadata accounts for this secret: undo.
        const redo = inFlight(entry.profile, entry.name, now);
        addEntry(current, redo);
        deletes.push({ entry: redo, storage: entry.key?.storage });
      }
      // Otherwise the metadata describes the secret in place (an add interrupted before its write): nothing to do.
    }
  });
  await finishDeletes(ctx, deletes);
}
