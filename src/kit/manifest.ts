// The manifest: the command tree as data, made from the declarations (src/commands/index.ts)
// and written by the build to dist/manifest.json. It holds each command's name, summary,
// examples, arguments and flags (their kinds and choices), and where its code is; help,
// the parser (src/cli/tree.ts), completions, man pages and `svc mcp`'s tools are made from
// it. A command line reads it and loads its one command's module, never all of them.
import type { Group, Leaf, Node, RootSpec } from './define.js';

/** The tree as the manifest holds it: plain data, each runnable leaf with its `module`. */
export type Manifest = RootSpec;

/**
 * The manifest of the declarations' tree. `modules` are the command modules by their path
 * under src/commands/ without extension (`calls/list`); each leaf's module is the one whose
 * `command` is the leaf's declaration. Throws on a leaf no module declares, on a module
 * whose declaration no leaf of the tree is, and on a declaration that is not plain data
 * (the manifest is JSON).
 */
export function manifestOf(root: RootSpec, modules: Readonly<Record<string, { command?: unknown }>>): Manifest {
  const moduleOf = new Map<unknown, string>();
  for (const [path, module] of Object.entries(modules)) if (module.command) moduleOf.set(module.command, path);
  const reached = new Set<unknown>();
  const leafOf = (node: Leaf): Leaf => {
    reached.add(node.decl);
    const module = node.load ? moduleOf.get(node.decl) : undefined;
    if (node.load && module === undefined) throw new Error(`svc ${node.decl.name}: no module under src/commands/ exports its declaration as \`command\``);
    return { kind: 'leaf', decl: plainData(node.decl, node.decl.name), ...(module === undefined ? {} : { module }) };
  };
  const nodeOf = (node: Node): Node => {
    if (node.kind === 'leaf') return leafOf(node);
    const { commands, self, ...rest } = node;
    const group: Group = { ...plainData(rest, node.name), commands: commands.map(nodeOf) };
    if (self) group.self = leafOf(self);
    return group;
  };
  const { commands, ...rest } = root;
  const manifest = { ...plainData(rest, 'svc'), commands: commands.map(nodeOf) };
  // A command file whose registration line was forgotten would build, pass and never run.
  for (const [declaration, path] of moduleOf)
    if (!reached.has(declaration))
      throw new Error(
        `src/commands/${path}.ts declares \`${(declaration as { name?: string }).name}\`, but no command tree reaches it: add it to its group's index.ts (or src/commands/index.ts)`,
      );
  return manifest;
}

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
