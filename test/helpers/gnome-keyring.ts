// A gnome-keyring of a test's own: a shell script run inside a D-Bus session bus of its own
// (dbus-run-session), where the script starts the daemon as the case needs (frozen, with no
// keyring yet) and runs the built svc as a new user would.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempConfigDir } from './cli.js';
import type { TestEmulator } from './emulator.js';
import { root, spawnCollect } from './spawn.js';

/** Why such a session cannot be had here (not Linux, a program missing), or null. */
export function gnomeKeyringProblem(): string | null {
  if (process.platform !== 'linux') return 'not Linux';
  for (const program of ['dbus-run-session', 'gnome-keyring-daemon'])
    if (spawnSync('sh', ['-c', `command -v ${program}`]).status !== 0) return `${program} is not installed`;
  return null;
}

export interface SessionRun {
  /** dbus-run-session's exit code and stderr. */
  code: number | null;
  stderr: string;
  /** The HOME svc ran with (a folder that did not exist before). */
  home: string;
  /** A file the script wrote to $OUT. */
  read(name: string): string;
}

/**
 * Runs the lines of `script` (sh) in a session bus of their own, with: svc as "$NODE" "$SVC"
 * against `emu` (SVC_BASE_URL), the seed's test key in $KEY, an empty folder for the daemon's
 * data in $KEYRINGS (so it never sees the user's keyrings), and $OUT for what the script
 * writes. Nothing else of this process's environment but PATH.
 */
export async function inOwnSession(script: readonly string[], emu: TestEmulator): Promise<SessionRun> {
  const home = join(tempConfigDir(), 'home');
  const keyrings = join(tempConfigDir(), 'keyrings');
  mkdirSync(keyrings);
  const out = tempConfigDir();
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    NO_COLOR: '1',
    SVC_BASE_URL: emu.url,
    NODE: process.execPath,
    SVC: join(root, 'bin', 'svc.js'),
    KEYRINGS: keyrings,
    KEY: emu.seed.keys.test,
    OUT: out,
  };
  const run = await spawnCollect('dbus-run-session', ['--', 'sh', '-c', script.join('\n')], { env });
  return { code: run.code, stderr: run.stderr, home, read: (name) => readFileSync(join(out, name), 'utf8') };
}
