// The manifest (src/kit/manifest.ts): the command declarations as data, which the build
// writes to dist/manifest.json and a command line reads instead of the declarations. It must be
// what the declarations say (made again here, it is the shipped one), and help, completions,
// man pages and svc mcp's tools must come from it: a command added to a manifest shows in each.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { execute } from '../../src/cli/execute.js';
import type { Runtime } from '../../src/cli/context.js';
import { declaredCommands } from '../../src/cli/declared.js';
import { defineCommand, isHidden, nameOf, type Leaf, type Node } from '../../src/kit/define.js';
import { manifestOf, modulesOf, type Manifest } from '../../src/kit/manifest.js';
import { commandModulePaths } from '../../src/kit/command-files.js';
import { completionScript, SHELLS } from '../../src/kit/completion/generate.js';
import { toolsOf } from '../../src/mcp/tools.js';
import { ROOT } from '../../src/commands/index.js';
import { root } from '../helpers/spawn.js';

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
    decl: defineCommand({
      name: 'frobnicate',
      summary: 'frobnicate the widgets',
      flags: { hard: { help: 'frobnicate hard' } },
      scopes: [],
      mcp: 'read',
      tool: { title: 'Frobnicate the widgets', does: 'Frobnicates the widgets.', returns: {} },
    }),
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
      expect(bundle, module).toContain(JSON.stringify(module));
    }
  });

  it('refuses a leaf no module declares, and a declaration JSON cannot carry', () => {
    const lost = { ...ROOT, commands: [{ kind: 'leaf', decl: defineCommand({ name: 'lost', summary: 's' }), load: async () => ({}) } as unknown as Leaf] };
    expect(() => manifestOf(lost, {})).toThrow(/svc lost: no module/);
    const decl = { ...defineCommand({ name: 'odd', summary: 's' }), examples: [() => 'x'] as unknown as string[] };
    const odd = { ...ROOT, commands: [{ kind: 'leaf', decl, load: async () => ({}) } as unknown as Leaf] };
    expect(() => manifestOf(odd, { odd: { command: decl } })).toThrow(/svc odd: its declaration holds something JSON cannot/);
  });

  it('refuses a command file no tree reaches (a registration line forgotten), naming the file and the fix', async () => {
    const paths = commandModulePaths(join(root, 'src/commands'));
    const modules = Object.fromEntries(
      await Promise.all(paths.map(async (path) => [path, (await import(join(root, 'src/commands', `${path}.ts`))) as { command?: unknown }] as const)),
    );
    // Every file that declares a command today is reached: a runnable leaf's module, or help (a declaration only).
    expect([...modulesOf(manifestOf(ROOT, modules)), 'help'].sort()).toEqual(paths);
    const orphan = { command: defineCommand({ name: 'export', summary: 'export a chat' }) };
    expect(() => manifestOf(ROOT, { ...modules, 'chats/export': orphan })).toThrow(
      "src/commands/chats/export.ts declares `export`, but no command tree reaches it: add it to its group's index.ts (or src/commands/index.ts)",
    );
  });

  it('finds only commands under src/commands/: every file there declares one (or, an index.ts, lists its group)', () => {
    const files = readdirSync(join(root, 'src/commands'), { recursive: true })
      .map((file) => String(file).replace(/\\/g, '/'))
      .filter((file) => /\.tsx?$/.test(file));
    const declaring = new Set(commandModulePaths(join(root, 'src/commands')).map((path) => `${path}.ts`));
    // A helper belongs with the code it helps (src/kit/, src/mcp/, src/events/), never here.
    expect(files.filter((file) => !declaring.has(file) && !/(^|\/)index\.ts$/.test(file)).sort()).toEqual([]);
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
