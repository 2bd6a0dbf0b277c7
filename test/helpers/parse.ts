// parseCli: a command line through commander and the command's parse(), stopping before
// run() (cli/cli's `runF` seam): no context, no server, no side effect. What the handler
// would have received, or the usage error and exit code.
import { expect } from 'vitest';
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

/** A usage error: exit 2, its message on stderr, nothing parsed. */
export async function refused(...argv: string[]): Promise<string> {
  const r = await parseCli(argv);
  expect(r.exitCode, argv.join(' ')).toBe(2);
  expect(r.command, argv.join(' ')).toBeUndefined();
  return r.stderr;
}

/**
 * The parse of one command (`calls links list`), as its mirror test file asks it: ok() parses a
 * line that runs that command, with nothing on stderr, and gives what its run() would receive;
 * refused() is a usage error.
 */
export function parsing(command: string) {
  return {
    async ok(...argv: string[]): Promise<unknown> {
      const r = await parseCli(argv);
      expect(r.stderr, argv.join(' ')).toBe('');
      expect(r.exitCode, argv.join(' ')).toBe(0);
      expect(r.command, argv.join(' ')).toBe(command);
      return r.opts;
    },
    refused,
  };
}
