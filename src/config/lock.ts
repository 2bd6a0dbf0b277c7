// svc's cross-process lock on a file of its config folder: the lock of src/files/lock.ts, with
// svc's waiting rules and wording. A dead holder's lock is taken over at once; a live holder is
// waited for (30 s), said after a second, and named. A holder refreshes the file's mtime, so a
// lock whose holder cannot be checked (another host sharing the directory, a pid reused) still
// goes stale after STALE_MS; a stopped holder (SIGSTOP) is waited for, never taken over.
// node:fs's `promises` is read where used: fs/promises then loads only when a file is
// written or waited on, not at every start.
import { promises } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ConfigError, InterruptedError } from '../errors.js';
import { LOCKS_DIR } from './paths.js';
import { diskFullWords, isDiskFull, isUnwritable } from '../files/disk.js';
import { makeDir, unwritable, unwritableOr } from './writable.js';
import { OwnFileRefusedError } from '../files/own-file.js';
import {
  createLock,
  createLockSync,
  currentHolder,
  describeHolder,
  holderRecord,
  judgeLock,
  lockPathOf,
  releaseLockSync,
  takeOverLock,
  type LockHolder,
  type LockRules,
  type LockState,
} from '../files/lock.js';

/** A lock whose mtime was not refreshed for this long is stale, whoever holds it. */
const STALE_MS = 10_000;
/** How often a holder refreshes its lock's mtime. */
const HEARTBEAT_MS = STALE_MS / 3;
/** After this long waiting for a live holder, say so (on stderr, through the caller). */
const NOTICE_AFTER_MS = 1_000;
/** A refresh or a config write takes well under a second; a holder past this is stuck. */
const MAX_WAIT_MS = 30_000;
/** svc's holders refresh their locks; a pid is judged alive by the pid alone (its start decides only whether it is stopped). */
const RULES: LockRules = { staleMs: STALE_MS };

export interface LockOptions {
  /** Called once when a live holder has kept us waiting for more than a second. */
  onWait?: (message: string) => void;
  /** Ctrl-C: stop waiting (InterruptedError, exit 130). */
  signal?: AbortSignal;
  /** Test seams: the holder record written, and the clock the waits use. */
  holder?: LockHolder;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** The lock judged, a record that is not a small regular file refused in svc's words. */
function inspect(lockPath: string, now: number): LockState {
  try {
    return judgeLock(lockPath, now, RULES);
  } catch (error) {
    if (error instanceof OwnFileRefusedError)
      throw new ConfigError(error.message, lockPath, `remove ${lockPath} (svc makes a small regular file there), then run the command again`);
    throw error;
  }
}

/** Takes the lock on `target`; resolves to the release function. */
export async function acquireFileLock(target: string, options: LockOptions = {}): Promise<() => Promise<void>> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const { signal } = options;
  const lockPath = lockPathOf(target);
  const record = holderRecord(options.holder ?? currentHolder(now()));
  const started = now();
  let noticed = false;
  let delay = 10;
  for (;;) {
    // A read-only or refused folder in svc's one wording (src/config/writable.ts), for every caller.
    if (await createLock(lockPath, record).catch((error: unknown) => Promise.reject(unwritableOr(configFolderOf(lockPath), error)))) break;
    const found = inspect(lockPath, now());
    if (found.kind === 'gone') continue;
    if (found.kind === 'abandoned') {
      takeOverLock(lockPath, found.ino);
      continue;
    }
    const waited = now() - started;
    if (waited >= MAX_WAIT_MS) {
      throw new ConfigError(
        `could not lock ${target}: ${describeHolder(found.holder, lockPath, found.stopped)} and has not let go for ${MAX_WAIT_MS / 1000} s`,
        target,
        found.stopped && found.holder
          ? `resume process ${found.holder.pid} (kill -CONT ${found.holder.pid}, or fg in its terminal) and try again, or end it`
          : 'try again when that process has finished, or end it',
      );
    }
    if (!noticed && waited >= NOTICE_AFTER_MS) {
      noticed = true;
      options.onWait?.(`waiting: ${describeHolder(found.holder, lockPath, found.stopped)}`);
    }
    if (signal?.aborted) throw new InterruptedError();
    await sleep(delay);
    if (signal?.aborted) throw new InterruptedError();
    delay = Math.min(delay * 2, 200);
  }
  return holdLock(lockPath);
}

/** The lock just taken, kept fresh until its release function is called. */
async function holdLock(lockPath: string): Promise<() => Promise<void>> {
  const { ino } = await promises.lstat(lockPath);
  // Keeps the lock fresh; unref'd, so it never holds the process open.
  const heartbeat = setInterval(() => {
    const at = new Date();
    void promises.utimes(lockPath, at, at).catch(() => {});
  }, HEARTBEAT_MS);
  heartbeat.unref();
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    clearInterval(heartbeat);
    releaseLockSync(lockPath, ino);
  };
}

/**
 * Runs `fn` holding the lock on `target` (which need not exist). Waits for a live holder
 * for up to MAX_WAIT_MS, saying so through `onWait` after a second.
 */
export async function withFileLock<T>(target: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  // The lock sits beside the target: on first use the config dir may not exist yet.
  try {
    await makeDir(dirname(target));
  } catch (error) {
    throw unwritable(configFolderOf(target), error);
  }
  let release: () => Promise<void>;
  try {
    release = await acquireFileLock(target, options);
  } catch (error) {
    if (error instanceof ConfigError || error instanceof InterruptedError) throw error;
    if (isDiskFull(error)) {
      const { message, hint } = diskFullWords(target);
      throw new ConfigError(message, target, hint);
    }
    throw new ConfigError(`could not lock ${target}: ${(error as Error).message}`, target, 'check that the config directory is writable');
  }
  try {
    return await fn();
  } finally {
    await release();
  }
}

/**
 * Runs the synchronous `fn` holding the lock on `target`. A lock nobody holds is taken, `fn`
 * run and the lock let go in one synchronous step, as a record linked into place like any
 * other: with no turn of the event loop in between, the holder cannot stall (no heartbeat is
 * needed), and a free lock costs a few system calls rather than a round trip to the thread
 * pool for each. A lock held by another process, or one that cannot be taken at once (its
 * folder not made yet, a file system without hard links, a full disk), is left to
 * withFileLock: it waits, and says why it could not.
 */
export async function withFileLockSync<T>(target: string, fn: () => T, options: LockOptions = {}): Promise<T> {
  const release = takeFreeLock(lockPathOf(target), options);
  if (!release) return withFileLock(target, async () => fn(), options);
  try {
    return fn();
  } finally {
    release();
  }
}

/** The lock at `lockPath` taken synchronously and its release; null when it is held or could not be taken at once. */
function takeFreeLock(lockPath: string, options: LockOptions): (() => void) | null {
  let ino: number | null;
  try {
    ino = createLockSync(lockPath, holderRecord(options.holder ?? currentHolder((options.now ?? Date.now)())), true);
  } catch {
    return null;
  }
  if (ino === null) return null;
  const taken = ino;
  return () => releaseLockSync(lockPath, taken);
}

/** The config folder a file or lock is in: a profile's lock in locks/ is the config folder's. */
function configFolderOf(path: string): string {
  const dir = dirname(path);
  return basename(dir) === LOCKS_DIR ? dirname(dir) : dir;
}

/** The per-profile lock (OAuth refresh and other read-modify-write of one profile's secrets). */
export async function withProfileLockIn<T>(dir: string, profile: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const locks = join(dir, LOCKS_DIR);
  try {
    await makeDir(locks);
  } catch (error) {
    throw unwritable(isUnwritable(error) ? dir : locks, error);
  }
  return withFileLock(join(locks, `${encodeURIComponent(profile)}`), fn, options);
}

/**
 * Whether someone holds the lock on `target` now: its holder alive (or stopped, as a suspended
 * laptop's), its record refreshed. False once it was released, or its holder is gone.
 */
export async function lockHeld(target: string): Promise<boolean> {
  return inspect(lockPathOf(target), Date.now()).kind === 'live';
}
