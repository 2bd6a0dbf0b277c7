// Whether svc can keep files in its config folder, asked before a step the user would have to
// redo (`svc login` opening the browser): a read-only home or a folder of another user is
// found then, said as such, instead of as an ENOENT after the sign-in.
import { promises } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError } from '../errors.js';
import { diskFullWords, isDiskFull, isUnwritable } from '../files/disk.js';
import { prepareAtomicWrite, writeFileAtomic, type PreparedWrite } from '../files/atomic.js';

/** Makes the folder if needed and writes and removes a probe file in it; ConfigError naming why not. */
export async function checkWritableDir(dir: string): Promise<void> {
  const probe = join(dir, `.svc-write-probe-${process.pid}`);
  try {
    await makeDir(dir);
    await promises.writeFile(probe, '', { flag: 'wx', mode: 0o600 });
  } catch (error) {
    throw unwritable(dir, error);
  } finally {
    await promises.rm(probe, { force: true }).catch(() => {});
  }
}

/** mkdir -p, with the real cause: Node's recursive mkdir says ENOENT for a parent it could not make (EROFS, EACCES). */
export async function makeDir(dir: string): Promise<void> {
  try {
    await promises.mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const missing: string[] = [];
    for (
      let at = dir;
      !(await promises.lstat(at).then(
        () => true,
        () => false,
      )) && dirname(at) !== at;
      at = dirname(at)
    )
      missing.unshift(at);
    for (const folder of missing) await promises.mkdir(folder, { mode: 0o700 });
    throw error;
  }
}

/**
 * svc's one wording for a config folder it cannot write (a read-only home, a folder of another
 * user, a full disk, a file in its place), with the fix: every write of a config or credentials
 * file meets it here, through the atomic write (writeConfigFile) and the lock (src/config/lock.ts).
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

/** The atomic write (src/files/atomic.ts) of a file in svc's config folder: a refused folder said in svc's wording. */
export async function writeConfigFile(path: string, content: string, mode = 0o600): Promise<void> {
  await writeFileAtomic(path, content, { mode, refused: unwritableOr });
}

/** prepareAtomicWrite (src/files/atomic.ts) of a file in svc's config folder, worded as writeConfigFile. */
export function prepareConfigWrite(path: string, reserveBytes: number, mode = 0o600): Promise<PreparedWrite> {
  return prepareAtomicWrite(path, reserveBytes, { mode, refused: unwritableOr });
}
