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
export function spawnCollect(command: string, args: readonly string[], opts: { env: NodeJS.ProcessEnv; stdin?: string }): Promise<Spawned> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: opts.env, stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    if (opts.stdin !== undefined) child.stdin!.end(opts.stdin);
  });
}

/** The launcher users run (over dist/, which the suites' global setup builds). */
export const svcBin = join(root, 'bin/svc.js');
