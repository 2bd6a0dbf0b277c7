// `--jq EXPR` on every command that prints JSON (src/shared/globals.ts): the real jq
// (jq-wasm: jq compiled to WebAssembly, nothing downloaded), loaded only when a filter needs it
// (src/io/jq-filter.ts imports this module then). The filter runs over each JSON text the
// command writes on stdout (a document, or a stream's lines as they come), as `jq -r` runs:
// its output, its words on stderr and its exit status are jq's, byte for byte.
// Both imports are static: in the CommonJS bundle they are `require`s, where an `await
// import()` would start Node's ESM loader, a cost of its own on every run with --jq.
import * as jqWasm from 'jq-wasm';
import { setFlagsFromString } from 'node:v8';
import { UsageError } from '../errors.js';

/** One run of jq's command line: what it wrote and how it exited. */
export interface JqRun {
  status: number;
  stdout: string;
  stderr: string;
}

interface JqInstance {
  /** `jq -M ARGS <stdin>` over `input` (scripts/bundle.mjs adds it to jq-wasm). */
  run(input: string, args: string[]): Promise<JqRun>;
}

let engine: Promise<JqInstance> | undefined;

/**
 * jq-wasm, once per process, started with the environment svc runs in (jq's `$ENV` and `env`).
 * Its WebAssembly is compiled by the first filter (checkJq, which src/cli/run.ts starts).
 */
function jqEngine(env: Readonly<Record<string, string | undefined>>): Promise<JqInstance> {
  if (engine) return engine;
  // V8's baseline WebAssembly code only: a filter runs once over a small answer, and the
  // optimizing tier, compiled beside it, is time a one-shot command never wins back (bench/).
  // It is asked for as a tiering budget no run spends: --liftoff-only, set after Node has
  // started, makes Node 24 and later slower than their default.
  setFlagsFromString('--wasm-tiering-budget=2000000000');
  const loaded = jqWasm as unknown as { default?: JqStarter } & Partial<JqStarter>;
  const start = loaded.default?.start ?? (loaded as JqStarter).start;
  engine = start(environmentBytes(env));
  return engine;
}

interface JqStarter {
  start(env: Record<string, string>): Promise<JqInstance>;
}

/** The environment as C sees it: each value's UTF-8 bytes, one char a byte (Emscripten copies chars as bytes). */
function environmentBytes(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const bytes: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined) bytes[Buffer.from(name).toString('latin1')] = Buffer.from(value).toString('latin1');
  }
  return bytes;
}

/** Runs `filter` over the JSON text (one or more JSON values) as `jq -r` runs. */
export async function runJq(json: string, filter: string, env: Readonly<Record<string, string | undefined>>): Promise<JqRun> {
  const jq = await jqEngine(env);
  return jq.run(json, ['-r', filter]);
}

/** jq's exit status for a filter that does not compile. */
const COMPILE_FAILED = 3;
const firstLine = (message: string) => message.split('\n')[0]!;

function notCompiled(message: string): UsageError {
  return new UsageError(
    `--jq: the filter does not compile: ${firstLine(message)
      .replace(/^jq: error: /, '')
      .replace(/:$/, '')}`,
    "see the jq manual for its syntax, e.g. --jq '.data[].id'",
  );
}

/**
 * The filter, checked before anything is sent: a filter that does not compile is a usage
 * error. It is compiled as the body of a function never called, so nothing of it runs (an
 * `input`, a `halt`, an endless `repeat`), and a body cannot close what encloses it as a
 * parenthesis could; the newlines keep a trailing `# comment` to itself.
 */
export async function checkJq(filter: string, env: Readonly<Record<string, string | undefined>>): Promise<void> {
  if (!filter.trim()) throw new UsageError('--jq needs a filter', "e.g. --jq '.data[].id'");
  const jq = await jqEngine(env);
  const checked = await jq.run('null', ['-r', `def svc_checked:\n${filter}\n;\nempty | svc_checked`]);
  if (checked.status !== COMPILE_FAILED) return;
  // Refused: jq's own words are those for the filter alone (the function's lines are not the
  // user's), and a filter that does not compile runs nothing.
  const alone = await jq.run('null', ['-r', filter]);
  if (alone.status === COMPILE_FAILED) throw notCompiled(alone.stderr);
}
