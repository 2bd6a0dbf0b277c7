// Where svc keeps its files: SVC_CONFIG_DIR, else the platform's config dir.
import { lazyRequire } from '../node-require.js';
import { join } from 'node:path';

export function configDir(env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform = process.platform): string {
  if (env.SVC_CONFIG_DIR) return env.SVC_CONFIG_DIR;
  const home = env.HOME || env.USERPROFILE || homeOfUser(); // (node:os loads only without HOME: start-up)
  if (home === null) return noHomeDir(env);
  if (platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'svc');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'svc');
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'svc');
}

/** The passwd entry's home; null for a user with none (`docker run --user 12345`: no entry, no HOME). */
function homeOfUser(): string | null {
  try {
    return lazyRequire('node:os').homedir();
  } catch {
    return null;
  }
}

/** With no home at all: a folder of this user's own under the OS temp dir, $TMPDIR/svc-<uid>. */
function noHomeDir(env: Readonly<Record<string, string | undefined>>): string {
  const tmp = env.TMPDIR || lazyRequire('node:os').tmpdir();
  return join(tmp, `svc-${process.getuid?.() ?? 'user'}`);
}

export const CONFIG_FILE = 'config.json';
export const CREDENTIALS_FILE = 'credentials.json';
export const LOCKS_DIR = 'locks';
