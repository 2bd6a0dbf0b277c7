// The svc bundle, as `npm run build` makes it in dist/. One layout, each module in one file:
// - main.cjs: the core. The launcher's entry (src/main.ts), the command tree's declarations,
//   the parse from them, the runner, the context and what it serves (config, credentials,
//   HTTP, output). CommonJS: Node 20's ESM loader costs a file at a time, and to start at all.
// - cmd-<name>.cjs: one top-level command's own code (src/commands/<name>/ or <name>.ts, but
//   what other commands use too, which is the core's), loaded when a command line names it.
// - lib/*: libraries loaded only when needed: commander (help and usage errors), prompts,
//   spinner, tables, colours, undici, jq; and emulator.js.
// - help/*.txt: `--help` of each command as printed on a pipe, for bin/svc.js to print
//   (scripts/static-answers.mjs).
// A file takes another file's module from that file's `modules` table (the plugin below), so
// no module is in two files.
// (Over half of the 449 lines this script had before the one layout, not under it: the
// declarations-only plugin, which keeps command code out of the core's tree, is a third of it.)
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeNotices } from './notices.mjs';
import { writeStaticAnswers } from './static-answers.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/**
 * Libraries svc loads only where needed, each built to dist/lib/<file>. ES modules (ora,
 * chalk and the prompts are published so) share chunks; commander (src/cli/tree.ts, which
 * loads for help and usage errors) and jq-wasm (Emscripten output that needs __dirname) are
 * CommonJS.
 */
const LIBRARIES = {
  undici: 'undici.js',
  ora: 'ora.js',
  '@inquirer/password': 'inquirer-password.js',
  '@inquirer/confirm': 'inquirer-confirm.js',
  chalk: 'chalk.js',
  commander: 'commander.cjs',
  'jq-wasm': 'jq-wasm.cjs',
  // svc mcp (src/commands/mcp/): the MCP SDK's server and stdio framing, and the zod it builds schemas with.
  zod: 'zod.js',
  '@modelcontextprotocol/sdk/server/mcp.js': 'mcp-server.js',
  '@modelcontextprotocol/sdk/shared/stdio.js': 'mcp-stdio.js',
};
const libraryEntries = (extension) =>
  Object.fromEntries(
    Object.entries(LIBRARIES).flatMap(([name, file]) => (file.endsWith(extension) ? [[`lib/${file.slice(0, -extension.length)}`, name]] : [])),
  );

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20.18',
  // The keychain module is a native addon with per-platform prebuilt packages:
  // it must stay a real dependency resolved at run time.
  external: ['@napi-rs/keyring'],
  define: { __SVC_VERSION__: JSON.stringify(pkg.version) },
  minifySyntax: true,
  // Names are kept (stack traces name svc's functions); whitespace goes: less to read and hash at each start.
  minifyWhitespace: true,
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
};

/**
 * What the MCP SDK's server carries for uses svc mcp does not have, left out of dist/lib/ (the
 * package's size): Ajv and its formats, built unless the server is given a validator (svc mcp
 * gives its own: it asks clients nothing, Ajv's only use); zod 3 and its JSON Schema converter,
 * for tools declared with zod 3 schemas (svc's are zod 4). Each stand-in throws if ever called.
 */
const STUBBED_IN_MCP = {
  'ajv-provider': "export class AjvJsonSchemaValidator { constructor() { throw new Error('svc bundles no Ajv: give the server a jsonSchemaValidator'); } }",
  'zod/v3': "export function object() { throw new Error('svc bundles no zod 3: declare tools with zod 4'); }",
  'zod-to-json-schema': "export function zodToJsonSchema() { throw new Error('svc bundles no zod 3: declare tools with zod 4'); }",
};
const leanMcp = {
  name: 'lean-mcp',
  setup(build) {
    build.onResolve({ filter: /(\/validation\/ajv-provider\.js|^zod\/v3|^zod-to-json-schema)$/ }, (args) => {
      if (!/[\\/]@modelcontextprotocol[\\/]sdk[\\/]/.test(args.importer)) return undefined;
      const path = args.path.endsWith('ajv-provider.js') ? 'ajv-provider' : args.path;
      return { path, namespace: 'svc-lean-mcp' };
    });
    build.onLoad({ filter: /.*/, namespace: 'svc-lean-mcp' }, (args) => ({ contents: STUBBED_IN_MCP[args.path], loader: 'js' }));
  },
};

/**
 * zod's messages in English alone (the emulator's and svc mcp's, the only ones svc shows):
 * its `locales` namespace carries some sixty languages, half its bundled size, that nothing
 * in svc selects. The namespace keeps `en`.
 */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: join(args.resolveDir, '../locales/en.js'), namespace: 'svc-zod-locales' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'svc-zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      resolveDir: root,
      loader: 'js',
    }));
  },
};

/** The on-demand libraries and the emulator, as imports of their built files. */
const onDemandFiles = {
  name: 'on-demand-files',
  setup(build) {
    const names = Object.keys(LIBRARIES).map((name) => name.replace(/[/@]/g, '\\$&'));
    build.onResolve({ filter: new RegExp(`^(${names.join('|')})$`) }, (args) => ({ path: `./lib/${LIBRARIES[args.path]}`, external: true }));
    build.onResolve({ filter: /\/emulator\/index\.js$/ }, (args) => (args.kind === 'dynamic-import' ? { path: './emulator.js', external: true } : undefined));
  },
};

// commander requires node:child_process when it loads, for executable subcommands, which
// svc does not have; that module pulls in net, dgram and streams. Its import gets a stand-in
// that loads the real module on first use.
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

const posix = (path) => path.split('\\').join('/');
const isCommandIndex = (path) => /[\\/]src[\\/]commands[\\/](.+[\\/])?index\.ts$/.test(path);
/** src/commands/define.ts: the vocabulary every declaration is written in (the core's, not a command). */
const isVocabulary = (path) => /[\\/]src[\\/]commands[\\/]define\.ts$/.test(path);

/**
 * The command tree's indexes (src/commands/**\/index.ts) import each command module for its
 * `command` declaration only; the module's code is what `leaf(…, () => import(…))` loads
 * when the command runs. For those static imports the tree gets a copy of the module holding
 * just the declaration and the imports it uses.
 */
export const declarationsOnly = {
  name: 'declarations-only',
  setup(build) {
    build.onResolve({ filter: /^\./ }, (args) => {
      if (args.kind !== 'import-statement' || !isCommandIndex(args.importer)) return undefined;
      const path = join(dirname(args.importer), args.path.replace(/\.js$/, '.ts'));
      if (!/[\\/]src[\\/]commands[\\/]/.test(path) || isCommandIndex(path) || isVocabulary(path)) return undefined;
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

/**
 * The file each module of src/ is built into: a top-level command's own modules
 * (src/commands/calls/…, src/commands/login.ts) in cmd-<name>.cjs, unless another command
 * takes them too; the tree's indexes, what commands share and everything outside
 * src/commands/ in main.cjs. So a command line loads main.cjs and its command's file alone.
 */
function placement() {
  const shared = new Set();
  /** file → the modules of its own other files take from it */
  const wanted = new Map();
  const fileOf = (module) => {
    const command = module.match(/^src\/commands\/([^/]+?)(\.ts)?(\/|$)/);
    return command && !/(^|\/)index\.ts$/.test(module) && !isVocabulary(module) && !shared.has(module) ? `cmd-${command[1].replace(/^_+/, '')}` : 'main';
  };
  return { shared, wanted, fileOf, size: () => shared.size + [...wanted.values()].reduce((sum, set) => sum + set.size, 0) };
}

/**
 * Each module in one file: an import of a module that belongs to another file is that file's
 * `modules[path]()` (esbuild evaluates a required ES module on first require, so a table entry
 * costs nothing until used).
 */
function oneFileEach({ shared, wanted, fileOf }) {
  return {
    name: 'one-file-each',
    setup(build) {
      build.onResolve({ filter: /^\.\/(main|cmd-[\w-]+)\.cjs$/ }, (args) => ({ path: args.path, external: true }));
      build.onResolve({ filter: /^svc-file:/ }, (args) => ({ path: args.path.slice('svc-file:'.length), namespace: 'svc-file' }));
      build.onLoad({ filter: /.*/, namespace: 'svc-file' }, (args) => ({
        contents: `${args.path === 'main' ? "export * from './src/main.ts';\n" : ''}export const modules = {\n${[...(wanted.get(args.path) ?? [])]
          .filter((module) => fileOf(module) === args.path)
          .sort()
          .map((module) => `  ${JSON.stringify(module)}: () => require(${JSON.stringify(`./${module}`)}),`)
          .join('\n')}\n};\n`,
        resolveDir: root,
        loader: 'js',
      }));
      build.onResolve({ filter: /^\./ }, (args) => {
        if (args.namespace !== 'file' && args.namespace !== 'svc-file' && args.namespace !== 'svc-declaration') return undefined;
        const module = posix(relative(root, join(args.resolveDir, args.path.replace(/\.js$/, '.ts'))));
        // (A declaration is the tree's: main.cjs's.)
        const importer = { 'svc-file': args.importer, 'svc-declaration': 'main' }[args.namespace] ?? fileOf(posix(relative(root, args.importer)));
        if (!module.startsWith('src/') || module.startsWith('src/emulator/') || fileOf(module) === importer) return undefined;
        // One command's module that another command imports is the core's.
        if (importer !== 'main' && fileOf(module) !== 'main') shared.add(module);
        wanted.set(fileOf(module), (wanted.get(fileOf(module)) ?? new Set()).add(module));
        return { path: module, namespace: 'svc-other-file' };
      });
      build.onLoad({ filter: /.*/, namespace: 'svc-other-file' }, (args) => ({
        contents: `module.exports = require('./${fileOf(args.path)}.cjs').modules[${JSON.stringify(args.path)}]();`,
        loader: 'js',
      }));
    },
  };
}

/** Writes the bundle into `outdir` (which should be empty). */
export async function bundle(outdir) {
  const libraries = await build({
    ...common,
    format: 'esm',
    // CommonJS dependencies bundled into ESM still call require() for Node built-ins.
    banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
    // emulator.js also lets plain scripts (the demo, benchmarks) start the emulator in-process.
    plugins: [leanMcp, zodEnglishOnly],
    entryPoints: {
      emulator: 'src/emulator/index.ts',
      ...libraryEntries('.js'),
    },
    outdir,
    splitting: true,
    chunkNames: 'lib/chunks/[name]-[hash]',
  });
  const commonJsLibraries = await build({
    ...common,
    format: 'cjs',
    plugins: [lazyChildProcessForCommander],
    entryPoints: libraryEntries('.cjs'),
    outdir,
    outExtension: { '.js': '.cjs' },
  });

  // main.cjs and the command files. Which modules each file takes from another is known once
  // every file is built, so they are built without writing until that stops growing.
  const files = placement();
  const buildFiles = (write) =>
    build({
      ...common,
      format: 'cjs',
      // import.meta.url, made only if asked for (the start path never does).
      define: { ...common.define, 'import.meta.url': '__svcModule.url' },
      banner: { js: "const __svcModule = { get url() { return require('node:url').pathToFileURL(__filename).href; } };" },
      plugins: [onDemandFiles, declarationsOnly, oneFileEach(files)],
      entryPoints: Object.fromEntries(
        ['main', ...files.wanted.keys()]
          .filter((file) => file === 'main' || [...files.wanted.get(file)].some((m) => files.fileOf(m) === file))
          .map((file) => [file, `svc-file:${file}`]),
      ),
      outdir,
      outExtension: { '.js': '.cjs' },
      write,
    });
  for (let before = -1; before !== files.size();) {
    before = files.size();
    await buildFiles(false);
  }
  const svc = await buildFiles(true);

  // What was inlined, with its licences: THIRD_PARTY_NOTICES.txt and an SBOM (scripts/notices.mjs).
  writeNotices(root, outdir, [libraries.metafile, commonJsLibraries.metafile, svc.metafile]);
  await writeStaticAnswers(outdir);
}
