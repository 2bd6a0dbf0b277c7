// One invocation: commander parses argv, the chosen leaf's module is imported, its
// parse() validates, its run() acts; every error becomes a message on stderr and the
// exit code of design.md. Used by main.ts (the process) and runCli (tests).
import type { GlobalOptions } from '../context.js';
import { CliError, EXIT, exitCodeOf, isAbortError } from '../errors.js';
import { redactText } from '../io/redact.js';
import { escapeJsonControls, sanitizeText } from '../io/sanitize.js';
import { buildProgram, globalMode } from './program.js';
import { errorReport } from './error-report.js';
import { commandPathOf, usageErrorFor } from './usage-messages.js';
import type { CommandModule, Invocation } from './program.js';
import type { Runtime } from './context.js';

interface CommanderErrorLike {
  code: string;
  exitCode: number;
  message: string;
}

function isCommanderError(error: unknown): error is CommanderErrorLike {
  return typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string' && (error as { code: string }).code.startsWith('commander.');
}

function isModuleNotFound(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e?.code === 'ERR_MODULE_NOT_FOUND' || /Failed to load url|Cannot find module/.test(e?.message ?? '');
}

export function printError(runtime: Pick<Runtime, 'stderr'>, error: unknown, debug: boolean, json = false): number {
  const code = exitCodeOf(error);
  if (code === EXIT.interrupted) return code;
  const known = error instanceof CliError;
  const message = known ? error.message : `unexpected failure: ${error instanceof Error ? error.message : String(error)}`;
  const hint = known ? error.hint : debug ? undefined : 'run it again with --debug for details';
  if (json) {
    // One JSON object on stderr, for scripts (src/cli/error-report.ts lists the codes).
    runtime.stderr.write(escapeJsonControls(JSON.stringify(errorReport(error, message, hint))) + '\n');
    if (!known && debug && error instanceof Error && error.stack) runtime.stderr.write(redactText(error.stack) + '\n');
    return code;
  }
  // Messages may quote the server (a detail, an error_description): control characters made inert.
  runtime.stderr.write(`error: ${sanitizeText(redactText(message))}\n`);
  if (!known && debug && error instanceof Error && error.stack) runtime.stderr.write(sanitizeText(redactText(error.stack)) + '\n');
  else if (hint) runtime.stderr.write(`  ${sanitizeText(redactText(hint))}\n`);
  return code;
}

/** Aborted by Ctrl-C, as opposed to by a reader that closed stdout (reason code EPIPE). */
function interruptedBy(signal: AbortSignal): boolean {
  return signal.aborted && (signal.reason as { code?: unknown } | undefined)?.code !== 'EPIPE';
}

/** `svc help calls list` is `svc calls list --help`, at any depth (commander's help command has one level). */
function helpToFlag(argv: readonly string[]): readonly string[] {
  return argv[0] === 'help' ? [...argv.slice(1), '--help'] : argv;
}

export async function execute(originalArgv: readonly string[], runtime: Runtime, version: string): Promise<number> {
  const argv = helpToFlag(originalArgv);
  let exitCode = 0;
  let debug = argv.includes('--debug');
  let json = argv.includes('--json');
  // What commander writes on stderr (help after a bare group) waits until we know whether it is an error.
  let commanderErr = '';
  const program = buildProgram({
    version,
    writeOut: (text) => runtime.stdout.write(text),
    writeErr: (text) => void (commanderErr += text),
    // Commander's own error lines are replaced by svc's (usage-messages.ts).
    outputError: () => {},
    columns: runtime.stdout.columns,
    async invoke(invocation: Invocation) {
      const g = invocation.globals;
      let disposeContext: (() => Promise<void>) | undefined;
      debug = Boolean(g.debug);
      json = Boolean(g.json);
      const globals: GlobalOptions = {
        json: Boolean(g.json),
        debug,
        color: g.color !== false,
        yes: Boolean(g.yes),
      };
      if (g.profile) globals.profile = g.profile;
      if (g.baseUrl) globals.baseUrl = g.baseUrl;
      const mode = globalMode(g);
      if (mode) globals.mode = mode;
      try {
        // The context's modules (config, secret stores, HTTP) load only for a command that
        // runs, so `--help` parses just the command tree.
        const { createContext } = await import('./context.js');
        const ctx = createContext(runtime, globals, version);
        disposeContext = () => ctx.dispose();
        let module: CommandModule;
        try {
          module = (await invocation.load()) as CommandModule;
        } catch (error) {
          if (isModuleNotFound(error)) throw new CliError(`\`svc ${invocation.name}\` is not available in this build yet (its module is missing)`);
          throw error;
        }
        const opts = module.parse(invocation.args, invocation.flags);
        const result = await module.run(opts as never, ctx as never);
        exitCode = typeof result === 'number' ? result : 0;
        // Ctrl-C ends with 130 even when the command wound down cleanly, so a script can tell
        // an interrupted run from a finished one; a reader closing stdout is no interruption.
        if (interruptedBy(runtime.signal) && !module.stopsOnInterrupt) exitCode = EXIT.interrupted;
      } catch (error) {
        if (runtime.signal.aborted && (isAbortError(error) || !(error instanceof CliError))) exitCode = EXIT.interrupted;
        else exitCode = printError(runtime, error, debug, json);
      } finally {
        // The context's HTTP pool: idle keep-alive sockets would hold the process open.
        await disposeContext?.();
      }
    },
  });
  if (originalArgv[0] === 'help') {
    // `svc help nope` is an unknown command, not the root's help.
    let current = program;
    for (const name of originalArgv.slice(1).filter((a) => !a.startsWith('-'))) {
      const next = current.commands.find((c) => c.name() === name && name !== 'help');
      if (!next) return printError(runtime, usageErrorFor('commander.unknownCommand', `error: unknown command '${name}'`, commandPathOf(program, originalArgv.slice(1))), debug, json);
      current = next;
    }
  }
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
      return printError(runtime, usageErrorFor(error.code, error.message, commandPathOf(program, argv)), debug, json);
    }
    return printError(runtime, error, debug, json);
  }
  return exitCode;
}
