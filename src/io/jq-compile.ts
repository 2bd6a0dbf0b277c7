// jq's WebAssembly (dist/lib/jq.wasm), compiled once a process on V8's own threads. For a --jq
// filter that jq must run (not a plain path, src/io/jq-path.ts), bin/svc.js starts the compile
// at its first line, so that it runs beside the bundle's load and the command's start instead
// of after them; jq-wasm's start (patched in scripts/bundle.mjs) takes the compiled module.
// Built alone to dist/lib/jq-compile.cjs, where the launcher and jq-wasm both require it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { plainPath } from './jq-path.js';

// Node's WebAssembly global (tsconfig leaves out the DOM lib, where its value is declared).
const { WebAssembly: wasm } = globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WebAssembly.Module> } };

let compiled: Promise<WebAssembly.Module> | undefined;

/** The compiled module, the compile begun on the first call. */
export function compiledJq(): Promise<WebAssembly.Module> {
  if (compiled) return compiled;
  // V8's baseline WebAssembly code only: a filter runs once over a small answer, and the
  // optimizing tier, compiled beside it, is time a one-shot command never wins back (bench/).
  // It is asked for as a tiering budget no run spends: --liftoff-only, set after Node has
  // started, makes Node 24 and later slower than their default.
  setFlagsFromString('--wasm-tiering-budget=2000000000');
  // Every function compiled now, on V8's threads while the bundle loads, rather than each on
  // the main thread when jq's first run calls it; V8's default (lazy) is put back at once.
  setFlagsFromString('--no-wasm-lazy-compilation');
  // (dist/lib/, where this file is built.)
  const compiling = wasm.compile(readFileSync(join(__dirname, 'jq.wasm')));
  setFlagsFromString('--wasm-lazy-compilation');
  // A compile on V8's threads keeps nothing of Node's event loop open: a process waiting for it
  // alone would end as if nothing were left to do.
  const holdOpen = setInterval(() => {}, 2 ** 30);
  compiling.then(
    () => clearInterval(holdOpen),
    () => clearInterval(holdOpen),
  );
  compiled = compiling;
  return compiling;
}

/** bin/svc.js: begins the compile if the command line has a --jq filter that jq must run. */
export function compileJqFor(argv: readonly string[]): void {
  const at = argv.findIndex((word) => word === '--jq' || word.startsWith('--jq='));
  const filter = at < 0 ? undefined : argv[at]!.startsWith('--jq=') ? argv[at]!.slice('--jq='.length) : argv[at + 1];
  // (A compile that fails is said where jq starts, which gets the same answer.)
  if (filter !== undefined && !plainPath(filter)) compiledJq().catch(() => {});
}
