// The manifest (src/kit/manifest.ts): the command declarations as data, which the build
// writes to dist/manifest.json and a command line reads instead of the declarations. It must be
// what the declarations say (made again here, it is the shipped one), and help, completions,
// man pages and svc mcp's tools must come from it: a command added to a manifest shows in each. It
// is src/commands/ walked: each file a command at its path, each folder a group, nothing else.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execute } from '../../src/cli/execute.js';
import type { Runtime } from '../../src/cli/context.js';
import { declaredCommands } from '../../src/cli/declared.js';
import { commandModule, declaredOnly, defineCommand, defineGroup, isHidden, nameOf, type Leaf, type Node } from '../../src/kit/define.js';
import { manifestOf, modulesOf, type CommandsModule, type Manifest } from '../../src/kit/manifest.js';
import { commandFiles } from '../../src/kit/command-files.js';
import { completionScript, SHELLS } from '../../src/kit/completion/generate.js';
import { toolsOf } from '../../src/mcp/tools.js';
import { root } from '../helpers/spawn.js';

/** Every file under src/commands/, imported, by its path without extension. */
const paths = commandFiles(join(root, 'src/commands'));
const modules: Record<string, CommandsModule> = Object.fromEntries(
  await Promise.all(paths.map(async (path) => [path, (await import(join(root, 'src/commands', `${path}.ts`))) as CommandsModule] as const)),
);
const ROOT = manifestOf(modules);

/** A command file's exports: its declaration, checked against a parse and run that do nothing. */
const commandFile = (name: string): CommandsModule => {
  const command = defineCommand({ summary: `${name} something` });
  const parse = () => ({});
  const run = async () => {};
  return { command, parse, run, default: commandModule({ command, parse, run }) };
};

/** What manifestOf says of src/commands/ as it is, with `changes` (undefined: the file removed). */
const walked =
  (changes: Record<string, CommandsModule | undefined>): (() => Manifest) =>
  () =>
    manifestOf(Object.fromEntries(Object.entries({ ...modules, ...changes }).filter((entry): entry is [string, CommandsModule] => entry[1] !== undefined)));

const shipped = (): Manifest => JSON.parse(readFileSync(join(root, 'dist/manifest.json'), 'utf8')) as Manifest;

/** `svc argv…` against `manifest`, with no command module to load: what it printed and its exit code. */
async function helpFrom(manifest: Manifest, argv: string[]) {
  let out = '';
  const sink = { write: (text: string) => void (out += text), isTTY: false, columns: 80 };
  const refuse = () => {
    throw new Error('help runs nothing');
  };
  const runtime: Runtime = {
    env: {},
    stdout: sink,
    stderr: sink,
    stdin: { isTTY: false, readAll: refuse, lines: refuse },
    clock: { now: refuse, sleep: refuse },
    random: { bytes: refuse },
    browser: { open: refuse },
    signal: new AbortController().signal,
  };
  const code = await execute(argv, runtime, '0.0.0', { manifest, load: refuse });
  return { code, out };
}

/** `manifest` with one more top-level command, `frobnicate`, and `calls list` summarised anew. */
function withFrobnicate(manifest: Manifest): Manifest {
  const copy = structuredClone(manifest);
  const frobnicate: Leaf = {
    kind: 'leaf',
    module: 'frobnicate',
    decl: {
      name: 'frobnicate',
      ...defineCommand({
        summary: 'frobnicate the widgets',
        flags: { hard: { help: 'frobnicate hard' } },
        scopes: [],
        mcp: 'read',
        tool: { title: 'Frobnicate the widgets', does: 'Frobnicates the widgets.', returns: {} },
      }),
    },
  };
  copy.commands = [...copy.commands, frobnicate];
  const calls = copy.commands.find((node) => nameOf(node) === 'calls') as Extract<Node, { kind: 'group' }>;
  const list = calls.commands.find((node) => nameOf(node) === 'list') as Leaf;
  list.decl.summary = 'a summary the manifest alone says';
  return copy;
}

describe('the manifest', () => {
  it('dist/manifest.json is what the declarations make (else: npm run build)', async () => {
    const { manifest } = await declaredCommands();
    expect(shipped()).toEqual(manifest);
  });

  it("names each runnable command's module, which declares that command and which the bundle can import", async () => {
    const { manifest } = await declaredCommands();
    const modules = modulesOf(manifest);
    expect(modules).toContain('calls/list');
    expect(new Set(modules).size).toBe(modules.length);
    const bundle = readFileSync(join(root, 'dist/main.cjs'), 'utf8');
    for (const module of modules) {
      expect(readFileSync(join(root, 'src/commands', `${module}.ts`), 'utf8'), module).toMatch(/^export const command\b/m);
      // Its loader in the bundle's module map: `"calls/list": () => …`, or `__complete: () => …` where the path is a name.
      const key = module.replace(/[/$]/g, (c) => `\\${c}`);
      expect(bundle, module).toMatch(new RegExp(`[{,](?:"${key}"|${key}):\\(\\)=>`));
    }
  });

  it('refuses a declaration JSON cannot carry', () => {
    const command = { ...defineCommand({ summary: 's' }), examples: [() => 'x'] as unknown as string[] };
    expect(walked({ odd: { command, default: declaredOnly(command) } })).toThrow(/svc odd: its declaration holds something JSON cannot/);
  });

  it('is every file under src/commands/: a command at its path, or a group’s index.ts', () => {
    const groups = paths.filter((path) => /(^|\/)index$/.test(path));
    expect(groups).toContain('calls/links/index');
    // help is a declaration only: listed, with nothing to run.
    expect([...modulesOf(ROOT), 'help', ...groups].sort()).toEqual(paths);
  });

  it('refuses a file there that is no command, naming the file and where a helper goes', () => {
    expect(walked({ 'calls/pacer': { pace: () => 0 } })).toThrow(
      'src/commands/calls/pacer.ts declares no command: only commands live in src/commands/ (a helper goes in src/kit/, src/mcp/ or src/events/)',
    );
    expect(walked({ 'calls/index': { ...modules['calls/index'], pace: () => 0 } })).toThrow(
      "src/commands/calls/index.ts declares its folder's group: export const group = defineGroup({ summary, … }), and nothing else",
    );
    expect(walked({ 'calls/index': { ...modules['calls/index'], group: undefined } })).toThrow(
      "src/commands/calls/index.ts declares its folder's group: export const group = defineGroup({ summary, … }), and nothing else",
    );
  });

  it('lists every file under src/commands/ by its path, and refuses one that is not TypeScript', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-commands-'));
    try {
      mkdirSync(join(dir, 'calls/links'), { recursive: true });
      for (const file of ['index.ts', 'login.ts', 'calls/index.ts', 'calls/links/list.ts']) writeFileSync(join(dir, file), '');
      expect(commandFiles(dir)).toEqual(['calls/index', 'calls/links/list', 'index', 'login']);
      writeFileSync(join(dir, 'calls/notes.md'), '');
      expect(() => commandFiles(dir)).toThrow("src/commands/calls/notes.md: only commands live in src/commands/, each a .ts file at its command line's path");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names a command by its file and a group by its folder: a file renamed is the command renamed', () => {
    // profiles/ lists its commands alphabetically (no order): a file renamed needs nothing else.
    const renamed = walked({
      'profiles/remove': undefined,
      'profiles/forget': commandFile('remove'),
      'keys/index': { group: defineGroup({ summary: 's' }) },
    })();
    const profiles = renamed.commands.find((node) => nameOf(node) === 'profiles') as Extract<Node, { kind: 'group' }>;
    expect(profiles.commands.map(nameOf)).toEqual(['forget', 'list']);
    expect(renamed.commands.map(nameOf)).toContain('keys');
    expect(walked({ 'calls/links/index': undefined })).toThrow(/^src\/commands\/calls\/links\/ is a group, and has no index\.ts: declare it there/);
  });

  it('refuses a command file without its type check: `export default commandModule({ command, parse, run })`', () => {
    const { default: _checked, ...unchecked } = modules['calls/list']!;
    expect(walked({ 'calls/list': unchecked })).toThrow(
      'src/commands/calls/list.ts does not end with `export default commandModule({ command, parse, run })`, where tsc checks that run takes what parse returns',
    );
  });

  it("lists a group's commands in its order, which must name each file and folder of the group once", () => {
    const orderOf = (nodes: readonly Node[]) => nodes.map(nameOf);
    expect(orderOf(ROOT.commands).slice(0, 6)).toEqual(['login', 'logout', 'auth', 'keys', 'mode', 'account']);
    // Without an order, alphabetically.
    const keys = ROOT.commands.find((node) => nameOf(node) === 'keys') as Extract<Node, { kind: 'group' }>;
    expect(orderOf(keys.commands)).toEqual(['add', 'list', 'remove']);
    expect(walked({ 'chats/export': commandFile('export') })).toThrow(
      'src/commands/chats/export.ts is not in the order of src/commands/chats/index.ts: add `export` where help should list it',
    );
    expect(walked({ frob: commandFile('frob') })).toThrow(
      'src/commands/frob.ts is not in the order of src/commands/index.ts: add `frob` where help should list it',
    );
    expect(walked({ 'chats/voice': undefined })).toThrow(
      'src/commands/chats/index.ts names `voice` in its order, but there is no src/commands/chats/voice.ts nor src/commands/chats/voice/: take it out of the order',
    );
    // An alphabetical group takes a new file as it comes.
    expect(
      orderOf((walked({ 'keys/copy': commandFile('copy') })().commands.find((node) => nameOf(node) === 'keys') as Extract<Node, { kind: 'group' }>).commands),
    ).toEqual(['add', 'copy', 'list', 'remove']);
  });

  it('names each command by its path: `svc calls links list` is calls/links/list.ts, `svc account` account.ts', () => {
    const misplaced: string[] = [];
    const walk = (nodes: readonly Node[], above: string[]): void => {
      for (const node of nodes) {
        const path = [...above, nameOf(node)];
        const leaf = node.kind === 'leaf' ? node : node.self;
        if (leaf?.module !== undefined && leaf.module !== path.join('/')) misplaced.push(`svc ${path.join(' ')}: ${leaf.module}.ts`);
        if (node.kind === 'group') walk(node.commands, path);
      }
    };
    walk(shipped().commands, []);
    expect(misplaced).toEqual([]);
  });

  it('is where help comes from: a command the manifest has is listed, its words are the help', async () => {
    const manifest = withFrobnicate(shipped());
    const top = await helpFrom(manifest, ['--help']);
    expect(top.code).toBe(0);
    expect(top.out).toMatch(/^ {2}frobnicate +frobnicate the widgets$/m);
    const leaf = await helpFrom(manifest, ['help', 'frobnicate']);
    expect(leaf.out).toContain('Usage: svc frobnicate [options]');
    expect(leaf.out).toMatch(/--hard +frobnicate hard/);
    expect((await helpFrom(manifest, ['calls', 'list', '--help'])).out).toContain('a summary the manifest alone says');
    // Not in the manifest, not a command.
    expect((await helpFrom(shipped(), ['frobnicate'])).code).toBe(2);
  });

  it('is where completions come from: the shipped scripts are the manifest’s, and a new command completes', () => {
    const manifest = shipped();
    for (const shell of SHELLS) {
      expect(completionScript(shell, manifest), shell).toBe(
        readFileSync(join(root, 'dist', 'completions', `svc.${shell === 'powershell' ? 'ps1' : shell}`), 'utf8'),
      );
      expect(completionScript(shell, withFrobnicate(manifest)), shell).toContain('frobnicate');
    }
  });

  it('is where the man pages come from: a page for each visible command, named with its summary', () => {
    const pages: [string, string][] = [];
    const walk = (nodes: readonly Node[], prefix: string) => {
      for (const node of nodes.filter((n) => !isHidden(n))) {
        const name = `${prefix}-${nameOf(node)}`;
        pages.push([name, node.kind === 'leaf' ? node.decl.summary : node.summary]);
        if (node.kind === 'group') walk(node.commands, name);
      }
    };
    walk(shipped().commands, 'svc');
    expect(
      readdirSync(join(root, 'dist', 'man'))
        .filter((file) => file.endsWith('.1'))
        .sort(),
    ).toEqual(['svc', ...pages.map(([name]) => name)].map((name) => `${name}.1`).sort());
    // (Up to its first character outside ASCII, which troff spells its own way.)
    const troff = (text: string) => text.split(/[^\x00-\x7f]/)[0]!.replace(/-/g, '\\-');
    for (const [name, summary] of pages)
      expect(readFileSync(join(root, 'dist', 'man', `${name}.1`), 'utf8'), name).toContain(`.SH NAME\n${troff(name)} \\- ${troff(summary)}`);
  });

  it("is what svc mcp's tools are made from (the tree its run() is given)", () => {
    const session = { mode: 'test', allowWrite: false } as const;
    expect(toolsOf(shipped(), session).map((tool) => tool.name)).toEqual(toolsOf(ROOT, session).map((tool) => tool.name));
    expect(toolsOf(withFrobnicate(shipped()), session).map((tool) => tool.name)).toContain('frobnicate');
  });
});
