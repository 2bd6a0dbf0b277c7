// Atomic file replacement: a temp file beside the target, fsync, rename. A reader sees
// the old or the new content, never half of one, and a crash leaves the old file whole.
import { open, rename, rm, mkdir } from 'node:fs/promises';
import { dirname, basename, join } from 'node:path';
import { requireNode } from '../node-require.js';

export async function writeFileAtomic(path: string, content: string, mode = 0o600): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // node:crypto loads here, not at start-up: most commands read the config and never write it.
  const { randomBytes } = requireNode('node:crypto') as typeof import('node:crypto');
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
