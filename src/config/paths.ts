// Where svc keeps its files: SVC_CONFIG_DIR, else the platform's config dir.
import { lazyRequire } from '../node-require.js';
import { join } from 'node:path';

export function configDir(env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform = process.platform): string {
  if (env.SVC_CONFIG_DIR) return env.SVC_CONFIG_DIR;
  const home = env.HOME || env.USERPROFILE || lazyRequire('node:os').homedir(); // (node:os loads only without HOME: start-up)
  if (platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'svc');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'svc');
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'svc');
}

export const CONFIG_FILE = 'config.json';
export const CREDENTIALS_FILE = 'credentials.json';
export const LOCKS_DIR = 'locks';
