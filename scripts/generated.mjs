// What the generators of files from the command declarations share (scripts/gen-man.mjs,
// scripts/gen-completions.mjs): the declarations as a module, and writing (or, with --check,
// checking) the files they make.
import { build } from 'esbuild';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { declarationsOnly } from './bundle.mjs';

export const root = new URL('..', import.meta.url).pathname;

/**
 * Imports `contents` (TypeScript exporting from src/, paths from the repository's root), bundled
 * into one module with of each command module only its declaration, as on svc's start path.
 */
export async function importDeclarations(contents) {
  const work = mkdtempSync(join(tmpdir(), 'svc-declarations-'));
  try {
    const entry = join(work, 'entry.mjs');
    await build({
      plugins: [declarationsOnly],
      stdin: { contents, resolveDir: root, loader: 'ts' },
      bundle: true,
      format: 'esm',
      platform: 'node',
      outfile: entry,
      // Should the tree reach it through an import, never called: the native addon stays out.
      external: ['@napi-rs/keyring'],
      // Bundled CommonJS (commander) still calls require() for Node built-ins.
      banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
      logLevel: 'warning',
    });
    return await import(pathToFileURL(entry).href);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Writes each `{ file, text }` whose file differs; with `check`, writes nothing and says on
 * stderr which differ and to run `fix`. Answers how many differed.
 */
export function writeFiles(files, { check, fix }) {
  let stale = 0;
  for (const { file, text } of files) {
    let current = null;
    try {
      current = readFileSync(file, 'utf8');
    } catch {}
    if (current === text) continue;
    if (check) {
      process.stderr.write(`${file} is ${current === null ? 'missing' : 'out of date'}: run ${fix}\n`);
      stale++;
    } else {
      writeFileSync(file, text);
      process.stderr.write(`wrote ${file}\n`);
    }
  }
  return stale;
}
