// One invocation: commander, built from the manifest (src/cli/tree.ts), parses the line;
// the chosen leaf runs through src/cli/run.ts. A line commander refuses is svc's usage error
// (exit 2, or one JSON object with --json) in commander's words, with the command's --help to
// read; a value a declaration refuses is the UsageError its rule raised. Used by main.ts (the
// process) and runCli (tests).
import type { Command } from 'commander';
import { UsageError } from '../errors.js';
import { globalOptions } from '../shared/globals.js';
import type { Commands } from './commands.js';
import type { Runtime } from './context.js';
import { printError, runCommand, type RunF } from './run.js';
import { printTopic, topicAsked } from './help-topic.js';
import { buildProgram, commandPath, parseLine, readHelpWord, type ProgramOptions } from './tree.js';

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

/** The deepest command of `program` on `path` (command words): the one that refused the line. */
function commandAt(program: Command, path: readonly string[]): Command {
  let command = program;
  for (const word of path) command = command.commands.find((child) => child.name() === word) ?? command;
  return command;
}

export async function execute(originalArgv: readonly string[], runtime: Runtime, version: string, commands: Commands, runF?: RunF): Promise<number> {
  const { manifest } = commands;
  /** `svc calls list`: the command a usage error names. */
  const named = (words: readonly string[]) => ['svc', ...commandPath(manifest, words)].join(' ');
  const topic = topicAsked(originalArgv);
  if (topic) return printTopic(topic, runtime);
  const { argv, unknown } = readHelpWord(manifest, originalArgv);
  // `svc help nope` is an unknown command, not the root's help (commander would print that).
  if (unknown) {
    // `svc help nope`: neither a command nor a topic, and the root's help lists both.
    const what = unknown.path.length ? 'the commands' : 'the commands and the help topics';
    return printError(runtime, new UsageError(`unknown command '${unknown.word}'`, `run \`${named(unknown.path)} --help\` for ${what}`), false);
  }
  let exitCode = 0;
  // What commander writes on stderr (help after a bare group) waits until we know whether it is an error.
  let commanderErr = '';
  const programOptions: ProgramOptions = {
    version,
    writeOut: (text) => runtime.stdout.write(text),
    writeErr: (text) => void (commanderErr += text),
    // Commander's refusals are printed as svc's errors (below), which follow --json.
    outputError: () => {},
    columns: runtime.stdout.columns,
    async invoke(invocation) {
      exitCode = await runCommand(invocation, runtime, version, commands, runF);
    },
  };
  const program = buildProgram(manifest, programOptions, argv);
  try {
    await parseLine(manifest, programOptions, argv, program);
  } catch (error) {
    // The global flags commander had read when it stopped (--json, --debug: how to report it;
    // the root reads them alike whichever tree parseLine used).
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
      const path = commandPath(manifest, argv);
      return printError(runtime, usageFromCommander(error, { operands: commandAt(program, path).args }, manifest, path), debug, json);
    }
    return printError(runtime, error, debug, json);
  }
  return exitCode;
}
