// Whether svc can keep files in its config folder, asked before a step the user would have to
// redo (`svc login` opening the browser): a read-only home or a folder of another user is
// found then, said as such, instead of as an ENOENT after the sign-in.
import { promises } from 'node:fs';
import { dirname, join } from 'node:path';
import { unwritable } from './atomic.js';

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

/** (svc's one wording is src/config/atomic.ts's, where every write meets it.) */
export { unwritable };
