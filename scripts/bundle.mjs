// The svc bundle, as `npm run build` makes it in dist/ and the spawned-process tests in a
// directory of their own. esbuild builds:
// - main.cjs: the start path as one CommonJS file: main, the command tree built from the
//   commands' declarations, commander. Node 20's ESM loader costs about 1.5 ms a file at
//   start-up (and ~10 ms to start at all); esbuild's code splitting made ~23 files for
//   `svc account`.
// - run.cjs: what every command runs on (the runner, context, HTTP, config, credentials,
//   output), and cmd-<name>.cjs: one top-level command's own code (cmd-calls.cjs holds
//   every `svc calls …`). main.cjs loads them only when a command runs, so `--help`,
//   `--version` and usage errors compile neither, and a command compiles only its own.
// - start-<command>.cjs: one top-level command with everything it runs on inlined, the file
//   bin/svc.js loads for a command line that names it (see the build of them below).
// - lib/*.js: the heavy libraries svc loads only when a command needs them
//   (prompts, spinner, tables, colours, undici), and emulator.js,
//   with the chunks they share. main.cjs imports them by path, on demand.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeNotices } from './notices.mjs';
import { writeStaticAnswers } from './static-answers.mjs';

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
    build.onResolve({ filter: /\/emulator\/index\.js$/ }, (args) => (args.kind === 'dynamic-import' ? { path: './emulator.js', external: true } : undefined));
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

/**
 * The command tree's indexes (src/commands/**\/index.ts) import each command module for its
 * `command` declaration only; the module's code is what `leaf(…, () => import(…))` loads
 * when the command runs. So for those static imports the start path gets a copy of the
 * module holding just the declaration and the imports it uses: start-up evaluates no
 * command code and none of the modules commands use.
 */
export const declarationsOnly = {
  name: 'declarations-only',
  setup(build) {
    build.onResolve({ filter: /^\./ }, (args) => {
      if (args.kind !== 'import-statement' || !/[\\/]src[\\/]commands[\\/](.+[\\/])?index\.ts$/.test(args.importer)) return undefined;
      const path = join(dirname(args.importer), args.path.replace(/\.js$/, '.ts'));
      if (!/[\\/]src[\\/]commands[\\/]/.test(path) || /[\\/]index\.ts$/.test(path)) return undefined;
      // A path relative to the project, as esbuild names files in the bundle.
      // (Data only: a start file drops the declarations of the commands it does not hold.)
      return { path: relative(root, path), namespace: 'svc-declaration', pluginData: { file: path }, sideEffects: false };
    });
    build.onLoad({ filter: /.*/, namespace: 'svc-declaration' }, async (args) => ({
      contents: await declarationSource(args.pluginData.file),
      loader: 'ts',
      resolveDir: dirname(args.pluginData.file),
    }));
  },
};

let typescript;

/** `export const command = …` of a command module, with the imports it uses. */
async function declarationSource(file) {
  typescript ??= (await import('typescript')).default;
  const ts = typescript;
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const declaration = source.statements.find(
    (s) =>
      ts.isVariableStatement(s) &&
      s.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) &&
      s.declarationList.declarations.some((d) => d.name.getText(source) === 'command'),
  );
  if (!declaration) throw new Error(`${file}: a command module exports \`const command = defineCommand({…})\``);
  const used = new Set();
  (function walk(node) {
    if (ts.isIdentifier(node)) used.add(node.text);
    ts.forEachChild(node, walk);
  })(declaration);
  const imports = [];
  for (const statement of source.statements) {
    const clause = ts.isImportDeclaration(statement) ? statement.importClause : undefined;
    if (!clause || clause.isTypeOnly) continue;
    const from = statement.moduleSpecifier.getText(source);
    if (clause.name && used.has(clause.name.text)) imports.push(`import ${clause.name.text} from ${from};`);
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings) && used.has(bindings.name.text)) imports.push(`import * as ${bindings.name.text} from ${from};`);
    if (bindings && ts.isNamedImports(bindings)) {
      const names = bindings.elements.filter((e) => !e.isTypeOnly && used.has(e.name.text)).map((e) => e.getText(source));
      if (names.length) imports.push(`import { ${names.join(', ')} } from ${from};`);
    }
  }
  return `${imports.join('\n')}\n${declaration.getText(source)}\n`;
}

const posix = (path) => path.split('\\').join('/');

/**
 * main.cjs holds the start path only. src/cli/run.ts and every module commands share
 * (context, HTTP, config, credentials, output) are in run.cjs; each top-level command's
 * own code is in cmd-<name>.cjs (cmd-calls.cjs: every `svc calls …`), so a command
 * compiles its own code and the core, not every command's. In main.cjs, run.ts and each
 * module a leaf loads (`() => import('./list.js')`) come from those files, and so does what
 * process.ts loads on demand (prompts, spinners: one copy of errors.ts's classes for the
 * runner to recognise). `commandModules` collects the modules a leaf loads; `shared`, the
 * modules run.cjs serves.
 */
function fromRunFiles(commandModules, shared) {
  return {
    name: 'from-run-files',
    setup(build) {
      build.onResolve({ filter: /^\.\/(run|cmd-[\w-]+)\.cjs$/ }, (args) => ({ path: args.path, external: true }));
      build.onResolve({ filter: /^\./ }, (args) => {
        if (args.kind !== 'dynamic-import') return undefined;
        const file = posix(relative(root, join(dirname(args.importer), args.path.replace(/\.js$/, '.ts'))));
        if (file === 'src/cli/run.ts') return { path: 'run', namespace: 'svc-run' };
        // What the process edge loads on demand (prompts, spinners) comes from run.cjs too:
        // one copy of each module, so their errors are the classes the runner recognises.
        if (/[\\/]src[\\/]cli[\\/]process\.ts$/.test(args.importer) && file !== 'src/cli/browser.ts') {
          shared.add(file);
          return { path: file, namespace: 'svc-shared' };
        }
        if (/^src\/commands\/(.+\/)?index\.ts$/.test(posix(relative(root, args.importer)))) {
          commandModules.add(file);
          return { path: file, namespace: 'svc-run' };
        }
        return undefined;
      });
      build.onLoad({ filter: /.*/, namespace: 'svc-run' }, (args) => ({
        contents:
          args.path === 'run'
            ? "module.exports = require('./run.cjs');"
            : `module.exports = require('./cmd-${chunkOf(args.path)}.cjs').commands[${JSON.stringify(args.path)}]();`,
        loader: 'js',
      }));
      build.onLoad({ filter: /.*/, namespace: 'svc-shared' }, (args) => ({
        contents: `module.exports = require('./run.cjs').modules[${JSON.stringify(args.path)}]();`,
        loader: 'js',
      }));
    },
  };
}

/** The file a command module goes in: its top-level command (`src/commands/calls/list.ts` → calls). */
function chunkOf(file) {
  return file.slice('src/commands/'.length).split('/')[0].replace(/\.ts$/, '').replace(/^_+/, '');
}

/** In a command chunk, every module outside src/commands/ is run.cjs's (one instance of each). */
function sharedFromRunFile(shared) {
  return {
    name: 'shared-from-run-file',
    setup(build) {
      build.onResolve({ filter: /^\.\/run\.cjs$/ }, () => ({ path: './run.cjs', external: true }));
      build.onResolve({ filter: /^\./ }, (args) => {
        if (!args.importer || args.namespace === 'svc-shared') return undefined;
        // The command tree's own loaders (completion reads the tree's declarations only).
        if (args.kind === 'dynamic-import' && /[\\/]src[\\/]commands[\\/](.+[\\/])?index\.ts$/.test(args.importer)) return { path: args.path, external: true };
        const file = posix(relative(root, join(args.resolveDir, args.path.replace(/\.js$/, '.ts'))));
        if (!file.startsWith('src/') || file.startsWith('src/commands/')) return undefined;
        shared.add(file);
        return { path: file, namespace: 'svc-shared' };
      });
      build.onLoad({ filter: /.*/, namespace: 'svc-shared' }, (args) => ({
        contents: `module.exports = require('./run.cjs').modules[${JSON.stringify(args.path)}]();`,
        loader: 'js',
      }));
    },
  };
}

/** A table of lazily evaluated modules: esbuild keeps a required ES module lazy. */
function lazyTable(files) {
  return `{\n${[...files]
    .sort()
    .map((file) => `  ${JSON.stringify(file)}: () => require(${JSON.stringify(`./${file}`)}),`)
    .join('\n')}\n}`;
}

/**
 * Top-level commands with no start file: `completion` describes the whole tree, `help` is
 * commander's, and the launcher never names `__complete` (the shells' completion hook).
 */
const NO_START_FILE = new Set(['completion', 'help', '__complete']);

/**
 * The top-level commands: what src/commands/index.ts exports under a lower-case name, each
 * command under its own (test/core/fast-parse.test.ts checks the names).
 */
async function topLevelCommands() {
  typescript ??= (await import('typescript')).default;
  const ts = typescript;
  const file = join(root, 'src/commands/index.ts');
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const names = [];
  for (const statement of source.statements) {
    const exported = statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
    if (exported && ts.isVariableStatement(statement)) names.push(...statement.declarationList.declarations.map((d) => d.name.getText(source)));
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause))
      names.push(...statement.exportClause.elements.map((e) => e.name.text));
  }
  return names.filter((name) => /^_*[a-z]/.test(name));
}

/**
 * The command tree's group indexes (src/commands/**\/index.ts) declare and do nothing else:
 * in a start file, the groups its command does not use drop out, with all their modules.
 */
const commandIndexesAreData = {
  name: 'command-indexes-are-data',
  setup(build) {
    build.onResolve({ filter: /(^|\/)index\.js$/ }, (args) => {
      const path = join(args.resolveDir, args.path.replace(/\.js$/, '.ts'));
      return /[\\/]src[\\/]commands[\\/](.+[\\/])?index\.ts$/.test(path) ? { path, sideEffects: false } : undefined;
    });
  },
};

/** `svc-start:<command>`: the entry of start-<command>.cjs (src/start.ts with that command). */
const startEntries = {
  name: 'start-entries',
  setup(build) {
    build.onResolve({ filter: /^svc-start:/ }, (args) => ({ path: args.path.slice('svc-start:'.length), namespace: 'svc-start' }));
    build.onLoad({ filter: /.*/, namespace: 'svc-start' }, (args) => ({
      contents: `import { ${args.path} as command } from './src/commands/index.ts';\nimport { startCommand } from './src/start.ts';\nexport const main = () => startCommand(command);\n`,
      resolveDir: root,
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

  const cjs = {
    ...common,
    format: 'cjs',
    // import.meta.url, made only if asked for (the start path never does).
    define: { ...common.define, 'import.meta.url': '__svcModule.url' },
    banner: { js: "const __svcModule = { get url() { return require('node:url').pathToFileURL(__filename).href; } };" },
    metafile: true,
    // Not whitespace-minified, and not only for readable stack traces: V8 allocates a string
    // over 128 KB (its largest regular object) outside the young generation, and a start
    // file's source is such a string. Minified, start-account.cjs was 126 KB: its text alone
    // was an eighth of the young generation, and `svc account --json` paid a garbage
    // collection that copied it (1–4 ms on Node 22–26, and 0.9 MiB more peak memory on 26).
    // Every start file is over 128 KB this way (a test checks it).
    minifyWhitespace: false,
  };
  const commandModules = new Set();
  const shared = new Set();
  const start = await build({
    ...cjs,
    plugins: [lazyChildProcessForCommander, onDemandFiles, declarationsOnly, fromRunFiles(commandModules, shared)],
    entryPoints: { main: 'src/main.ts' },
    outfile: join(outdir, 'main.cjs'),
  });
  const chunks = new Map();
  for (const file of commandModules) chunks.set(chunkOf(file), [...(chunks.get(chunkOf(file)) ?? []), file]);
  const commandChunks = [];
  for (const [name, files] of chunks) {
    commandChunks.push(
      await build({
        ...cjs,
        plugins: [onDemandFiles, declarationsOnly, sharedFromRunFile(shared)],
        stdin: { contents: `export const commands = ${lazyTable(files)};\n`, resolveDir: root, sourcefile: `cmd-${name}.js`, loader: 'js' },
        outfile: join(outdir, `cmd-${name}.cjs`),
      }),
    );
  }
  // A start file per top-level command (bin/svc.js loads the one argv names): src/start.ts
  // with that command alone. One file whose modules no other file shares costs none of the
  // interop above (each shared module's export getters, made at load for every module, and
  // copied again per importing file), and holding one command, it has none of the others'
  // declarations and code to compile, keep in memory and initialise, and no commander
  // (README, Performance). main.cjs, run.cjs and the cmd-*.cjs files stay the path for
  // every other command line (help at a terminal, unknown commands, usage errors).
  const startCommands = (await topLevelCommands()).filter((name) => !NO_START_FILE.has(name));
  const startFiles = await build({
    ...cjs,
    plugins: [startEntries, commandIndexesAreData, onDemandFiles, declarationsOnly],
    entryPoints: Object.fromEntries(startCommands.map((name) => [`start-${name}`, `svc-start:${name}`])),
    outdir,
    outExtension: { '.js': '.cjs' },
  });
  const runner = await build({
    ...cjs,
    plugins: [onDemandFiles],
    stdin: {
      contents: `export * from './src/cli/run.ts';\nexport const modules = ${lazyTable(shared)};\n`,
      resolveDir: root,
      sourcefile: 'run-entry.js',
      loader: 'js',
    },
    outfile: join(outdir, 'run.cjs'),
  });
  // What was inlined, with its licences: THIRD_PARTY_NOTICES.txt and an SBOM (scripts/notices.mjs).
  writeNotices(root, outdir, [
    libraries.metafile,
    commonJsLibraries.metafile,
    start.metafile,
    startFiles.metafile,
    ...commandChunks.map((c) => c.metafile),
    runner.metafile,
  ]);
  await writeStaticAnswers(outdir);
}
