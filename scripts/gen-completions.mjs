// Writes completions/svc.{bash,zsh,fish,ps1} from the command declarations (src/commands/index.ts).
// test/core/completion.test.ts regenerates them and fails when the files drift.
//   node scripts/gen-completions.mjs          write the files
//   node scripts/gen-completions.mjs --check  exit 1 when a file differs
import { build } from 'esbuild';
import { mkdirSync, readFileSync, rmSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { declarationsOnly } from './bundle.mjs';

const root = new URL('..', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'svc-completions-'));
const entry = join(work, 'entry.mjs');
try {
  // The generator is TypeScript: bundle it with the command declarations into one module
  // (of each command module only its declaration, as on svc's start path).
  await build({
    plugins: [declarationsOnly],
    stdin: {
      contents: "export { completionScript, SHELLS, COMPLETION_FILES } from './src/cli/completion.ts'; export { ROOT } from './src/commands/index.ts';",
      resolveDir: root,
      loader: 'ts',
    },
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
  const { completionScript, SHELLS, COMPLETION_FILES, ROOT } = await import(pathToFileURL(entry).href);
  const check = process.argv.includes('--check');
  const dir = join(root, 'completions');
  mkdirSync(dir, { recursive: true });
  let stale = 0;
  for (const shell of SHELLS) {
    const file = join(dir, COMPLETION_FILES[shell]);
    const script = completionScript(shell, ROOT);
    let current = null;
    try {
      current = readFileSync(file, 'utf8');
    } catch {}
    if (current === script) continue;
    if (check) {
      process.stderr.write(`${file} is out of date: run npm run completions\n`);
      stale++;
    } else {
      writeFileSync(file, script);
      process.stderr.write(`wrote ${file}\n`);
    }
  }
  process.exitCode = stale ? 1 : 0;
} finally {
  rmSync(work, { recursive: true, force: true });
}
