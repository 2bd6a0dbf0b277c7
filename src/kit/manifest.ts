// The manifest: the command tree as data, made by walking src/commands/ and written by the
// build to dist/manifest.json. A file's path is its command line (calls/links/list.ts is
// `svc calls links list`), a folder is a group declared by its index.ts, and a group that runs
// itself has a file beside its folder (account.ts, account/). The manifest holds each command's
// name (its file's, given here: no declaration states it), summary, examples, arguments and flags (their kinds and choices), and where its code is;
// help, the parser (src/cli/tree.ts), completions, man pages and `svc mcp`'s tools are made from
// it. A command line reads it and loads its one command's module, never all of them.
import type { CheckedCommand, CommandDecl, Group, GroupDecl, Leaf, Node, RootDecl, RootSpec } from './define.js';

/** The tree as the manifest holds it: plain data, each runnable leaf with its `module`. */
export type Manifest = RootSpec;

/** A module under src/commands/ as imported: a command file's exports, or an index.ts's. */
export type CommandsModule = Readonly<Record<string, unknown>>;

/** A module's file, as an error names it. */
const file = (path: string): string => `src/commands/${path}.ts`;

/**
 * The manifest of src/commands/: `modules` is every file there, imported, by its path without
 * the extension (`index`, `calls/index`, `calls/list`). Throws, naming the file and the fix, on
 * a file that declares no command (or an index.ts no group), a folder without its index.ts,
 * a group's `order` that is not exactly its folder's commands, a command file without its `commandModule` line, and a declaration that
 * is not plain data (the manifest is JSON).
 */
export function manifestOf(modules: Readonly<Record<string, CommandsModule>>): Manifest {
  const root = modules['index']?.['root'] as RootDecl | undefined;
  if (root?.kind !== 'root-decl' || Object.keys(modules['index']!).some((name) => name !== 'root'))
    throw new Error(`${file('index')} declares svc itself: export const root = defineRoot({ … }), and nothing else`);
  // Every file first, so a file that is no command is named as such, not as one missing from an order.
  const leaves = new Map(Object.keys(modules).flatMap((path) => (/(^|\/)index$/.test(path) ? [] : [[path, leafOf(path, modules[path]!)] as const])));
  const children = childrenOf(Object.keys(modules));
  const walk = (folder: string): Node[] =>
    ordered(folder, folder ? groupDeclOf(folder, modules[`${folder}/index`]).order : root.order, children).map((name) => {
      const path = folder ? `${folder}/${name}` : name;
      if (!children.has(path)) return leaves.get(path)!;
      const { kind: _kind, order: _order, ...spec } = groupDeclOf(path, modules[`${path}/index`]);
      const group: Group = { ...plainData({ kind: 'group', name, ...spec } as Group, path), commands: walk(path) };
      const self = leaves.get(path);
      if (self) group.self = self;
      return group;
    });
  const { kind: _kind, order: _order, ...spec } = root;
  return { ...plainData(spec, 'svc'), commands: walk('') };
}

/** Each folder ('' the top) and the names in it: its files but index.ts, and its subfolders. */
function childrenOf(paths: readonly string[]): Map<string, Set<string>> {
  const children = new Map<string, Set<string>>([['', new Set()]]);
  for (const path of paths) {
    const words = path.split('/');
    for (let depth = 0; depth < words.length; depth++) {
      const folder = words.slice(0, depth).join('/');
      if (!children.has(folder)) children.set(folder, new Set());
      const name = words[depth]!;
      if (depth < words.length - 1 || name !== 'index') children.get(folder)!.add(name);
    }
  }
  return children;
}

/** The names in `folder` in help order: its declaration's `order`, which must name each once, else alphabetical. */
function ordered(folder: string, order: readonly string[] | undefined, children: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const names = children.get(folder)!;
  if (!order) return [...names].sort();
  const index = file(folder ? `${folder}/index` : 'index');
  const where = (name: string) => (folder ? `${folder}/${name}` : name);
  const seen = new Set<string>();
  for (const name of order) {
    if (seen.has(name)) throw new Error(`${index} names \`${name}\` twice in its order`);
    seen.add(name);
    if (!names.has(name))
      throw new Error(
        `${index} names \`${name}\` in its order, but there is no ${file(where(name))} nor src/commands/${where(name)}/: take it out of the order`,
      );
  }
  for (const name of names) {
    const found = children.has(where(name)) ? `src/commands/${where(name)}/` : file(where(name));
    if (!seen.has(name)) throw new Error(`${found} is not in the order of ${index}: add \`${name}\` where help should list it`);
  }
  return [...order];
}

/** The group `path/index.ts` declares. */
function groupDeclOf(path: string, module: CommandsModule | undefined): GroupDecl {
  const group = module?.['group'] as GroupDecl | undefined;
  if (!module) throw new Error(`src/commands/${path}/ is a group, and has no index.ts: declare it there with export const group = defineGroup({ summary, … })`);
  if (group?.kind !== 'group-decl' || Object.keys(module).some((name) => name !== 'group'))
    throw new Error(`${file(`${path}/index`)} declares its folder's group: export const group = defineGroup({ summary, … }), and nothing else`);
  return group;
}

/** The leaf the command file at `path` declares. */
function leafOf(path: string, module: CommandsModule): Leaf {
  const command = module['command'] as CommandDecl | undefined;
  if (command?.kind !== 'command')
    throw new Error(`${file(path)} declares no command: only commands live in src/commands/ (a helper goes in src/kit/, src/mcp/ or src/events/)`);
  const checked = module['default'] as CheckedCommand | undefined;
  if (checked?.kind !== 'checked-command' || checked.command !== command)
    throw new Error(
      `${file(path)} does not end with \`export default commandModule({ command, parse, run })\`, where tsc checks that run takes what parse returns`,
    );
  // Named by its file: the manifest gives the name, so a declaration never states it a second time.
  return { kind: 'leaf', decl: plainData({ name: lastWord(path), ...command }, path.replace(/\//g, ' ')), ...(checked.runs ? { module: path } : {}) };
}

const lastWord = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/** `value` as JSON keeps it; else an error naming the command (a function in a declaration, say). */
function plainData<T>(value: T, name: string): T {
  const copy = JSON.parse(JSON.stringify(value)) as T;
  if (!sameData(value, copy)) throw new Error(`svc ${name}: its declaration holds something JSON cannot (a function, undefined in a list, …)`);
  return copy;
}

function sameData(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null) return Object.is(a, b);
  if (typeof b !== 'object' || b === null) return false;
  const keys = Object.keys(a).filter((key) => (a as Record<string, unknown>)[key] !== undefined);
  return keys.length === Object.keys(b).length && keys.every((key) => sameData((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

/** Every module the manifest's leaves name. */
export function modulesOf(manifest: Manifest): string[] {
  const found: string[] = [];
  const walk = (nodes: readonly Node[]): void => {
    for (const node of nodes) {
      const leaf = node.kind === 'leaf' ? node : node.self;
      if (leaf?.module) found.push(leaf.module);
      if (node.kind === 'group') walk(node.commands);
    }
  };
  walk(manifest.commands);
  return found;
}
