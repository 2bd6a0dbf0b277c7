// Atomic file replacement: a temp file beside the target, fsync, rename. A reader sees
// the old or the new content, never half of one, and a crash leaves the old file whole.
// A symlinked file stays a symlink: the rename happens beside the link's target. Temp files
// left by a writer that was killed (they may hold secrets) are removed by the next write.
// The emulator's state file is written the same way, synchronously (writeFileAtomicSync).
// node:fs's `promises` is read where used: fs/promises then loads only when a file is
// written or waited on, not at every start.
import { closeSync, fsyncSync, lstatSync, openSync, promises, readdirSync, readlinkSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { dirname, basename, join, resolve } from 'node:path';
import { lazyRequire } from '../node-require.js';
import { processRuns } from './process.js';

export interface AtomicWriteOptions {
  /** The new file's mode; 0600 unless said. */
  mode?: number;
  /**
   * What a failure to make the folder or temp file, or to put it in place, is thrown as: the
   * caller's wording for a folder it cannot write (svc's config folder has one). As it is by default.
   */
  refused?: (dir: string, error: unknown) => unknown;
}

export async function writeFileAtomic(path: string, content: string, options: AtomicWriteOptions = {}): Promise<void> {
  await (await prepareAtomicWrite(path, 0, options)).commit(content);
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
export async function prepareAtomicWrite(path: string, reserveBytes: number, options: AtomicWriteOptions = {}): Promise<PreparedWrite> {
  const { mode = 0o600, refused = (_dir: string, error: unknown) => error } = options;
  const target = await followLinks(path);
  const dir = dirname(target);
  const temp = tempPathOf(target);
  let handle: FileHandle;
  try {
    await promises.mkdir(dir, { recursive: true, mode: 0o700 });
    await removeAbandonedTemps(dir);
    handle = await promises.open(temp, 'wx', mode);
  } catch (error) {
    throw refused(dir, error);
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
        throw refused(dir, error);
      }
    },
    abandon: finish,
  };
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
  for (const entry of entries.filter(abandoned)) await promises.rm(join(dir, entry), { force: true }).catch(() => {});
}

/**
 * A write's temp file (`.config.json.<pid>.<hex>.tmp`), or a lock's record before it was
 * linked into place (`.config.json.lock.<pid>.<hex>`), of a process that is gone.
 */
function abandoned(entry: string): boolean {
  const pid = Number(/^\..+\.(\d+)\.[0-9a-f]{8}(?:\.tmp)?$/.exec(entry)?.[1]);
  return Number.isInteger(pid) && pid !== process.pid && !processRuns(pid);
}

/** The temp file of a write to `target`, beside it: named so the next write knows it for a leftover. */
function tempPathOf(target: string): string {
  // node:crypto loads here, not at start-up: most commands read the config and never write it.
  const { randomBytes } = lazyRequire('node:crypto');
  return join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** How a synchronous atomic write puts its bytes down: node:fs, or in tests a disk that fills up. */
export type WriteBytes = (fd: number, buffer: Buffer, offset: number) => number;

export interface AtomicWriteSyncOptions {
  /** The new file's mode; 0600 unless said. */
  mode?: number;
  /** Writes from `offset` to the end of `buffer` (or part of it); answers how many bytes it wrote. */
  write?: WriteBytes;
  /** Also fsync the folder after the rename, so the new name itself survives a crash. */
  syncFolder?: boolean;
}

/**
 * The atomic write, synchronously (the emulator's state file, written between requests): temp
 * file beside the target, fsync, rename; the temp file is gone afterwards, whatever happened.
 */
export function writeFileAtomicSync(path: string, content: string | Buffer, options: AtomicWriteSyncOptions = {}): void {
  const { mode = 0o600, write = (fd, buffer, offset) => writeSync(fd, buffer, offset) } = options;
  const target = followLinksSync(path);
  const dir = dirname(target);
  removeAbandonedTempsSync(dir);
  const temp = tempPathOf(target);
  const buffer = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  try {
    const fd = openSync(temp, 'wx', mode);
    try {
      let offset = 0;
      while (offset < buffer.length) offset += write(fd, buffer, offset);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  if (options.syncFolder) syncFolder(dir);
}

function removeAbandonedTempsSync(dir: string): void {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const entry of entries.filter(abandoned)) rmSync(join(dir, entry), { force: true });
}

/** followLinks, synchronously. */
function followLinksSync(path: string): string {
  let current = resolve(path);
  for (let hops = 0; hops < 40; hops++) {
    let info;
    try {
      info = lstatSync(current);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return current;
      throw error;
    }
    if (!info.isSymbolicLink()) return current;
    current = resolve(dirname(current), readlinkSync(current));
  }
  throw Object.assign(new Error(`too many levels of symbolic links at ${path}`), { code: 'ELOOP' });
}

function syncFolder(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some file systems cannot sync a folder; the rename is still atomic.
  }
}
