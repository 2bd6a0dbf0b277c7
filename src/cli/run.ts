// Running the chosen leaf: its module is imported (in the bundle, its command's own file),
// its parse() shapes the typed values the parser read into its options, its run() acts with
// a context; every error becomes a message on stderr and the exit code of docs/design.md. The
// exit codes of a run are decided here and nowhere else.
import type { Context, GlobalOptions } from '../context.js';
import { CliError, EXIT, isAbortError } from '../errors.js';
import { kebab, type Leaf, type LoadedCommand, type RootSpec, type RunInProcess } from '../kit/define.js';
import { UsageError } from '../errors.js';
import { readValue } from '../validate/kinds.js';
import type { Commands } from './commands.js';
import type { Runtime } from './context.js';
import { printError } from './print-error.js';
import { phase } from './phase.js';

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
  /** The whole tree the leaf was found in: the manifest (src/kit/manifest.ts). */
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
  const { globals } = invocation;
  const { debug, json } = globals;
  let disposeContext: (() => Promise<void>) | undefined;
  // --jq: the filter is checked now, while the command's module loads (for a filter that is not
  // a plain path, jq loads and compiles its WebAssembly). The check is awaited below, before
  // anything is sent, so a usage error in the command's own flags is still said first.
  const { jq: jqFilter } = globals;
  const printsNoJson = invocation.leaf.decl.printsNoJson === true;
  const jqStarted =
    jqFilter === undefined || printsNoJson
      ? undefined
      : import('../io/jq-filter.js').then((jq) => {
          const checked = jq.checkFilter(jqFilter, runtime.env);
          checked.catch(() => {});
          return { checked };
        });
  jqStarted?.catch(() => {});
  try {
    const { module: path } = invocation.leaf;
    // (`svc help` has no module: readHelpWord turns it into --help before commander runs.)
    if (!path) throw new Error(`svc ${invocation.name} has no module to run`);
    if (printsNoJson && jqFilter !== undefined) throw new UsageError(`svc ${invocation.name} prints no JSON: --jq does not apply to it`);
    phase('parsed');
    // (jq's start is under way before the command's module is evaluated.)
    const jqCheck = await jqStarted;
    let module: LoadedCommand;
    try {
      module = await commands.load(path);
    } catch (error) {
      if (isModuleNotFound(error)) throw new CliError(`\`svc ${invocation.name}\` is not available in this build yet (its module is missing)`);
      throw error;
    }
    phase('module');
    const opts = module.parse(invocation.args, withEnvFallbacks(invocation, runtime.env));
    if (runF) {
      runF(invocation.name, opts);
      return EXIT.ok;
    }
    // --jq: the filter, checked before anything is sent, filters what the command prints. A
    // filter that fails stops the command (a stream would go on printing nothing).
    const jq = await jqCheck?.checked;
    const filterFailed = new AbortController();
    const filtered = jq?.output(runtime.stdout, runtime.stderr, (error) => filterFailed.abort(error));
    // The context's modules (config, secret stores, HTTP) are evaluated only for a command that runs.
    const { createContext } = await import('./context.js');
    const ctx = createContext(
      filtered ? { ...runtime, stdout: filtered, signal: AbortSignal.any([runtime.signal, filterFailed.signal]) } : runtime,
      globals,
      version,
    );
    disposeContext = () => ctx.dispose();
    phase('context');
    const runInProcess = nestedRunner(invocation, runtime, ctx, version, commands);
    // A run that returns succeeded; every failure is a typed error, printed below.
    const ran = await module.run(opts, ctx, invocation.root, runInProcess).then(
      () => ({ failed: false as const }),
      (error: unknown) => ({ failed: true as const, error }),
    );
    // What the command printed is filtered and written before it ends; its own failure comes
    // first, unless it failed because the filter stopped it.
    await filtered?.settled().catch((error: unknown) => {
      if ((!ran.failed || filterFailed.signal.aborted) && !runtime.signal.aborted) throw error;
    });
    if (ran.failed) throw ran.error;
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
 * How a command runs another (svc mcp's tools): the typed line, run in this process with this
 * run's base URL and stores, its output to the caller's writers, no prompt and no browser.
 */
function nestedRunner(invocation: Invocation, runtime: Runtime, ctx: Context, version: string, commands: Commands): RunInProcess {
  const { globals } = invocation;
  return (typed, output, signal) => {
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
    return runCommand(
      nested,
      {
        env: runtime.env,
        stdout: { write: output.stdout, isTTY: false },
        stderr: { write: output.stderr, isTTY: false },
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
      },
      version,
      commands,
    );
  };
}
