// Cross-process locks (proper-lockfile: an atomic mkdir of `<file>.lock`, its mtime
// refreshed while held, so a lock left by a killed process goes stale and is taken over).
// node:fs's `promises` is read at each call: the fs/promises module then loads only when a
// file is written, not at every start (it costs ~1 ms and ~1 MiB).
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError } from '../errors.js';
import { LOCKS_DIR } from './paths.js';

/** A lock not refreshed for this long belongs to a dead process. */
const STALE_MS = 10_000;

/**
 * Runs `fn` holding the lock on `target` (which need not exist). Waits for another
 * holder with backoff for up to ~30 s, which covers a refresh or config write in flight.
 */
export async function withFileLock<T>(target: string, fn: () => Promise<T>): Promise<T> {
  // The lock sits beside the target: on first use the config dir may not exist yet.
  try {
    await fs.promises.mkdir(dirname(target), { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new ConfigError(`cannot create ${dirname(target)}: ${(error as Error).message}`, dirname(target), 'make it writable, or point SVC_CONFIG_DIR at a writable directory');
  }
  const { default: lockfile } = await import('proper-lockfile');
  let release: () => Promise<void>;
  try {
    // On a fresh machine the config directory does not exist yet, and the lock lives beside its file.
    await fs.promises.mkdir(dirname(target), { recursive: true, mode: 0o700 });
    release = await lockfile.lock(target, {
      realpath: false,
      stale: STALE_MS,
      update: STALE_MS / 2,
      retries: { retries: 60, factor: 1.3, minTimeout: 20, maxTimeout: 1000, randomize: true },
      onCompromised: () => {
        // Another process took the lock over as stale: our work is already under way and
        // the re-read inside the next holder copes, so do not crash (the default throws).
      },
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOCKED') throw new ConfigError(`could not lock ${target}: another svc process holds it`, target, 'try again in a moment');
    throw new ConfigError(`could not lock ${target}: ${(error as Error).message}`, target, 'check that the config directory is writable');
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => {});
  }
}

/** The per-profile lock (OAuth refresh and other read-modify-write of one profile's secrets). */
export async function withProfileLockIn<T>(dir: string, profile: string, fn: () => Promise<T>): Promise<T> {
  const locks = join(dir, LOCKS_DIR);
  try {
    await fs.promises.mkdir(locks, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new ConfigError(`cannot create ${locks}: ${(error as Error).message}`, locks, 'check that the config directory is writable');
  }
  return withFileLock(join(locks, `${encodeURIComponent(profile)}`), fn);
}
