// What the files made from the command declarations share (the build's dist/manifest.json,
// scripts/gen-man.mjs, scripts/gen-completions.mjs): the manifest, made from the sources, and
// writing (or, with --check, checking) the files they make.
import { build } from 'esbuild';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { answerHelp } from './help.mjs';

answerHelp(import.meta.url);

export const root = new URL('..', import.meta.url).pathname;
const commandsDir = join(root, 'src/commands');

/** The modules under src/commands/ that declare a command, by path without extension (as src/commands/declared.ts finds them). */
function commandModulePaths() {
  return readdirSync(commandsDir, { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.ts') && /^export const command\b/m.test(readFileSync(join(commandsDir, file), 'utf8')))
    .map((file) => file.replace(/\\/g, '/').replace(/\.ts$/, ''))
    .sort();
}

/**
 * `{ manifest, …exports }`: the manifest of the declarations (src/commands/manifest.ts), and
 * what `contents` exports (TypeScript, paths from the repository's root), bundled and imported.
 */
export async function declaredManifest(contents = '') {
  const paths = commandModulePaths();
  const entry = [
    "import { ROOT } from './src/commands/index.ts';",
    "import { manifestOf } from './src/commands/manifest.ts';",
    ...paths.map((path, i) => `import * as m${i} from './src/commands/${path}.ts';`),
    `export const manifest = manifestOf(ROOT, { ${paths.map((path, i) => `${JSON.stringify(path)}: m${i}`).join(', ')} });`,
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
