// What the files made from the command declarations share (the build's dist/manifest.json,
// scripts/gen-man.mjs, scripts/gen-completions.mjs): the manifest, made from the sources, and
// writing (or, with --check, checking) the files they make.
import { build, transform } from 'esbuild';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { answerHelp } from './help.mjs';

answerHelp(import.meta.url);

export const root = new URL('..', import.meta.url).pathname;
const commandsDir = join(root, 'src/commands');

/**
 * Every module under src/commands/: src/kit/command-files.ts, the one listing, made JavaScript
 * by esbuild (this script runs before anything is built).
 */
async function commandFiles() {
  const source = readFileSync(join(root, 'src/kit/command-files.ts'), 'utf8');
  const { code } = await transform(source, { loader: 'ts', format: 'esm' });
  const listing = await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
  return listing.commandFiles(commandsDir);
}

/**
 * `{ manifest, …exports }`: the manifest of src/commands/, walked (src/kit/manifest.ts), and
 * what `contents` exports (TypeScript, paths from the repository's root), bundled and imported.
 */
export async function declaredManifest(contents = '') {
  const paths = await commandFiles();
  const entry = [
    "import { manifestOf } from './src/kit/manifest.ts';",
    ...paths.map((path, i) => `import * as m${i} from './src/commands/${path}.ts';`),
    `export const manifest = manifestOf({ ${paths.map((path, i) => `${JSON.stringify(path)}: m${i}`).join(', ')} });`,
    contents,
  ].join('\n');
  // Inside the repository, where the libraries left out of the bundle resolve.
  const cache = join(root, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const work = mkdtempSync(join(cache, 'svc-declarations-'));
  try {
    const file = join(work, 'entry.mjs');
    await build({
      stdin: { contents: entry, resolveDir: root, loader: 'ts' },
      bundle: true,
      format: 'esm',
      platform: 'node',
      outfile: file,
      // Never called while the tree is read: the native addon and the on-demand libraries stay out.
      external: ['@napi-rs/keyring', 'undici', 'ora', 'chalk', '@inquirer/*', 'jq-wasm', 'zod', '@modelcontextprotocol/*', 'hono', 'hono/*', '@hono/*'],
      // Bundled CommonJS (commander) still calls require() for Node built-ins.
      banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
      logLevel: 'warning',
    });
    return await import(pathToFileURL(file).href);
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
