// Cross-process locks. The lock is a file `<target>.lock` holding a record of its holder
// (pid, host, process start, a random token), created atomically by linking a finished
// temp file into place, so nobody ever sees a half-written record. Whoever finds it held can
// then tell a lock left by a killed process (same host, pid gone) from a live holder and take
// it over at once, instead of waiting for the lock to age. What to do about a live holder is
// the caller's: svc's own commands wait for it (src/config/lock.ts), an emulator refuses to
// share its state file (src/emulator/persistence/state-lock.ts).
// node:fs's `promises` is read where used: fs/promises then loads only when a file is
// written or waited on, not at every start.
import { closeSync, fstatSync, linkSync, lstatSync, openSync, promises, renameSync, rmSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { lazyRequire } from '../node-require.js';
import { readOwnFile } from './own-file.js';
import { processFacts, processRuns, sameProcess, STARTED_AT_SLACK_MS, startedAt } from './process.js';

// node:crypto and node:os load on first lock, not when the config module loads (start-up time).
const randomHex = (bytes: number): string => lazyRequire('node:crypto').randomBytes(bytes).toString('hex');
const hostname = (): string => lazyRequire('node:os').hostname();

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

/** The record of this process as a holder. */
export function currentHolder(now = Date.now()): LockHolder {
  return {
    pid: process.pid,
    host: hostname(),
    started_at: startedAt(now),
    acquired_at: new Date(now).toISOString(),
    token: randomHex(8),
  };
}

export function lockPathOf(target: string): string {
  return `${target}.lock`;
}

/** How a lock's holder is judged. */
export interface LockRules {
  /**
   * A lock whose mtime was not refreshed for this long is abandoned, whoever holds it (its
   * holder refreshes it: holdLock's heartbeat), unless its holder is this host's process,
   * stopped. null: never by age; a holder is judged by its process alone.
   */
  staleMs: number | null;
  /** A holder whose pid now names a process that started at another time is gone (Linux; elsewhere the pid alone). */
  reusedPids?: boolean;
  /** The record may begin with a line holding the pid alone, or be only that line (the emulator's). */
  pidLine?: boolean;
}

export type LockState =
  | { kind: 'gone' }
  | { kind: 'live'; holder: LockHolder | null; stopped?: boolean }
  /** Left behind: the holder is dead, or the lock stopped being refreshed. `ino` names the file judged. */
  | { kind: 'abandoned'; ino: number; why: string };

/**
 * Whether the holder is this host's process, stopped (SIGSTOP, Ctrl-Z) rather than gone: it
 * cannot refresh its lock, yet it still holds what it read, and resumed it writes it (a refresh
 * of single-use tokens would store the pair it was given). Its lock is waited for, never taken
 * over. Linux only (/proc); the start time tells it from another process with a reused pid.
 */
function stoppedHolder(holder: LockHolder): boolean {
  const facts = processFacts(holder.pid);
  if (!facts?.stopped) return false;
  return Math.abs(facts.startedMs - Date.parse(holder.started_at)) < STARTED_AT_SLACK_MS;
}

/**
 * Judges the lock at `lockPath`. A record that is not a small regular file (a FIFO, a link, a
 * device) is refused unread: OwnFileRefusedError, for the caller to word.
 */
export function judgeLock(lockPath: string, now: number, rules: LockRules): LockState {
  let stat;
  let text: string;
  try {
    stat = lstatSync(lockPath);
    // A directory: proper-lockfile's lock of an earlier svc; only its age can tell.
    const record = stat.isDirectory() ? '' : readOwnFile(lockPath, { what: 'the lock file', maxBytes: LOCK_MAX_BYTES });
    if (record === null) return { kind: 'gone' };
    text = record;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'gone' };
    throw error;
  }
  const holder = parseHolder(text, rules.pidLine === true);
  const here = holder !== null && holder.host === hostname();
  if (here && !processRuns(holder.pid)) return { kind: 'abandoned', ino: stat.ino, why: `its holder, process ${holder.pid}, is gone` };
  if (here && rules.reusedPids && !sameProcess(holder.pid, holder.started_at))
    return { kind: 'abandoned', ino: stat.ino, why: `its holder, process ${holder.pid}, is gone (the pid now names another process)` };
  // Judged by its process alone, a record that names none (empty, cut short, foreign) holds nothing.
  if (rules.staleMs === null && holder === null && !stat.isDirectory()) return { kind: 'abandoned', ino: stat.ino, why: 'it names no holder' };
  const aged = rules.staleMs !== null && stat.mtimeMs < now - rules.staleMs;
  if (aged && here && stoppedHolder(holder)) return { kind: 'live', holder, stopped: true };
  if (aged) return { kind: 'abandoned', ino: stat.ino, why: `it was not refreshed for ${Math.round((now - stat.mtimeMs) / 1000)} s` };
  return { kind: 'live', holder };
}

/** The largest lock record svc reads: a holder record is a line of JSON. */
const LOCK_MAX_BYTES = 64 * 1024;

function parseHolder(text: string, pidLine: boolean): LockHolder | null {
  if (pidLine) {
    const [, pid, rest] = /^(\d+)\n([^]*)$/.exec(text) ?? /^(\d+)()$/.exec(text.trim()) ?? [];
    if (pid !== undefined) {
      // A pid alone (an older emulator's record): this host's, its start unknown.
      const bare: LockHolder = { pid: Number(pid), host: hostname(), started_at: '', acquired_at: '', token: '' };
      return parseHolder(rest ?? '', false) ?? bare;
    }
  }
  try {
    const data = JSON.parse(text) as Partial<LockHolder>;
    if (typeof data.pid === 'number' && typeof data.host === 'string') return data as LockHolder;
  } catch {
    // empty or foreign: judged by age alone
  }
  return null;
}

/** The record a holder writes into its lock: its pid first, on a line of its own, when the rules read one. */
export function holderRecord(holder: LockHolder, pidLine = false): string {
  return `${pidLine ? `${holder.pid}\n` : ''}${JSON.stringify(holder)}\n`;
}

/** Where the lock's record is written before it is linked into place. */
const tempPathOf = (lockPath: string): string => join(dirname(lockPath), `.${basename(lockPath)}.${process.pid}.${randomHex(4)}`);

/** A file system that cannot make hard links: the record is then created in place, exclusively. */
const noHardLinks = (code: string | undefined): boolean => code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP' || code === 'ENOSYS';

/** Creates the lock with our record in one step; false when someone holds it. */
export async function createLock(lockPath: string, record: string): Promise<boolean> {
  const temp = tempPathOf(lockPath);
  try {
    // Inside the try: a full disk makes the file, then fails to fill it; it is removed all the same.
    await promises.writeFile(temp, record, { mode: 0o600 });
    await promises.link(temp, lockPath); // atomic, and fails with EEXIST when held
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (!noHardLinks(code)) throw error;
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
 * createLock in one synchronous step: the lock's inode (releaseLockSync's proof that it is
 * still ours), or null when someone holds it. `linkOnly`: on a file system without hard
 * links, throw rather than create the record in place.
 */
export function createLockSync(lockPath: string, record: string, linkOnly = false): number | null {
  const temp = tempPathOf(lockPath);
  try {
    const ino = writeRecordSync(temp, 'wx', record);
    linkSync(temp, lockPath);
    return ino;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return null;
    if (linkOnly || !noHardLinks(code)) throw error;
    try {
      return writeRecordSync(lockPath, 'wx', record);
    } catch (inner) {
      if ((inner as NodeJS.ErrnoException).code === 'EEXIST') return null;
      throw inner;
    }
  } finally {
    try {
      unlinkSync(temp);
    } catch {
      // never made, or already gone
    }
  }
}

/** Writes `record` into a new file; its inode. A record the disk cut short is removed with its file. */
function writeRecordSync(path: string, flags: string, record: string): number {
  const fd = openSync(path, flags, 0o600);
  try {
    writeSync(fd, record);
    return fstatSync(fd).ino;
  } catch (error) {
    rmSync(path, { force: true });
    throw error;
  } finally {
    closeSync(fd);
  }
}

/**
 * Takes over an abandoned lock: moved aside, then removed, unless what was moved is not the
 * file judged (`judgedIno`: another waiter took it over meanwhile and holds it), which is put back.
 */
export function takeOverLock(lockPath: string, judgedIno: number): void {
  const aside = `${lockPath}.abandoned.${process.pid}.${randomHex(4)}`;
  try {
    renameSync(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // another waiter took it over
    throw error;
  }
  if (lstatSync(aside).ino !== judgedIno) {
    try {
      linkSync(aside, lockPath);
    } catch {
      // someone took it meanwhile
    }
  }
  rmSync(aside, { recursive: true, force: true });
}

/** Lets go of the lock if it is still ours (`ino`): one taken over (its holder stalled past the stale age) is someone else's now. */
export function releaseLockSync(lockPath: string, ino: number): void {
  try {
    if (lstatSync(lockPath).ino === ino) unlinkSync(lockPath);
  } catch {
    // gone already
  }
}

/** How a holder's lock is described to whoever finds it held. */
export function describeHolder(holder: LockHolder | null, lockPath: string, stopped = false): string {
  if (!holder) return `another svc process holds ${lockPath}`;
  const where = holder.host === hostname() ? '' : ` on ${holder.host}`;
  return `another svc process (pid ${holder.pid}${where}, ${stopped ? 'stopped, ' : ''}holding it since ${holder.acquired_at}) holds ${lockPath}`;
}
