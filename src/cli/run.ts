// Running the chosen leaf: its module is imported (in the bundle, its command's own file),
// its parse() shapes the typed values the parser read into its options, its run() acts with
// a context and returns its result, which is printed here (src/cli/print-result.ts); every
// error becomes a message on stderr and the exit code of docs/design.md. The
// exit codes of a run are decided here and nowhere else.
import type { Context, GlobalOptions } from '../context.js';
import { CliError, EXIT, exitCodeOf, isAbortError } from '../errors.js';
import { kebab, type InProcessOutcome, type InProcessRun, type Leaf, type LoadedCommand, type RootSpec, type RunInProcess } from '../kit/define.js';
import { UsageError } from '../errors.js';
import { readValue } from '../validate/kinds.js';
import type { Commands } from './commands.js';
import type { Runtime } from './context.js';
import { printError, reportOfError } from './print-error.js';
import { phase } from './phase.js';
import type { CheckedFilter, FilteredOutput } from '../io/jq-filter.js';

export { printError };

/** One command line, parsed (src/cli/tree.ts): the leaf to run and its typed input. */
export interface Invocation {
  /** `calls list`, `mode`, … */
  name: string;
  leaf: Leaf;
  /** Positional arguments, each read by its declaration, variadic ones flattened. */
  args: unknown[];
  /** The command's own flags (camelCase, as declared), each read by its declaration. */
  flags: Record<string, unknown>;
  /** The global flags (src/shared/globals.ts). */
  globals: GlobalOptions;
  /** The whole tree the leaf was found in: the manifest (src/commands/manifest.ts). */
  root: RootSpec;
}

/**
 * Instead of running the command: receives what its run() would get (cli/cli's `runF`).
 * Tests check each command's flag rules with it, without a context or a server.
 */
export type RunF = (name: string, opts: unknown) => void;

function isModuleNotFound(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e?.code === 'ERR_MODULE_NOT_FOUND' || /Failed to load url|Cannot find module/.test(e?.message ?? '');
}

/** Aborted by Ctrl-C, as opposed to by a reader that closed stdout (reason code EPIPE). */
function interruptedBy(signal: AbortSignal): boolean {
  return signal.aborted && (signal.reason as { code?: unknown } | undefined)?.code !== 'EPIPE';
}

/** A declared `env` fallback fills a flag the command line left out, read as the flag's own value would be. */
function withEnvFallbacks(invocation: Invocation, env: Runtime['env']): Record<string, unknown> {
  const flags = { ...invocation.flags };
  for (const [key, spec] of Object.entries(invocation.leaf.decl.flags ?? {})) {
    const fromEnv = spec.env ? env[spec.env] : undefined;
    if (flags[key] === undefined && fromEnv !== undefined && fromEnv !== '') flags[key] = readValue(spec, fromEnv, `${spec.env} (--${kebab(key)})`);
  }
  return flags;
}

/** Runs one leaf; returns its exit code. */
export async function runCommand(invocation: Invocation, runtime: Runtime, version: string, commands: Commands, runF?: RunF): Promise<number> {
  const { debug, json } = invocation.globals;
  let disposeContext: (() => Promise<void>) | undefined;
  const jqStarted = startJq(invocation, runtime.env);
  try {
    const path = modulePath(invocation);
    phase('parsed');
    // (jq's start is under way before the command's module is evaluated.)
    const jqCheck = await jqStarted;
    const module = await loadModule(commands, invocation.name, path);
    phase('module');
    const opts = module.parse(invocation.args, withEnvFallbacks(invocation, runtime.env));
    if (runF) {
      runF(invocation.name, opts);
      return EXIT.ok;
    }
    // --jq: the filter, checked before anything is sent, filters what the command prints. A
    // filter that fails stops the command (a stream would go on printing nothing).
    const filter = filteredRuntime(runtime, await jqCheck?.checked);
    // The context's modules (config, secret stores, HTTP) are evaluated only for a command that runs.
    const { createContext } = await import('./context.js');
    const ctx = createContext(filter.runtime, invocation.globals, version);
    disposeContext = () => ctx.dispose();
    phase('context');
    await runFiltered(module, opts, ctx, nestedRunner(invocation, runtime, ctx, version, commands), filter, invocation.root, runtime.signal);
    // Ctrl-C ends with 130 even when the command wound down cleanly, so a script can tell
    // an interrupted run from a finished one; a reader closing stdout is no interruption.
    return interruptedBy(runtime.signal) && !module.stopsOnInterrupt ? EXIT.interrupted : EXIT.ok;
  } catch (error) {
    if (runtime.signal.aborted && (isAbortError(error) || !(error instanceof CliError))) return EXIT.interrupted;
    return printError(runtime, error, debug, json);
  } finally {
    // The context's HTTP pool: idle keep-alive sockets would hold the process open.
    await disposeContext?.();
  }
}

/**
 * --jq: the filter is checked now, while the command's module loads (for a filter that is not
 * a plain path, jq loads and compiles its WebAssembly). The check is awaited before anything is
 * sent, so a usage error in the command's own flags is still said first.
 */
function startJq(invocation: Invocation, env: Runtime['env']): Promise<{ checked: Promise<CheckedFilter> }> | undefined {
  const { jq: jqFilter } = invocation.globals;
  if (jqFilter === undefined || invocation.leaf.decl.printsNoJson === true) return undefined;
  const started = import('../io/jq-filter.js').then((jq) => {
    const checked = jq.checkFilter(jqFilter, env);
    checked.catch(() => {});
    return { checked };
  });
  started.catch(() => {});
  return started;
}

/** The leaf's module path, or the usage error of a line that cannot run. */
function modulePath(invocation: Invocation): string {
  const { module: path } = invocation.leaf;
  // (`svc help` has no module: readHelpWord turns it into --help before commander runs.)
  if (!path) throw new Error(`svc ${invocation.name} has no module to run`);
  if (invocation.leaf.decl.printsNoJson === true && invocation.globals.jq !== undefined)
    throw new UsageError(`svc ${invocation.name} prints no JSON: --jq does not apply to it`);
  return path;
}

async function loadModule(commands: Commands, name: string, path: string): Promise<LoadedCommand> {
  try {
    return await commands.load(path);
  } catch (error) {
    if (isModuleNotFound(error)) throw new CliError(`\`svc ${name}\` is not available in this build yet (its module is missing)`);
    throw error;
  }
}

/** The runtime the command runs with: stdout through the --jq filter (when there is one), whose failure stops the command. */
interface FilteredRuntime {
  runtime: Runtime;
  filtered: FilteredOutput | undefined;
  filterFailed: AbortController;
}

function filteredRuntime(runtime: Runtime, jq: CheckedFilter | undefined): FilteredRuntime {
  const filterFailed = new AbortController();
  const filtered = jq?.output(runtime.stdout, runtime.stderr, (error) => filterFailed.abort(error));
  return {
    runtime: filtered ? { ...runtime, stdout: filtered, signal: AbortSignal.any([runtime.signal, filterFailed.signal]) } : runtime,
    filtered,
    filterFailed,
  };
}

/** run(), its result printed (src/cli/print-result.ts), filtered and written; its failure thrown (a typed error, printed by the runner). */
async function runFiltered(
  module: LoadedCommand,
  opts: unknown,
  ctx: Context,
  runInProcess: RunInProcess,
  { filtered, filterFailed }: FilteredRuntime,
  root: RootSpec,
  signal: AbortSignal,
): Promise<void> {
  // A run that returns succeeded; every failure is a typed error, printed by the runner.
  const ran = await module
    .run(opts, ctx, root, runInProcess)
    .then(async (result) => {
      if (!result) return;
      const { printResult } = await import('./print-result.js');
      await printResult(ctx, result);
      // A result that is a failure all the same (a check failed): printed, then the run's error.
      if (result.failure) throw result.failure;
    })
    .then(
      () => ({ failed: false as const }),
      (error: unknown) => ({ failed: true as const, error }),
    );
  // What the command printed is filtered and written before it ends; its own failure comes
  // first, unless it failed because the filter stopped it.
  await filtered?.settled().catch((error: unknown) => {
    if ((!ran.failed || filterFailed.signal.aborted) && !signal.aborted) throw error;
  });
  if (ran.failed) throw ran.error;
}

/**
 * How a command runs another (svc mcp's tools): the typed line, run in this process with this
 * run's base URL and stores, no prompt and no browser; what its run() returned is the caller's,
 * printed by nobody.
 */
function nestedRunner(invocation: Invocation, runtime: Runtime, ctx: Context, version: string, commands: Commands): RunInProcess {
  const { globals } = invocation;
  return (typed, signal) => {
    const nested: Invocation = {
      name: typed.name,
      leaf: typed.leaf,
      args: typed.args,
      flags: typed.flags,
      // This run's base URL; the profile, mode and confirmation its caller fixed.
      // (The caller's --jq filters the caller's output, not a nested command's.)
      globals: {
        ...globals,
        jq: undefined,
        json: true,
        yes: typed.yes,
        mode: typed.mode,
        ...(typed.profile !== undefined ? { profile: typed.profile } : {}),
      },
      root: invocation.root,
    };
    return runNested(nested, nestedRuntime(runtime, ctx, typed, signal), version, commands);
  };
}

/** A command run by another: its result, or the report of its error; nothing printed. */
async function runNested(invocation: Invocation, runtime: Runtime, version: string, commands: Commands): Promise<InProcessOutcome> {
  let disposeContext: (() => Promise<void>) | undefined;
  try {
    const module = await loadModule(commands, invocation.name, modulePath(invocation));
    const opts = module.parse(invocation.args, withEnvFallbacks(invocation, runtime.env));
    const { createContext } = await import('./context.js');
    const ctx = createContext(runtime, invocation.globals, version);
    disposeContext = () => ctx.dispose();
    const result = await module.run(opts, ctx, invocation.root, nestedRunner(invocation, runtime, ctx, version, commands));
    if (result?.failure) throw result.failure;
    return { exitCode: EXIT.ok, result: result ?? undefined };
  } catch (error) {
    const stopped = runtime.signal.aborted && (isAbortError(error) || !(error instanceof CliError));
    const exitCode = stopped ? EXIT.interrupted : exitCodeOf(error);
    const report = reportOfError(error);
    return { exitCode, error: stopped ? { ...report, message: 'stopped before it ended', hint: null, exit_code: exitCode } : report };
  } finally {
    await disposeContext?.();
  }
}

/** A nested command's runtime: this run's clock, stores and HTTP pool; no output (its result is returned), stdin, prompt or browser. */
function nestedRuntime(runtime: Runtime, ctx: Context, typed: InProcessRun, signal: AbortSignal): Runtime {
  const nowhere = () => {};
  return {
    env: runtime.env,
    stdout: { write: nowhere, isTTY: false },
    stderr: { write: nowhere, isTTY: false },
    // Nothing to read, nobody to ask, no browser: a command that needs one says which input is missing.
    stdin: { isTTY: false, readAll: async () => '', lines: async function* () {} },
    clock: runtime.clock,
    random: runtime.random,
    browser: {
      open: async () => {
        throw new UsageError('no browser can be opened for a command run by another');
      },
    },
    signal,
    ...(typed.idempotencyKey !== undefined ? { idempotencyKey: typed.idempotencyKey } : {}),
    ...(typed.knownPrices !== undefined ? { knownPrices: typed.knownPrices } : {}),
    secrets: ctx.secrets,
    config: ctx.config,
    http: ctx.http,
  };
}
