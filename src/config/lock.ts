// Cross-process locks. The lock is a file `<target>.lock` holding a record of its holder
// (pid, host, process start, a random token), created atomically by linking a finished
// temp file into place, so nobody ever sees a half-written record. A waiter can then tell
// a lock left by a killed process (same host, pid gone) from a live holder and take it over
// at once, instead of waiting for the lock to age. A holder refreshes the file's mtime, so
// a lock whose holder cannot be checked (another host sharing the directory, a pid reused)
// still goes stale after STALE_MS.
// node:fs's `promises` is read where used: fs/promises then loads only when a file is
// written or waited on, not at every start.
import { closeSync, fstatSync, linkSync, lstatSync, openSync, promises, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { ConfigError, InterruptedError } from '../errors.js';
import { lazyRequire } from '../node-require.js';
import { LOCKS_DIR } from './paths.js';
import { diskFullWords, isDiskFull, isUnwritable, unwritableOr } from './atomic.js';
import { makeDir, unwritable } from './writable.js';
import { OwnFileRefusedError, readOwnFile } from './own-file.js';

// node:crypto and node:os load on first lock, not when the config module loads (start-up time).
const randomHex = (bytes: number): string => lazyRequire('node:crypto').randomBytes(bytes).toString('hex');
const hostname = (): string => lazyRequire('node:os').hostname();

/** A lock whose mtime was not refreshed for this long is stale, whoever holds it. */
const STALE_MS = 10_000;
/** How often a holder refreshes its lock's mtime. */
const HEARTBEAT_MS = STALE_MS / 3;
/** After this long waiting for a live holder, say so (on stderr, through the caller). */
const NOTICE_AFTER_MS = 1_000;
/** A refresh or a config write takes well under a second; a holder past this is stuck. */
const MAX_WAIT_MS = 30_000;

/** Who holds a lock: written into the lock file. */
export interface LockHolder {
  pid: number;
  host: string;
  /** When the holding process started (ISO time). */
  started_at: string;
  /** When it took the lock (ISO time). */
  acquired_at: string;
  /** Tells this holding apart from an earlier one by a process with the same pid. */
  token: string;
}

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

/** The record of this process as a holder. */
export function currentHolder(now = Date.now()): LockHolder {
  return {
    pid: process.pid,
    host: hostname(),
    started_at: new Date(now - Math.round(process.uptime() * 1000)).toISOString(),
    acquired_at: new Date(now).toISOString(),
    token: randomHex(8),
  };
}

export function lockPathOf(target: string): string {
  return `${target}.lock`;
}

/** Whether a process with this pid exists (EPERM: it does, under another user). */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the holder is this host's process, stopped (SIGSTOP, Ctrl-Z) rather than gone: it
 * cannot refresh its lock, yet it still holds what it read, and resumed it writes it (a refresh
 * of single-use tokens would store the pair it was given). Its lock is waited for, never taken
 * over. Linux only (/proc); the start time tells it from another process with a reused pid.
 */
function stoppedHolder(holder: LockHolder): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const stat = readFileSync(`/proc/${holder.pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses): state first, start time 20th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] !== 'T' && fields[0] !== 't') return false;
    const bootSeconds = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    // Clock ticks since boot; USER_HZ is 100 on every Linux Node runs on.
    const startedMs = (bootSeconds + Number(fields[19]) / 100) * 1000;
    return Math.abs(startedMs - Date.parse(holder.started_at)) < STARTED_AT_SLACK_MS;
  } catch {
    return false;
  }
}

/** How far a holder's recorded start may be from its process's own (the record rounds process.uptime()). */
const STARTED_AT_SLACK_MS = 2_000;

type Inspection =
  | { kind: 'gone' }
  | { kind: 'live'; holder: LockHolder | null; stopped?: boolean }
  /** Left behind: the holder is dead, or the lock stopped being refreshed. `ino` names the file judged. */
  | { kind: 'abandoned'; ino: number; why: string };

async function inspect(lockPath: string, now: number): Promise<Inspection> {
  let stat;
  let text: string;
  try {
    stat = await promises.lstat(lockPath);
    // A directory: proper-lockfile's lock of an earlier svc; only its age can tell. Anything
    // else but a small regular file (a FIFO, a link, a device) is refused unread: no hang.
    const record = stat.isDirectory() ? '' : readLockRecord(lockPath);
    if (record === null) return { kind: 'gone' };
    text = record;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'gone' };
    throw error;
  }
  const holder = parseHolder(text);
  const aged = stat.mtimeMs < now - STALE_MS;
  if (holder && holder.host === hostname() && !pidAlive(holder.pid)) {
    return { kind: 'abandoned', ino: stat.ino, why: `its holder, process ${holder.pid}, is gone` };
  }
  if (aged && holder && holder.host === hostname() && stoppedHolder(holder)) return { kind: 'live', holder, stopped: true };
  if (aged) return { kind: 'abandoned', ino: stat.ino, why: `it was not refreshed for ${Math.round((now - stat.mtimeMs) / 1000)} s` };
  return { kind: 'live', holder };
}

/** The largest lock record svc reads: a holder record is a line of JSON. */
const LOCK_MAX_BYTES = 64 * 1024;

function readLockRecord(lockPath: string): string | null {
  try {
    return readOwnFile(lockPath, { what: 'the lock file', maxBytes: LOCK_MAX_BYTES });
  } catch (error) {
    if (error instanceof OwnFileRefusedError)
      throw new ConfigError(error.message, lockPath, `remove ${lockPath} (svc makes a small regular file there), then run the command again`);
    throw error;
  }
}

function parseHolder(text: string): LockHolder | null {
  try {
    const data = JSON.parse(text) as Partial<LockHolder>;
    if (typeof data.pid === 'number' && typeof data.host === 'string') return data as LockHolder;
  } catch {
    // empty or foreign: judged by age alone
  }
  return null;
}

/** Where the lock's record is written before it is linked into place. */
const tempPathOf = (lockPath: string): string => join(dirname(lockPath), `.${basename(lockPath)}.${process.pid}.${randomHex(4)}`);

/** Creates the lock with our record in one step; false when someone holds it. */
async function tryCreate(lockPath: string, record: string): Promise<boolean> {
  const temp = tempPathOf(lockPath);
  try {
    // Inside the try: a full disk makes the file, then fails to fill it; it is removed all the same.
    await promises.writeFile(temp, record, { mode: 0o600 });
    await promises.link(temp, lockPath); // atomic, and fails with EEXIST when held
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') throw error;
    // A file system without hard links: exclusive create (a waiter may see it empty for a moment).
    try {
      await promises.writeFile(lockPath, record, { flag: 'wx', mode: 0o600 });
      return true;
    } catch (inner) {
      if ((inner as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw inner;
    }
  } finally {
    await promises.unlink(temp).catch(() => {});
  }
}

/**
 * Removes an abandoned lock. Renamed aside first, which only one waiter can do; if the
 * file renamed is not the one judged abandoned (it was replaced meanwhile), it goes back.
 */
async function takeOver(lockPath: string, judgedIno: number): Promise<void> {
  const aside = `${lockPath}.abandoned.${process.pid}.${randomHex(4)}`;
  try {
    await promises.rename(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // another waiter took it over
    throw error;
  }
  const moved = await promises.lstat(aside);
  if (moved.ino !== judgedIno) {
    await promises.link(aside, lockPath).catch(() => {});
  }
  await promises.rm(aside, { recursive: true, force: true });
}

function describeHolder(holder: LockHolder | null, lockPath: string, stopped = false): string {
  if (!holder) return `another svc process holds ${lockPath}`;
  const where = holder.host === hostname() ? '' : ` on ${holder.host}`;
  return `another svc process (pid ${holder.pid}${where}, ${stopped ? 'stopped, ' : ''}holding it since ${holder.acquired_at}) holds ${lockPath}`;
}

/** Takes the lock on `target`; resolves to the release function. */
export async function acquireFileLock(target: string, options: LockOptions = {}): Promise<() => Promise<void>> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const { signal } = options;
  const lockPath = lockPathOf(target);
  const holder = options.holder ?? currentHolder(now());
  const record = JSON.stringify(holder) + '\n';
  const started = now();
  let noticed = false;
  let delay = 10;
  for (;;) {
    // A read-only or refused folder in svc's one wording (src/config/atomic.ts), for every caller.
    if (await tryCreate(lockPath, record).catch((error: unknown) => Promise.reject(unwritableOr(configFolderOf(lockPath), error)))) break;
    const found = await inspect(lockPath, now());
    if (found.kind === 'gone') continue;
    if (found.kind === 'abandoned') {
      await takeOver(lockPath, found.ino);
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
    // Only our own lock: if it was taken over (we stalled past STALE_MS), it is someone else's now.
    const current = await promises.lstat(lockPath).catch(() => null);
    if (current?.ino === ino) await promises.unlink(lockPath).catch(() => {});
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
  const record = JSON.stringify(options.holder ?? currentHolder((options.now ?? Date.now)())) + '\n';
  const temp = tempPathOf(lockPath);
  let ino: number;
  try {
    const fd = openSync(temp, 'wx', 0o600);
    try {
      writeSync(fd, record);
      ino = fstatSync(fd).ino;
    } finally {
      closeSync(fd);
    }
    linkSync(temp, lockPath);
  } catch {
    return null;
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // never made, or already gone
    }
  }
  return () => {
    // Only our own lock, as acquireFileLock's release: a lock taken over is someone else's.
    try {
      if (lstatSync(lockPath).ino === ino) unlinkSync(lockPath);
    } catch {
      // gone already
    }
  };
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
  return (await inspect(lockPathOf(target), Date.now())).kind === 'live';
}
