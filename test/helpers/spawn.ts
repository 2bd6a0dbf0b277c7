// Running the shipped program (or a shell around it) in a process of its own, as the
// spawned-binary suites do.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));

export interface Spawned {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` to its end and collects its output; `stdin` is written then closed (without it: /dev/null, as in CI). */
export function spawnCollect(command: string, args: readonly string[], opts: { env: NodeJS.ProcessEnv; stdin?: string; cwd?: string }): Promise<Spawned> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: opts.env, cwd: opts.cwd, stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    if (opts.stdin !== undefined) child.stdin!.end(opts.stdin);
  });
}

/**
 * The standalone binary (`npm run dist`) the spawned suites run instead of `node bin/svc.js`
 * when SVC_BIN names it: scripts/test-standalone.sh runs them so, with SVC_PATH a PATH on
 * which no `node` is found. Cases that look inside the bundle or the launcher skip then.
 */
export const standaloneBin: string | null = process.env.SVC_BIN || null;

/** Why a case that inspects the npm package's launcher or bundle does not run against SVC_BIN. */
export const NOT_STANDALONE = 'skipped for the standalone binary (SVC_BIN): it looks inside bin/svc.js or dist/';

/** The program and arguments that run `svc args…`: `node bin/svc.js`, or SVC_BIN. */
export function svcCommand(args: readonly string[]): [string, string[]] {
  return standaloneBin ? [standaloneBin, [...args]] : [process.execPath, [join(root, 'bin/svc.js'), ...args]];
}

/** The PATH a spawned svc gets: this process's, or SVC_PATH (no node on it) with SVC_BIN. */
export function svcPath(): string {
  return (standaloneBin && process.env.SVC_PATH) || process.env.PATH || '';
}

/** A shell word running svc (for `sh -c` command lines). */
export function svcShellWords(): string {
  return svcCommand([])
    .flat()
    .map((word) => `"${word}"`)
    .join(' ');
}

/** The launcher users run (over dist/, which the suites' global setup builds). */
export const svcBin = join(root, 'bin/svc.js');

/** What an emulator started with `--json` says on its first line: where it is, and its seed. */
export interface SpawnedEmulator {
  url: string;
  org_id: string;
  keys: { test: string; live: string };
  admin: { email: string; password: string };
  /** Ends it as Ctrl-C does (SIGINT) and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * An emulator in a process of its own: `command args…`, where args run `svc emulator … --json`.
 * Resolves once its first line says it is up; rejects, with its stderr, if it exits first.
 */
export function spawnEmulator(command: string, args: readonly string[], env: Record<string, string>): Promise<SpawnedEmulator> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`the emulator exited (${code}): ${err}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!out.includes('\n')) return;
      const started = JSON.parse(out.split('\n')[0]!) as Omit<SpawnedEmulator, 'stop'>;
      resolve({
        ...started,
        stop: () =>
          new Promise<void>((done) => {
            child.removeAllListeners('exit');
            child.once('exit', () => done());
            child.kill('SIGINT');
          }),
      });
    });
  });
}
