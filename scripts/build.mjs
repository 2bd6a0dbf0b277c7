// Bundles the CLI into dist/ with esbuild. Code splitting keeps each command
// (and each heavy library) in its own chunk, so `svc --version` parses only main.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

await build({
  // emulator.js lets plain scripts (the demo, benchmarks) start the emulator in-process.
  entryPoints: { main: 'src/main.ts', emulator: 'src/emulator/index.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  // The keychain module is a native addon with per-platform prebuilt packages:
  // it must stay a real dependency resolved at run time.
  external: ['@napi-rs/keyring'],
  define: { __SVC_VERSION__: JSON.stringify(pkg.version) },
  // CommonJS dependencies bundled into ESM still call require() for Node built-ins.
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
  chunkNames: 'chunks/[name]-[hash]',
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
});
