// One invocation: commander, built from the declarations (src/cli/tree.ts), parses the line;
// the chosen leaf runs through src/cli/run.ts. A line commander refuses is svc's usage error
// (exit 2, or one JSON object with --json) in commander's words, with the command's --help to
// read; a value a declaration refuses is the UsageError its rule raised. Used by main.ts (the
// process) and runCli (tests).
import { ROOT } from '../commands/index.js';
import { UsageError } from '../errors.js';
import { globalOptions } from '../shared/globals.js';
import type { Runtime } from './context.js';
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
  const { buildProgram, commandPath } = await import('./tree.js');
  /** `svc calls list`: the command a usage error names. */
  const named = (words: readonly string[]) => ['svc', ...commandPath(ROOT, words)].join(' ');
  if (originalArgv[0] === 'help') {
    // `svc help nope` is an unknown command, not the root's help (commander would print that).
    const words = originalArgv.slice(1).filter((word) => !word.startsWith('-'));
    const path = commandPath(ROOT, words);
    if (path.length < words.length)
      return printError(runtime, new UsageError(`unknown command '${words[path.length]}'`, `run \`${named(path)} --help\` for the commands`), false);
  }
  let exitCode = 0;
  // What commander writes on stderr (help after a bare group) waits until we know whether it is an error.
  let commanderErr = '';
  const program = buildProgram(
    ROOT,
    {
      version,
      writeOut: (text) => runtime.stdout.write(text),
      writeErr: (text) => void (commanderErr += text),
      // Commander's refusals are printed as svc's errors (below), which follow --json.
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
    // The global flags commander had read when it stopped (--json, --debug: how to report it).
    const { debug, json } = globalOptions(program.opts());
    if (isCommanderError(error)) {
      // --help and --version end through exitOverride too: those are successes.
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      // Bare `svc` or a bare group (`svc calls`): its help, on stdout, as gh does.
      if (error.code === 'commander.help') {
        runtime.stdout.write(commanderErr);
        return 0;
      }
      const { usageFromCommander } = await import('./usage-words.js');
      return printError(runtime, usageFromCommander(error, ROOT, commandPath(ROOT, argv)), debug, json);
    }
    return printError(runtime, error, debug, json);
  }
  return exitCode;
}
