// One invocation: a valid command line is parsed from the declarations (src/cli/fast-parse.ts);
// any other, commander parses with the part of the command tree argv names (src/cli/tree.ts,
// commander loaded only then), and says what is wrong or prints help. The chosen leaf runs
// through src/cli/run.ts. Used by main.ts (the process) and runCli (tests).
import { ROOT } from '../commands/index.js';
import { commandPath, fastInvocation } from './fast-parse.js';
import type { Runtime } from './context.js';
import { printUsageError } from './print-error.js';
import { printError, runCommand, type RunF } from './run.js';

export type { RunF };

interface CommanderErrorLike {
  code: string;
  exitCode: number;
  message: string;
}

function isCommanderError(error: unknown): error is CommanderErrorLike {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string' &&
    (error as { code: string }).code.startsWith('commander.')
  );
}

/** `svc help calls list` is `svc calls list --help`, at any depth (commander's help command has one level). */
function helpToFlag(argv: readonly string[]): readonly string[] {
  return argv[0] === 'help' ? [...argv.slice(1), '--help'] : argv;
}

export async function execute(originalArgv: readonly string[], runtime: Runtime, version: string, runF?: RunF): Promise<number> {
  const argv = helpToFlag(originalArgv);
  let exitCode = 0;
  const debug = argv.includes('--debug');
  const json = argv.includes('--json');
  const valid = fastInvocation(ROOT, argv);
  if (valid) {
    try {
      return await runCommand(valid, runtime, version, runF);
    } catch (error) {
      return printError(runtime, error, debug, json);
    }
  }
  /** `svc calls list`: the command a usage error names. */
  const named = (words: readonly string[]) => ['svc', ...commandPath(ROOT, words)].join(' ');
  if (originalArgv[0] === 'help') {
    // `svc help nope` is an unknown command, not the root's help.
    const words = originalArgv.slice(1).filter((word) => !word.startsWith('-'));
    const path = commandPath(ROOT, words);
    if (path.length < words.length)
      return printUsageError(runtime, 'commander.unknownCommand', `error: unknown command '${words[path.length]}'`, named(path), debug, json);
  }
  const { buildProgram } = await import('./tree.js');
  // What commander writes on stderr (help after a bare group) waits until we know whether it is an error.
  let commanderErr = '';
  const program = buildProgram(
    ROOT,
    {
      version,
      writeOut: (text) => runtime.stdout.write(text),
      writeErr: (text) => void (commanderErr += text),
      // Commander's own error lines are replaced by svc's (usage-messages.ts).
      outputError: () => {},
      columns: runtime.stdout.columns,
      async invoke(invocation) {
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
      // Bare `svc` or a bare group (`svc calls`): its help, on stdout, as gh does.
      if (error.code === 'commander.help') {
        runtime.stdout.write(commanderErr);
        return 0;
      }
      return printUsageError(runtime, error.code, error.message, named(argv), debug, json);
    }
    return printError(runtime, error, debug, json);
  }
  return exitCode;
}
