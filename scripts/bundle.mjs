// The svc bundle, as `npm run build` makes it in dist/: esbuild's bundling, and the manifest.
// - manifest.json: the command tree as data, from the declarations (src/kit/manifest.ts):
//   what a command line reads to find its command, and help, completions and man pages are made of.
// - main.cjs: src/main.ts and everything it imports, each command module among them through
//   the table src/cli/command-modules.ts, which the build writes from the manifest: esbuild
//   evaluates a module imported so only when it is imported, so a command line runs its
//   command's module alone. One CommonJS file: Node's ESM loader costs a file at a time, and
//   to start at all, and every extra file costs a command line (esbuild's split into a file
//   per command and shared chunks measured slower, and on Node 22 6 MiB heavier).
// - man/ and completions/: the man pages and the shell completion scripts (scripts/gen-man.mjs,
//   scripts/gen-completions.mjs), made from the same declarations.
// - lib/*: libraries loaded only when needed: commander (the parser), prompts, spinner, tables,
//   colours, undici, jq, the MCP SDK; and emulator.js.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeNotices } from './notices.mjs';
import { declaredManifest } from './generated.mjs';
import { COMPLETION_EXPORTS, completionFiles } from './gen-completions.mjs';
import { MAN_EXPORTS, manPages } from './gen-man.mjs';
import { answerHelp } from './help.mjs';

answerHelp(import.meta.url);

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
  // svc mcp (src/mcp/): the MCP SDK's server and stdio framing, and the zod it builds schemas with.
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
    // The commands as the sources declare them (src/cli/commands.ts, for tests): in the bundle the manifest is read instead.
    build.onResolve({ filter: /^\.\/declared\.js$/ }, (args) =>
      /[\\/]src[\\/]cli[\\/]commands\.ts$/.test(args.importer) ? { path: './sources-only.js', external: true } : undefined,
    );
    // The help topics' text (`svc help <topic>`): a file of its own, so no other command line reads it.
    build.onResolve({ filter: /\/help-topics\/sources\.js$/ }, () => ({ path: './lib/help-topics.cjs', external: true }));
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

/**
 * jq-wasm's Emscripten build, made lighter to start and to feed (`--jq`, src/io/jq.ts): its
 * WebAssembly, inline as base64 (1.2 MB of JavaScript to parse and decode on every start), is
 * dist/lib/jq.wasm, read as bytes; its stdin, taken a byte at a time by copying the rest, is
 * read by an index; its output, grown by a copy per byte, is gathered in an array. Both copies
 * made a large answer quadratic. A pattern that no longer matches (a new jq-wasm) fails the build.
 */
const JQ_PATCHES = [
  [
    /function findWasmBinary\(\) \{ var f = "data:application\/octet-stream;base64,([A-Za-z0-9+/=]+)"; return f; \}/,
    () => 'function findWasmBinary() { return require("node:path").join(__dirname, "jq.wasm"); }',
  ],
  [
    /\(\) => \{ if \(stdinBuffer\.length > 0\) \{\s*const byte = stdinBuffer\[0\];\s*stdinBuffer = stdinBuffer\.slice\(1\);\s*return byte;\s*\} return null; \}/,
    () => '() => (stdinAt < stdinBuffer.length ? stdinBuffer[stdinAt++] : null)',
  ],
  [
    /stdinBuffer = toByteArray\(stdinString\); stdoutBuffer = new Uint8Array\(0\);/,
    () => 'stdinBuffer = toByteArray(stdinString); stdinAt = 0; stdoutBuffer = [];',
  ],
  [/let stdinBuffer = new Uint8Array\(0\);/, () => 'let stdinBuffer = new Uint8Array(0); let stdinAt = 0;'],
  [
    /charCode => \{ if \(charCode !== null && charCode !== undefined\) \{\s*const tmp = new Uint8Array\(stdoutBuffer\.length \+ 1\);\s*tmp\.set\(stdoutBuffer, 0\);\s*tmp\[tmp\.length - 1\] = charCode;\s*stdoutBuffer = tmp;\s*\} \}/,
    () => 'charCode => { if (charCode !== null && charCode !== undefined) stdoutBuffer.push(charCode); }',
  ],
  [
    /charCode => \{ if \(charCode !== null && charCode !== undefined\) \{\s*const tmp = new Uint8Array\(stderrBuffer\.length \+ 1\);\s*tmp\.set\(stderrBuffer, 0\);\s*tmp\[tmp\.length - 1\] = charCode;\s*stderrBuffer = tmp;\s*\} \}/,
    () => 'charCode => { if (charCode !== null && charCode !== undefined) stderrBuffer.push(charCode); }',
  ],
  [
    /function fromByteArray\(data\) \{ return new TextDecoder\("utf-8"\)\.decode\(data\); \}/,
    () => 'function fromByteArray(data) { return new TextDecoder("utf-8").decode(Uint8Array.from(data)); }',
  ],
  // jq's main ends by exit(), which Emscripten throws through the WebAssembly frames: the stack
  // pointer is never put back, and each run left its frames and arguments on the stack. After
  // about 300 runs in one process (as many events of `svc events tail --jq`) jq ran into its own
  // data and aborted. The build exports no stack restore, only the stack allocation, which moves
  // the pointer by the size it is given: each run now gives back what it took.
  [
    /Module\.callMain\(\[\.\.\.flags, query, "\/dev\/stdin"\]\)/,
    () =>
      '(() => { const stackBefore = stackAlloc(0); try { return Module.callMain([...flags, query, "/dev/stdin"]); } finally { stackAlloc(stackAlloc(0) - stackBefore); } })()',
  ],
  // run(): jq as its command line is, for svc's --jq: its stdout and stderr as it wrote them
  // (raw() trims the one and drops the other whenever the first holds anything) and its exit
  // status (raw() never reads it), over the answer given as jq's input. The input is read
  // through a file named `<stdin>`, a link to the stdin device: jq opens it afresh each run
  // (C's stdin keeps its end-of-file from a run that halted, and the next run would read
  // nothing), and its errors name it as jq names its stdin (`jq: error (at <stdin>:0): …`).
  // A run that halts leaves the file open: its descriptor is closed here.
  [
    /function rawImpl\(/,
    () =>
      'function runImpl(input, args) { if (!FS.analyzePath("/<stdin>").exists) FS.symlink("/dev/stdin", "/<stdin>"); stdinBuffer = toByteArray(input); stdinAt = 0; stdoutBuffer = []; stderrBuffer = []; const stackBefore = stackAlloc(0); let status; try { status = Module.callMain(["-M", ...args, "<stdin>"]); } finally { stackAlloc(stackAlloc(0) - stackBefore); for (const stream of FS.streams) if (stream && stream.fd > 2) FS.close(stream); } return { status, stdout: fromByteArray(stdoutBuffer), stderr: fromByteArray(stderrBuffer) }; } function rawImpl(',
  ],
  [
    /raw\(jsonString, query, flags = \[\]\) \{/,
    () => 'run(input, args) { return runtimeInitPromise.then(() => runImpl(input, args)); }, raw(jsonString, query, flags = []) {',
  ],
  // $ENV and env: the environment svc was given, not Emscripten's stand-in (HOME=/home/web_user):
  // each of the stand-in's own variables is dropped unless the real environment has it.
  [
    /var ENV = \{\};/,
    () => 'var ENV = {}; for (const name of ["USER", "LOGNAME", "PATH", "PWD", "HOME", "LANG", "_"]) ENV[name] = undefined; Object.assign(ENV, Module.svcEnv);',
  ],
  // A run's exit status is returned by callMain: it is not Node's process exit code.
  [/quit_ = \(status, toThrow\) => \{ process\.exitCode = status; throw toThrow; \};/, () => 'quit_ = (status, toThrow) => { throw toThrow; };'],
];
/** jq-wasm's wrapper: start(env) makes the one instance with the environment svc runs in. */
const JQ_INDEX_PATCHES = [
  [
    /exports\.json = json;/,
    () =>
      'exports.json = json; exports.start = (env) => { if (!instancePromise) instancePromise = (0, jq_js_1.default)({ svcEnv: env }); return instancePromise; };',
  ],
];
const leanJq = (outdir) => ({
  name: 'lean-jq',
  setup(build) {
    build.onLoad({ filter: /[\\/]jq-wasm[\\/]dist[\\/](build[\\/]jq|index)\.js$/ }, (args) => {
      let source = readFileSync(args.path, 'utf8');
      for (const [pattern, replacement] of args.path.endsWith('index.js') ? JQ_INDEX_PATCHES : JQ_PATCHES) {
        const match = pattern.exec(source);
        if (!match) throw new Error(`jq-wasm changed: ${pattern} no longer matches ${args.path}`);
        if (match[1]) {
          mkdirSync(join(outdir, 'lib'), { recursive: true });
          writeFileSync(join(outdir, 'lib/jq.wasm'), Buffer.from(match[1], 'base64'));
        }
        source = source.replace(pattern, replacement);
      }
      return { contents: source, loader: 'js' };
    });
  },
});

/** The bundle's src/cli/command-modules.ts: each command module the manifest names, imported when asked for. */
const commandTable = (modules) => ({
  name: 'command-table',
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]cli[\\/]command-modules\.ts$/ }, () => ({
      contents: `export const commandModules = {\n${modules.map((module) => `  ${JSON.stringify(module)}: () => import(${JSON.stringify(`../commands/${module}.js`)}),`).join('\n')}\n};\n`,
      loader: 'ts',
    }));
  },
});

/** main.cjs (see the top of this file). */
function bundleSvc(outdir, manifest, modulesOf) {
  return build({
    ...common,
    format: 'cjs',
    // import.meta.url, made only if asked for (the start path never does).
    define: { ...common.define, 'import.meta.url': '__svcModule.url' },
    banner: { js: "const __svcModule = { get url() { return require('node:url').pathToFileURL(__filename).href; } };" },
    plugins: [onDemandFiles, commandTable(modulesOf(manifest))],
    entryPoints: { main: 'src/main.ts' },
    outdir,
    outExtension: { '.js': '.cjs' },
  });
}

/** Writes each `{ file, text }` into `dir`. */
function writeEach(dir, files) {
  mkdirSync(dir, { recursive: true });
  for (const { file, text } of files) writeFileSync(join(dir, file), text);
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
    plugins: [lazyChildProcessForCommander, leanJq(outdir)],
    entryPoints: { ...libraryEntries('.cjs'), 'lib/help-topics': 'src/help-topics/sources.ts' },
    outdir,
    outExtension: { '.js': '.cjs' },
  });

  const declared = await declaredManifest(`export { modulesOf } from './src/kit/manifest.ts'; ${MAN_EXPORTS} ${COMPLETION_EXPORTS}`);
  const { manifest, modulesOf } = declared;
  writeFileSync(join(outdir, 'manifest.json'), JSON.stringify(manifest));
  const svc = await bundleSvc(outdir, manifest, modulesOf);
  // The man pages and the completion scripts, made from the same declarations at every build.
  writeEach(join(outdir, 'man'), manPages(declared));
  writeEach(join(outdir, 'completions'), completionFiles(declared));

  // What was inlined, with its licences: THIRD_PARTY_NOTICES.txt and an SBOM (scripts/notices.mjs).
  writeNotices(root, outdir, [libraries.metafile, commonJsLibraries.metafile, svc.metafile]);
}
