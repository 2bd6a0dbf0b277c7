// Atomic file replacement: a temp file beside the target, fsync, rename. A reader sees
// the old or the new content, never half of one, and a crash leaves the old file whole.
// node:fs's `promises` is read at each call: the fs/promises module then loads only when a
// file is written, not at every start (it costs ~1 ms and ~1 MiB).
import * as fs from 'node:fs';
import { dirname, basename, join } from 'node:path';
import { requireNode } from '../node-require.js';

export async function writeFileAtomic(path: string, content: string, mode = 0o600): Promise<void> {
  const dir = dirname(path);
  await fs.promises.mkdir(dir, { recursive: true, mode: 0o700 });
  // node:crypto loads here, not at start-up: most commands read the config and never write it.
  const { randomBytes } = requireNode('node:crypto') as typeof import('node:crypto');
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await fs.promises.open(temp, 'wx', mode);
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.promises.rename(temp, path);
  } catch (error) {
    await fs.promises.rm(temp, { force: true });
    throw error;
  }
}
