// Running the chosen leaf: its module is imported (in the bundle, its command's own file),
// its parse() validates, its run() acts with a context; every error becomes a message on
// stderr and the exit code of design.md.
import type { GlobalOptions } from '../context.js';
import { CliError, EXIT, isAbortError } from '../errors.js';
import type { LoadedCommand } from '../commands/define.js';
import type { Invocation, RawGlobals } from '../commands/define.js';
import { GLOBAL_FLAGS } from '../shared/globals.js';
import { readKind } from '../validate/kinds.js';
import { kebab } from '../commands/define.js';
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

import { printError } from './print-error.js';

export { printError };

/** Aborted by Ctrl-C, as opposed to by a reader that closed stdout (reason code EPIPE). */
function interruptedBy(signal: AbortSignal): boolean {
  return signal.aborted && (signal.reason as { code?: unknown } | undefined)?.code !== 'EPIPE';
}

/** `--area-code` or `ID`: the word a refused value is named by. */
const flagWord = (key: string) => `--${kebab(key)}`;

/**
 * The flags as parse() receives them: a declared `env` fallback fills a flag the command line
 * left out, and each flag with a `kind` is read into its typed value (src/validate/kinds.ts),
 * here and nowhere else.
 */
function typedFlags(invocation: Invocation, env: Runtime['env']): Record<string, unknown> {
  const flags = { ...invocation.flags };
  for (const [key, spec] of Object.entries(invocation.leaf.decl.flags ?? {})) {
    const fromEnv = spec.env ? env[spec.env] : undefined;
    if (flags[key] === undefined && fromEnv !== undefined && fromEnv !== '') flags[key] = fromEnv;
    const given = flags[key];
    if (!spec.kind || given === undefined) continue;
    const kind = spec.kind;
    flags[key] = Array.isArray(given) ? given.map((one) => readKind(kind, String(one), flagWord(key))) : readKind(kind, String(given), flagWord(key));
  }
  return flags;
}

/** The positional words, each with a `kind` read into its typed value (a variadic argument's every word). */
function typedArgs(invocation: Invocation): unknown[] {
  const specs = invocation.leaf.decl.args ?? [];
  return invocation.args.map((word, index) => {
    const spec = specs[Math.min(index, specs.length - 1)];
    return spec?.kind ? readKind(spec.kind, word, spec.name.toUpperCase()) : word;
  });
}

/** The global flags as the context holds them (GlobalOptions): each switch a boolean, `--test`/`--live` as the mode. */
function globalOptions(raw: RawGlobals): GlobalOptions {
  const options: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(GLOBAL_FLAGS)) {
    const given = raw[key as keyof RawGlobals];
    if (key === 'test' || key === 'live') continue;
    if (!('value' in spec)) options[key] = given === undefined ? 'negate' in spec : Boolean(given);
    else if (given) options[key] = given;
  }
  const mode = raw.test ? 'test' : raw.live ? 'live' : undefined;
  return { ...options, ...(mode ? { mode } : {}) } as GlobalOptions;
}

/** Runs one leaf; returns its exit code. */
export async function runCommand(invocation: Invocation, runtime: Runtime, version: string, runF?: RunF): Promise<number> {
  const globals = globalOptions(invocation.globals);
  const { debug, json } = globals;
  let disposeContext: (() => Promise<void>) | undefined;
  try {
    let module: LoadedCommand;
    try {
      module = await invocation.leaf.load();
    } catch (error) {
      if (isModuleNotFound(error)) throw new CliError(`\`svc ${invocation.name}\` is not available in this build yet (its module is missing)`);
      throw error;
    }
    const opts = module.parse(typedArgs(invocation), typedFlags(invocation, runtime.env));
    if (runF) {
      runF(invocation.name, opts);
      return 0;
    }
    // The context's modules (config, secret stores, HTTP) are evaluated only for a command that runs.
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
