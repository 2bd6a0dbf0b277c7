// A command line the fast parse accepted (src/cli/fast-parse.ts), run: from the whole tree
// (src/cli/execute.ts) or from a command's start file (src/start.ts).
import type { Runtime } from './context.js';
import type { RunF } from './run.js';
import type { Invocation } from './tree.js';

export async function runValid(invocation: Invocation, argv: readonly string[], runtime: Runtime, version: string, runF?: RunF): Promise<number> {
  const run = await import('./run.js');
  try {
    return await run.runCommand(invocation, runtime, version, runF);
  } catch (error) {
    return run.printError(runtime, error, argv.includes('--debug'), argv.includes('--json'));
  }
}
