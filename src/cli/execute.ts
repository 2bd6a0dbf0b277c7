// One invocation: commander parses argv with the part of the command tree argv names
// (src/cli/tree.ts); the chosen leaf runs through src/cli/run.ts, loaded only then. Used
// by main.ts (the process) and runCli (tests). Kept to the start path: no command code,
// no error classes (commander's own errors only need an exit code).
import { EXIT } from '../errors.js';
import { ROOT } from '../commands/index.js';
import { buildProgram } from './tree.js';
import type { Runtime } from './context.js';
import type { RunF } from './run.js';

export type { RunF };

interface CommanderErrorLike {
  code: string;
  exitCode: number;
}

function isCommanderError(error: unknown): error is CommanderErrorLike {
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' && (error as { code: string }).code.startsWith('commander.');
}

export async function execute(argv: readonly string[], runtime: Runtime, version: string, runF?: RunF): Promise<number> {
  let exitCode = 0;
  const program = buildProgram(
    ROOT,
    {
      version,
      writeOut: (text) => runtime.stdout.write(text),
      writeErr: (text) => runtime.stderr.write(text),
      columns: runtime.stdout.columns,
      async invoke(invocation) {
        const { runCommand } = await import('./run.js');
        exitCode = await runCommand(invocation, runtime, version, runF);
      },
    },
    argv,
  );
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (isCommanderError(error)) {
      // --help and --version end through exitOverride too: those are successes.
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      // `svc calls` with no subcommand prints its help on stderr: a usage error.
      return EXIT.usage;
    }
    const { printError } = await import('./run.js');
    return printError(runtime, error, argv.includes('--debug'));
  }
  return exitCode;
}
