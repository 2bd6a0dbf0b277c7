// Running the leaf commander chose: its module is imported, its parse() validates, its
// run() acts with a context; every error becomes a message on stderr and the exit code of
// design.md. The bundle puts this and every command's code in dist/run.cjs, loaded only
// when a command runs (src/cli/execute.ts, the start path, holds just the tree).
import type { GlobalOptions } from '../context.js';
import { CliError, EXIT, exitCodeOf, isAbortError } from '../errors.js';
import { redactText } from '../io/redact.js';
import { escapeJsonControls, sanitizeText } from '../io/sanitize.js';
import { errorReport } from './error-report.js';
import { usageErrorFor } from './usage-messages.js';
import type { LoadedCommand } from './define.js';
import type { Invocation, RawGlobals } from './tree.js';
import type { Mode } from '../shared/constants.js';
import type { Runtime } from './context.js';

/**
 * Instead of running the command: receives what its run() would get (cli/cli's `runF`).
 * Tests check each command's flag rules with it, without a context or a server.
 */
export type RunF = (name: string, opts: unknown) => void;

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

/** A commander failure (its code and wording) as svc's usage error, printed; returns exit 2. */
export function printUsageError(
  runtime: Pick<Runtime, 'stderr'>,
  code: string,
  commanderMessage: string,
  command: string,
  debug: boolean,
  json: boolean,
): number {
  return printError(runtime, usageErrorFor(code, commanderMessage, command), debug, json);
}

/** Aborted by Ctrl-C, as opposed to by a reader that closed stdout (reason code EPIPE). */
function interruptedBy(signal: AbortSignal): boolean {
  return signal.aborted && (signal.reason as { code?: unknown } | undefined)?.code !== 'EPIPE';
}

/** A declared `env` fallback fills a flag the command line left out. */
function withEnvFallbacks(invocation: Invocation, env: Runtime['env']): Record<string, unknown> {
  const flags = { ...invocation.flags };
  for (const [key, spec] of Object.entries(invocation.leaf.decl.flags ?? {})) {
    const fromEnv = spec.env ? env[spec.env] : undefined;
    if (flags[key] === undefined && fromEnv !== undefined && fromEnv !== '') flags[key] = fromEnv;
  }
  return flags;
}

function globalMode(globals: RawGlobals): Mode | undefined {
  return globals.test ? 'test' : globals.live ? 'live' : undefined;
}

/** Runs one leaf; returns its exit code. */
export async function runCommand(invocation: Invocation, runtime: Runtime, version: string, runF?: RunF): Promise<number> {
  const g = invocation.globals;
  const debug = Boolean(g.debug);
  const json = Boolean(g.json);
  let disposeContext: (() => Promise<void>) | undefined;
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
    let module: LoadedCommand;
    try {
      module = await invocation.leaf.load();
    } catch (error) {
      if (isModuleNotFound(error)) throw new CliError(`\`svc ${invocation.name}\` is not available in this build yet (its module is missing)`);
      throw error;
    }
    const opts = module.parse(invocation.args, withEnvFallbacks(invocation, runtime.env));
    if (runF) {
      runF(invocation.name, opts);
      return 0;
    }
    // The context's modules (config, secret stores, HTTP) load only for a command that
    // runs, so `--help` parses just the command tree.
    const { createContext } = await import('./context.js');
    const ctx = createContext(runtime, globals, version);
    disposeContext = () => ctx.dispose();
    const result = await module.run(opts, ctx, invocation.root);
    let exitCode = typeof result === 'number' ? result : 0;
    // Ctrl-C ends with 130 even when the command wound down cleanly, so a script can tell
    // an interrupted run from a finished one; a reader closing stdout is no interruption.
    if (interruptedBy(runtime.signal) && !module.stopsOnInterrupt) exitCode = EXIT.interrupted;
    return exitCode;
  } catch (error) {
    if (runtime.signal.aborted && (isAbortError(error) || !(error instanceof CliError))) return EXIT.interrupted;
    return printError(runtime, error, debug, json);
  } finally {
    // The context's HTTP pool: idle keep-alive sockets would hold the process open.
    await disposeContext?.();
  }
}
