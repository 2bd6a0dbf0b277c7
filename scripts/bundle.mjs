// The svc bundle, as `npm run build` makes it in dist/ and the spawned-process tests in a
// directory of their own. Two esbuild builds:
// - main.cjs: all of svc's own code (every command, lazily evaluated) with commander,
//   as one CommonJS file. Node 20's ESM loader costs about 1.5 ms a file at start-up (and
//   ~10 ms to start at all); esbuild's code splitting made ~23 files for `svc account`.
// - lib/*.js: the heavy libraries svc loads only when a command needs them
//   (prompts, spinner, tables, colours, undici), and emulator.js,
//   with the chunks they share. main.cjs imports them by path, on demand.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeNotices } from './notices.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** Libraries svc imports only with `await import()`, each built to dist/lib/<file>.js. */
const ON_DEMAND = {
  undici: 'undici',
  ora: 'ora',
  '@inquirer/password': 'inquirer-password',
  '@inquirer/confirm': 'inquirer-confirm',
  chalk: 'chalk',
  'cli-table3': 'cli-table3',
};

/**
 * On-demand libraries built as CommonJS (dist/lib/<file>.cjs): Emscripten output that needs
 * the CommonJS __dirname. jq-wasm is jq compiled to WebAssembly (inline, nothing
 * downloaded), 1.3 MB that only `svc api --jq` loads.
 */
const ON_DEMAND_CJS = {
  'jq-wasm': 'jq-wasm',
};

const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20.18',
  // The keychain module is a native addon with per-platform prebuilt packages:
  // it must stay a real dependency resolved at run time.
  external: ['@napi-rs/keyring'],
  define: { __SVC_VERSION__: JSON.stringify(pkg.version) },
  // CommonJS dependencies bundled into ESM still call require() for Node built-ins.
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
};

/** In main.cjs, `import('ora')` and the emulator's import become imports of their built files. */
const onDemandFiles = {
  name: 'on-demand-files',
  setup(build) {
    const names = [...Object.keys(ON_DEMAND), ...Object.keys(ON_DEMAND_CJS)].map((name) => name.replace(/[/@]/g, '\\$&'));
    build.onResolve({ filter: new RegExp(`^(${names.join('|')})$`) }, (args) =>
      args.kind !== 'dynamic-import'
        ? undefined
        : { path: ON_DEMAND[args.path] ? `./lib/${ON_DEMAND[args.path]}.js` : `./lib/${ON_DEMAND_CJS[args.path]}.cjs`, external: true },
    );
    build.onResolve({ filter: /\/emulator\/index\.js$/ }, (args) =>
      args.kind === 'dynamic-import' ? { path: './emulator.js', external: true } : undefined,
    );
  },
};

// commander requires node:child_process when it loads, for executable subcommands, which
// svc does not have; that module pulls in net, dgram and streams at every start. Its
// commander import gets a stand-in that loads the real module on first use.
const lazyChildProcessForCommander = {
  name: 'lazy-child-process-for-commander',
  setup(build) {
    build.onResolve({ filter: /^(node:)?child_process$/ }, (args) =>
      /[\\/]node_modules[\\/]commander[\\/]/.test(args.importer) ? { path: 'child_process', namespace: 'svc-lazy' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'svc-lazy' }, () => ({
      contents: "module.exports = new Proxy({}, { get: (_, name) => require('node:child_process')[name] });",
      loader: 'js',
    }));
  },
};

/** Writes the bundle into `outdir` (which should be empty). */
export async function bundle(outdir) {
  const libraries = await build({
    ...common,
    // emulator.js also lets plain scripts (the demo, benchmarks) start the emulator in-process.
    entryPoints: {
      emulator: 'src/emulator/index.ts',
      ...Object.fromEntries(Object.entries(ON_DEMAND).map(([name, file]) => [`lib/${file}`, name])),
    },
    outdir,
    splitting: true,
    chunkNames: 'lib/chunks/[name]-[hash]',
    metafile: true,
  });

  const commonJsLibraries = await build({
    ...common,
    format: 'cjs',
    banner: {},
    metafile: true,
    entryPoints: Object.fromEntries(Object.entries(ON_DEMAND_CJS).map(([name, file]) => [`lib/${file}`, name])),
    outdir,
    outExtension: { '.js': '.cjs' },
  });

  const start = await build({
    ...common,
    plugins: [lazyChildProcessForCommander, onDemandFiles],
    entryPoints: { main: 'src/main.ts' },
    outfile: join(outdir, 'main.cjs'),
    format: 'cjs',
    define: { ...common.define, 'import.meta.url': '__svcModuleUrl' },
    banner: { js: "const __svcModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
    metafile: true,
  });
  // What was inlined, with its licences: THIRD_PARTY_NOTICES.txt and an SBOM (scripts/notices.mjs).
  writeNotices(root, outdir, [libraries.metafile, commonJsLibraries.metafile, start.metafile]);
}
