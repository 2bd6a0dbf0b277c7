// `--jq EXPR` on every command that prints JSON (src/shared/globals.ts): the real jq
// (jq-wasm: jq compiled to WebAssembly, nothing downloaded), loaded only when a filter needs it
// (src/io/jq-filter.ts imports this module then). The filter runs over each JSON text the
// command writes on stdout (a document, or a stream's lines as they come); strings print raw,
// as `gh --jq` and `jq -r` print them.
// Both imports are static: in the CommonJS bundle they are `require`s, where an `await
// import()` would start Node's ESM loader, a cost of its own on every run with --jq.
import * as jqWasm from 'jq-wasm';
import { setFlagsFromString } from 'node:v8';
import { CliError, UsageError } from '../errors.js';

interface JqModule {
  raw(data: string | object, filter: string, flags?: string[]): Promise<string>;
}

let engine: JqModule | undefined;

/** jq-wasm, once per process: its WebAssembly is compiled by the first filter (checkJq, which src/cli/run.ts starts). */
function jqEngine(): JqModule {
  if (engine) return engine;
  // V8's baseline WebAssembly code only: a filter runs once over a small answer, and the
  // optimizing tier, compiled beside it, is time a one-shot command never wins back (bench/).
  // It is asked for as a tiering budget no run spends: --liftoff-only, set after Node has
  // started, makes Node 24 and later slower than their default.
  setFlagsFromString('--wasm-tiering-budget=2000000000');
  const loaded = jqWasm as unknown as { default?: JqModule } & Partial<JqModule>;
  engine = loaded.default?.raw ? loaded.default : (loaded as JqModule);
  return engine;
}

const messageOf = (error: unknown) => (error as Error).message.replace(/^Failed to execute raw query: /, '').trim();
const firstLine = (message: string) => message.split('\n')[0]!;

/** Runs `filter` over the JSON text (one or more JSON values): jq's output as jq-wasm gives it (src/io/jq-filter.ts ends it). */
export async function applyJq(json: string, filter: string): Promise<string> {
  const jq = jqEngine();
  try {
    return await jq.raw(json, filter, ['-r']);
  } catch (error) {
    const message = messageOf(error);
    // A filter that does not compile is the user's input; one that fails on this answer is a failure of the run.
    if (/compile error/.test(message)) throw notCompiled(firstLine(message));
    throw new CliError(`--jq: ${firstLine(message)}`);
  }
}

function notCompiled(message: string): UsageError {
  return new UsageError(
    `--jq: the filter does not compile: ${message.replace(/^jq: error: /, '').replace(/:$/, '')}`,
    "see the jq manual for its syntax, e.g. --jq '.data[].id'",
  );
}

/**
 * The filter, checked before anything is sent: a filter that does not compile is a usage
 * error. It is compiled as the body of a function never called, so nothing of it runs (an
 * `input`, a `halt`, an endless `repeat`), and a body cannot close what encloses it as a
 * parenthesis could; the newlines keep a trailing `# comment` to itself.
 */
export async function checkJq(filter: string): Promise<void> {
  if (!filter.trim()) throw new UsageError('--jq needs a filter', "e.g. --jq '.data[].id'");
  const jq = jqEngine();
  try {
    await jq.raw('null', `def svc_checked:\n${filter}\n;\nempty | svc_checked`, ['-r']);
  } catch (error) {
    if (!/compile error/.test(messageOf(error))) return;
    // Refused: jq's own words are those for the filter alone (the function's lines are not the
    // user's), and a filter that does not compile runs nothing.
    const alone = await jq.raw('null', filter, ['-r']).then(
      () => messageOf(error),
      (refused: unknown) => messageOf(refused),
    );
    if (/compile error/.test(alone)) throw notCompiled(firstLine(alone));
  }
}
