// The rules that keep design.md's structure, checked in `npm test`:
// layers import one way, the emulator imports nothing from the CLI but the contract and the
// file toolkit,
// no import cycles, no `as never` casts, no static import of a heavy library where the
// start path could load it, functions under 100 lines and files under 400, comments without history. Syntax-only rules (no type information), so it stays fast.
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** svc's sources import `./x.js` for `./x.ts` (NodeNext): resolve that, and treat packages as external. */
const sourceResolver = {
  interfaceVersion: 3,
  name: 'svc-source',
  resolve(source, file) {
    if (!source.startsWith('.')) return { found: true, path: null };
    const target = resolve(dirname(file), source);
    for (const candidate of [target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx'), target, `${target}.ts`])
      if (existsSync(candidate)) return { found: true, path: candidate };
    return { found: false };
  },
};

/** Loaded with `await import()` where first used (each a file of its own in dist/lib/, scripts/bundle.mjs). */
const HEAVY = ['undici', 'ora', '@inquirer/*', 'chalk', 'open', 'proper-lockfile', '@napi-rs/keyring', 'jq-wasm', '@modelcontextprotocol/*', 'zod'];
const HEAVY_RULE = [
  'error',
  {
    patterns: [
      { group: HEAVY, allowTypeImports: true, message: 'a heavy library: load it with `await import()` where it is used, so start-up stays within budget' },
    ],
  },
];

/** Comments say why, in words that stand alone: an issue number or a round is history, which git keeps. */
const svcRules = {
  rules: {
    'comments-say-why': {
      meta: { type: 'suggestion', schema: [], messages: { history: 'a comment says why, not where it came from ("{{text}}"): git log keeps the history' } },
      create(context) {
        return {
          Program() {
            for (const comment of context.sourceCode.getAllComments()) {
              const found = /\b(issues? #?\d+|round \d+)\b/i.exec(comment.value);
              if (found) context.report({ loc: comment.loc, messageId: 'history', data: { text: found[0] } });
            }
          },
        };
      },
    },
  },
};

/** A folder below src/ that must not import from another (resolved paths, not specifiers). */
const zone = (target, from, message, except) => ({ target: `./src/${target}`, from: `./src/${from}`, message, ...(except ? { except } : {}) });
const SERVICES = ['api', 'auth', 'credentials', 'config', 'io', 'validate'];
const ZONES = [
  // Layers, one way: cli → commands → mcp → kit → events → context services → api/auth/credentials/config → shared.
  ...SERVICES.flatMap((layer) =>
    ['commands', 'cli', 'emulator', 'mcp', 'events', 'kit'].map((up) =>
      zone(layer, up, 'a service below the commands imports no command, CLI, emulator, MCP, events or command-kit module'),
    ),
  ),
  // The commands sit below the runner: cli → commands, never back.
  zone('commands', 'cli', 'a command imports nothing of src/cli/ (the runner, the parser, the process edge): it gets what it needs through the context'),
  // The subsystems the commands use (the MCP server, the events library, the kit commands are made of) sit below them.
  ...['mcp', 'events', 'kit'].flatMap((layer) =>
    ['commands', 'cli'].map((up) => zone(layer, up, `src/${layer} sits below the commands: it imports no command and nothing of src/cli/`)),
  ),
  // The kit (the declaration vocabulary and the commands' shared helpers) is below the MCP server, which builds its tools from it.
  zone('kit', 'mcp', 'src/kit imports nothing of src/mcp: the MCP server is built on the kit, not the other way'),
  // The events library is a library: the tail, the forwarder and events_wait are built on it.
  ...['mcp', 'kit'].map((up) => zone('events', up, 'src/events imports nothing of src/mcp or src/kit: they are built on it')),
  // The API client sits below the credentials: it gets a credential's shape (src/api/credential.ts) and its organization as values.
  ...['credentials', 'auth', 'config'].map((up) =>
    zone('api', up, 'src/api imports nothing of the credentials, auth or config: the caller passes what it needs as values'),
  ),
  // Nothing else of svc at all, the files at src/'s top (node-require.ts, errors.ts) included; shared may read contract's types.
  zone('shared', '', 'shared modules import nothing else of svc (but src/contract)', ['./shared', './contract']),
  zone('contract', '', 'contract modules import nothing else of svc', ['./contract']),
  // The file toolkit (atomic write, lock, own-file rules, a full disk) is a bottom layer: svc's
  // services and the emulator both stand on it, so it stands on nothing of theirs.
  zone('files', '', 'the file toolkit imports nothing else of svc (but src/node-require.ts)', ['./files', './node-require.ts']),
  // The emulator is its own world: nothing from the CLI side but the contract, shared constants and the file toolkit.
  zone('emulator', '', 'the emulator imports nothing from the CLI but src/contract, src/shared and src/files', [
    './emulator',
    './contract',
    './shared',
    './files',
  ]),
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tmp/**', 'coverage/**', 'completions/**'] },
  {
    files: ['src/**/*.{ts,tsx}'],
    languageOptions: { parser: tseslint.parser, parserOptions: { ecmaVersion: 2023, sourceType: 'module', ecmaFeatures: { jsx: true } } },
    plugins: { '@typescript-eslint': tseslint.plugin, 'import-x': importX, svc: svcRules },
    settings: { 'import-x/resolver-next': [sourceResolver], 'import-x/extensions': ['.ts', '.tsx', '.js'] },
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'TSAsExpression > TSNeverKeyword', message: '`as never` erases the type link: type the value instead' },
        {
          // In the CommonJS bundle a namespace import of a built-in becomes a copy of all its properties (esbuild's __toESM), at start-up.
          selector: 'ImportDeclaration[importKind!="type"][source.value=/^node:/] > ImportNamespaceSpecifier',
          message: "import the names you use from a Node built-in (import { readFileSync } from 'node:fs'), not the whole module",
        },
      ],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: ZONES }],
      'no-restricted-imports': HEAVY_RULE,
      // A function a newcomer reads in one sitting, a file in one more: split what grows past them, along its seams.
      'max-lines-per-function': ['error', { max: 100, skipBlankLines: true, skipComments: true }],
      'max-lines': ['error', { max: 400 }],
      'svc/comments-say-why': 'error',
    },
  },
  // The emulator is not on the CLI's start path: its libraries load with it.
  { files: ['src/emulator/**/*.{ts,tsx}'], rules: { 'no-restricted-imports': 'off' } },
  // src/io/jq.ts is itself loaded only for --jq (src/cli/run.ts's `await import()`): it imports
  // jq-wasm statically, a `require` in the CommonJS bundle, where an `import()` would start Node's ESM loader.
  { files: ['src/io/jq.ts'], rules: { 'no-restricted-imports': 'off' } },
  // A dashboard page is mostly JSX markup: the page function may hold up to 150 lines of it.
  { files: ['src/**/*.tsx'], rules: { 'max-lines-per-function': ['error', { max: 150, skipBlankLines: true, skipComments: true }] } },
);
