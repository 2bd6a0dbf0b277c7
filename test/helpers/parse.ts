// parseCli: a command line through commander and the command's parse(), stopping before
// run() (cli/cli's `runF` seam): no context, no server, no side effect. What the handler
// would have received, or the usage error and exit code.
import { execute } from '../../src/main.js';
import type { Runtime } from '../../src/cli/context.js';

export interface Parsed {
  exitCode: number;
  stderr: string;
  /** The leaf that would run (`calls list`); undefined when parsing failed. */
  command?: string;
  /** The options its run() would get. */
  opts?: unknown;
}

export async function parseCli(argv: string[], env: Record<string, string> = {}): Promise<Parsed> {
  let stderr = '';
  const refuse = () => {
    throw new Error('parse must not touch this');
  };
  const runtime: Runtime = {
    env,
    stdout: { write: refuse, isTTY: false, columns: 100 },
    stderr: { write: (chunk) => void (stderr += chunk), isTTY: false, columns: 100 },
    stdin: { isTTY: false, readAll: refuse, lines: refuse },
    clock: { now: refuse, sleep: refuse },
    random: { bytes: refuse },
    browser: { open: refuse },
    signal: new AbortController().signal,
  };
  const result: Parsed = { exitCode: 0, stderr: '' };
  result.exitCode = await execute(argv, runtime, (command, opts) => {
    result.command = command;
    result.opts = opts;
  });
  result.stderr = stderr;
  return result;
}
