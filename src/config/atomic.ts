// Atomic file replacement: a temp file beside the target, fsync, rename. A reader sees
// the old or the new content, never half of one, and a crash leaves the old file whole.
// A symlinked file stays a symlink: the rename happens beside the link's target. Temp files
// left by a writer that was killed (they may hold secrets) are removed by the next write.
// node:fs's `promises` is read where used: fs/promises then loads only when a file is
// written or waited on, not at every start.
import { promises } from 'node:fs';
import { dirname, basename, join, resolve } from 'node:path';
import { lazyRequire } from '../node-require.js';

export async function writeFileAtomic(path: string, content: string, mode = 0o600): Promise<void> {
  const target = await followLinks(path);
  const dir = dirname(target);
  await promises.mkdir(dir, { recursive: true, mode: 0o700 });
  await removeAbandonedTemps(dir);
  // node:crypto loads here, not at start-up: most commands read the config and never write it.
  const { randomBytes } = lazyRequire('node:crypto');
  const temp = join(dir, `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await promises.open(temp, 'wx', mode);
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await promises.rename(temp, target);
  } catch (error) {
    await promises.rm(temp, { force: true });
    throw error;
  }
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
    const pid = Number(/^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$/.exec(entry)?.[1]);
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
