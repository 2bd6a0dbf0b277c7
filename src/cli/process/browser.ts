// Opening the user's browser for `svc login`. The opener is a program svc does not control
// (xdg-open, a desktop helper, whatever $BROWSER names) and it may outlive svc, so it gets
// an environment without svc's own secrets: no SVC_* variable (SVC_API_KEY,
// SVC_CLIENT_SECRET, …) reaches it.
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { lazyRequire } from '../../node-require.js';

export interface OpenerCommand {
  command: string;
  args: string[];
}

/**
 * The program that opens `url`: $BROWSER when set (the convention of xdg-open, Python's
 * webbrowser and gh: a command, `%s` standing for the address, else the address appended),
 * else the platform's opener.
 */
export function openerCommand(url: string, env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform): OpenerCommand {
  const browser = env.BROWSER?.trim();
  if (browser) {
    // xdg-open's form: several candidates separated by ':'; the first is used.
    const words = (browser.split(':')[0] ?? browser).trim().split(/\s+/);
    const hasPlaceholder = words.some((word) => word.includes('%s'));
    const args = words.slice(1).map((word) => word.replaceAll('%s', url));
    return { command: words[0]!, args: hasPlaceholder ? args : [...args, url] };
  }
  // rundll32 takes the address as one argument: no shell, so `&` in the query is safe.
  if (platform === 'win32') return { command: 'rundll32', args: ['url.dll,FileProtocolHandler', url] };
  if (platform === 'darwin') return { command: 'open', args: [url] };
  // WSL: wslu's wslview hands the address to the Windows browser.
  if (env.WSL_DISTRO_NAME) return { command: 'wslview', args: [url] };
  return { command: 'xdg-open', args: [url] };
}

/** The environment without svc's variables: they may hold secrets, and an opener has no use for them. */
export function openerEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const clean: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !/^SVC_/i.test(name)) clean[name] = value;
  }
  return clean;
}

/** Starts the opener detached (it may run long after svc ends); resolves once it has started. */
export function openBrowser(url: string, env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform): Promise<void> {
  const { spawn } = lazyRequire('node:child_process');
  const { command, args } = openerCommand(url, env, platform);
  const options: SpawnOptions = { env: openerEnv(env), stdio: 'ignore', detached: platform !== 'win32', windowsHide: true };
  return new Promise<void>((resolve, reject) => {
    let child: ChildProcess;
    try {
      child = spawn(command, args, options);
    } catch (error) {
      reject(error as Error);
      return;
    }
    child.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'ENOENT' ? new Error(`${command} was not found`) : error));
    child.once('spawn', () => {
      child.unref(); // never keep svc running for the opener
      resolve();
    });
  });
}
