// Whether svc can keep files in its config folder, asked before a step the user would have to
// redo (`svc login` opening the browser): a read-only home or a folder of another user is
// found then, said as such, instead of as an ENOENT after the sign-in.
import { promises } from 'node:fs';
import { dirname, join } from 'node:path';
import { ConfigError } from '../errors.js';
import { diskFullWords, isDiskFull } from './atomic.js';

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
