// The process edge, with src/cli/process/process.ts (the real runtime, SIGINT and process.exitCode,
// never process.exit, so pending output drains): the only places that read process.argv/env
// or touch the real stdin/stdout/stderr. bin/svc.js calls main().
import { loadCommands } from './cli/commands.js';
import { runAsProcess } from './cli/process/process.js';
import type { Runtime } from './cli/context.js';
import { execute as executeLine } from './cli/execute.js';
import type { RunF } from './cli/run.js';
import { svcVersion } from './shared/version.js';
import { phase } from './cli/phase.js';

export type { Runtime, RunF };

/**
 * In-process entry (tests, the demo): runs one command line, returns the exit code. With
 * `runF`, the command's parsed options go to it instead of its run().
 */
export async function execute(argv: readonly string[], runtime: Runtime, runF?: RunF): Promise<number> {
  const commands = await loadCommands();
  phase('manifest');
  // At a terminal every line on stderr, whoever writes it, fits it (src/io/fit-output.ts).
  // Piped or redirected, stderr stays whole, and the fitter and its width tables are not loaded.
  let { stdout, stderr } = runtime;
  // A terminal of a locale that is not UTF-8 gets svc's symbols (…, ✔, →) in ASCII (src/io/charset.ts),
  // before stderr is fitted, so the wider stand-ins wrap too.
  if (stdout.isTTY || stderr.isTTY) {
    const { asciiWhereNeeded } = await import('./io/charset.js');
    stdout = asciiWhereNeeded(stdout, runtime.env);
    stderr = asciiWhereNeeded(stderr, runtime.env);
  }
  if (stderr.isTTY) stderr = (await import('./io/fit-output.js')).fitToTerminal(stderr);
  return executeLine(argv, { ...runtime, stdout, stderr }, svcVersion(), commands, runF);
}

export async function main(): Promise<void> {
  await runAsProcess((runtime) => execute(process.argv.slice(2), runtime));
}
