// Atomic file replacement: a temp file beside the target, fsync, rename. A reader sees
// the old or the new content, never half of one, and a crash leaves the old file whole.
// A symlinked file stays a symlink: the rename happens beside the link's target. Temp files
// left by a writer that was killed (they may hold secrets) are removed by the next write.
// node:fs's `promises` is read where used: fs/promises then loads only when a file is
// written or waited on, not at every start.
import { promises } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { dirname, basename, join, resolve } from 'node:path';
import { lazyRequire } from '../node-require.js';
import { ConfigError } from '../errors.js';

export async function writeFileAtomic(path: string, content: string, mode = 0o600): Promise<void> {
  await (await prepareAtomicWrite(path, 0, mode)).commit(content);
}

/** A temp file made ready beside its target; commit() fills it and renames it into place. */
export interface PreparedWrite {
  /** The file it will replace. */
  readonly target: string;
  /** Writes the content over the reserved space, fsync, rename. The temp file is gone afterwards, whatever happened. */
  commit(content: string): Promise<void>;
  /** Removes the temp file unused. */
  abandon(): Promise<void>;
}

/**
 * Makes the temp file of an atomic write now, `reserveBytes` long and synced to disk, so a
 * full disk fails here rather than at commit(): a caller about to do something that cannot
 * be undone (spend a refresh token) first makes sure its result has a place to go.
 */
export async function prepareAtomicWrite(path: string, reserveBytes: number, mode = 0o600): Promise<PreparedWrite> {
  const target = await followLinks(path);
  const dir = dirname(target);
  // node:crypto loads here, not at start-up: most commands read the config and never write it.
  const { randomBytes } = lazyRequire('node:crypto');
  const temp = join(dir, `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  let handle: FileHandle;
  try {
    await promises.mkdir(dir, { recursive: true, mode: 0o700 });
    await removeAbandonedTemps(dir);
    handle = await promises.open(temp, 'wx', mode);
  } catch (error) {
    throw unwritableOr(dir, error);
  }
  let closed = false;
  const finish = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await handle.close().catch(() => {});
    await promises.rm(temp, { force: true }).catch(() => {});
  };
  try {
    if (reserveBytes > 0) {
      // Written, not only sized: a sparse file would reserve nothing.
      await handle.writeFile(Buffer.alloc(reserveBytes, 0x20));
      await handle.sync();
    }
  } catch (error) {
    await finish();
    throw error;
  }
  return {
    target,
    async commit(content) {
      try {
        const bytes = Buffer.from(content, 'utf8');
        await handle.write(bytes, 0, bytes.length, 0);
        await handle.truncate(bytes.length);
        await handle.sync();
        await handle.close();
        closed = true;
        await promises.rename(temp, target);
      } catch (error) {
        await finish();
        await promises.rm(temp, { force: true }).catch(() => {});
        throw unwritableOr(dir, error);
      }
    },
    abandon: finish,
  };
}

/** The disk (or the user's quota) is full: said as such, with what to do. */
export function isDiskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** A full disk, in the one wording every file of svc's uses: the file, and where to free space. */
export function diskFullWords(path: string, dir: string = dirname(path)): { message: string; hint: string } {
  return { message: `cannot write ${path}: the disk is full`, hint: `free space on the disk that holds ${dir}` };
}

/** A write refused by the file system itself (read-only, or not ours to write), as opposed to a full disk or a bug. */
export function isUnwritable(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'EROFS' || code === 'EACCES' || code === 'EPERM';
}

/**
 * svc's one wording for a config folder it cannot write (a read-only home, a folder of another
 * user, a full disk, a file in its place), with the fix: every write of a config or credentials
 * file meets it here, through the atomic write and the lock (src/config/lock.ts).
 */
export function unwritable(dir: string, error: unknown): ConfigError {
  const code = (error as NodeJS.ErrnoException).code;
  const next = 'make it writable, or point SVC_CONFIG_DIR at a folder you can write (e.g. SVC_CONFIG_DIR=/tmp/svc for a read-only home)';
  if (code === 'EROFS') return new ConfigError(`cannot write the config folder ${dir}: it is on a read-only file system`, dir, next);
  if (code === 'EACCES' || code === 'EPERM') return new ConfigError(`cannot write the config folder ${dir}: permission denied`, dir, next);
  if (isDiskFull(error)) {
    const { hint } = diskFullWords(dir, dir);
    return new ConfigError(`cannot write the config folder ${dir}: the disk is full`, dir, hint);
  }
  if (code === 'ENOTDIR' || code === 'EEXIST')
    return new ConfigError(`cannot write the config folder ${dir}: something that is not a folder is in its place`, dir, next);
  return new ConfigError(`cannot write the config folder ${dir}: ${(error as Error).message}`, dir, next);
}

/** A read-only or refused write in `dir` as svc's wording; any other error (a full disk keeps its code for its callers) as it is. */
export function unwritableOr(dir: string, error: unknown): unknown {
  return isUnwritable(error) ? unwritable(dir, error) : error;
}

/** The file a path finally names (a dangling link names its would-be target). */
export async function followLinks(path: string): Promise<string> {
  let current = resolve(path);
  for (let hops = 0; hops < 40; hops++) {
    let info;
    try {
      info = await promises.lstat(current);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return current;
      throw error;
    }
    if (!info.isSymbolicLink()) return current;
    current = resolve(dirname(current), await promises.readlink(current));
  }
  throw Object.assign(new Error(`too many levels of symbolic links at ${path}`), { code: 'ELOOP' });
}

/**
 * `.<name>.<pid>.<hex>.tmp` of a process that no longer runs: an interrupted write's leftover
 * (of this file or of its neighbour: config.json and credentials.json share the directory).
 */
async function removeAbandonedTemps(dir: string): Promise<void> {
  let entries: string[];
  try {
    entries = await promises.readdir(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    // A write's temp file (`.config.json.<pid>.<hex>.tmp`), or a lock's record before it was
    // linked into place (`.config.json.lock.<pid>.<hex>`), of a process that is gone.
    const pid = Number(/^\..+\.(\d+)\.[0-9a-f]{8}(?:\.tmp)?$/.exec(entry)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || processRuns(pid)) continue;
    await promises.rm(join(dir, entry), { force: true }).catch(() => {});
  }
}

export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
