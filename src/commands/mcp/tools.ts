// The tools of `svc mcp`, read off the command tree (src/commands/index.ts ROOT): every leaf
// whose declaration says `mcp` (src/commands/define.ts McpUse) is one tool, named by its path
// (`calls_lines_list`), described by its help, taking its flags and arguments as named
// properties. Nothing here is a second list of commands: a new command or flag becomes a tool
// or a property with no code here. What a declaration says that a tool cannot carry is a
// ToolDeclarationError (test/mcp/tools.test.ts runs the generator over the whole tree).
import type { ArgSpec, CommandDecl, FlagSpec, Leaf, McpUse, Node, RootSpec } from '../define.js';
import { kebab, nameOf } from '../define.js';

/** What a session allows (svc mcp's flags). */
export interface Session {
  mode: 'test' | 'live';
  allowWrite: boolean;
  /** Live sessions only: the cap, in units of 1/10,000 cent; 0 refuses everything billable. */
  maxSpend?: number;
}

/** One property of a tool's input: a flag or a positional argument of the command. */
export type Param = { property: string; from: 'flag'; key: string; spec: FlagSpec } | { property: string; from: 'arg'; index: number; spec: ArgSpec };

export interface ToolSpec {
  name: string;
  /** The command's words: `['calls', 'lines', 'list']`. */
  path: string[];
  leaf: Leaf;
  use: McpUse;
  /** Billed in this session's mode (a live session's billable command). */
  billed: boolean;
  /** Changes nothing in this session (its annotations' readOnlyHint). */
  readOnly: boolean;
  description: string;
  params: Param[];
}

/** A declaration the tool generator cannot express; names the command and the reason. */
export class ToolDeclarationError extends Error {
  constructor(readonly problems: string[]) {
    super(`svc mcp cannot make these commands tools:\n${problems.map((p) => `- ${p}`).join('\n')}`);
    this.name = 'ToolDeclarationError';
  }
}

/**
 * Flags a tool never takes: `--dry-run` is how the server prices a billable call itself;
 * a `file` flag would have the assistant read or write the user's files through svc.
 */
function leftOut(key: string, spec: FlagSpec): boolean {
  return key === 'dryRun' || spec.kind?.type === 'file';
}

/** `areaCode` → `area_code`: the property names assistants are used to (GitHub's and Stripe's tools). */
export function snake(name: string): string {
  return kebab(name).replace(/-/g, '_');
}

/** Every leaf with its command words, groups' own commands (`svc account`) included. */
export function leavesOf(root: RootSpec): Array<{ path: string[]; leaf: Leaf }> {
  const found: Array<{ path: string[]; leaf: Leaf }> = [];
  const walk = (nodes: readonly Node[], prefix: string[]): void => {
    for (const node of nodes) {
      const path = [...prefix, nameOf(node)];
      if (node.kind === 'leaf') found.push({ path, leaf: node });
      else {
        if (node.self) found.push({ path, leaf: node.self });
        walk(node.commands, path);
      }
    }
  };
  walk(root.commands, []);
  return found;
}

/** Whether a command of this use is a tool of the session, and what it is there. */
export function availability(use: McpUse, session: Session): { offered: boolean; billed: boolean; readOnly: boolean } {
  if (use === 'read') return { offered: true, billed: false, readOnly: true };
  if (use === 'write') return { offered: session.allowWrite, billed: false, readOnly: false };
  if (session.mode === 'live') return { offered: session.maxSpend !== undefined, billed: true, readOnly: false };
  // Test mode is never billed: a billable command is then what it does to the organization.
  return use.billable === 'read' ? { offered: true, billed: false, readOnly: true } : { offered: session.allowWrite, billed: false, readOnly: false };
}

function paramsOf(name: string, decl: CommandDecl, problems: string[]): Param[] {
  const params: Param[] = [];
  const taken = new Set<string>();
  const add = (param: Param) => {
    if (taken.has(param.property)) problems.push(`${name}: two inputs would be named "${param.property}"`);
    taken.add(param.property);
    params.push(param);
  };
  const args = decl.args ?? [];
  args.forEach((spec, index) => {
    if (spec.variadic && index !== args.length - 1) problems.push(`${name}: the variadic argument <${spec.name}> is not the last`);
    if (!/^[a-z][a-z0-9_-]*$/i.test(spec.name)) problems.push(`${name}: the argument name "${spec.name}" is not a property name`);
    add({ property: snake(spec.name.replace(/-/g, '_')), from: 'arg', index, spec });
  });
  for (const [key, spec] of Object.entries(decl.flags ?? {})) {
    if (leftOut(key, spec)) continue;
    if (spec.kind && !spec.value) problems.push(`${name}: --${kebab(key)} has a kind (${spec.kind.type}) but takes no value`);
    if (spec.kind?.type === 'integer' && spec.choices) problems.push(`${name}: --${kebab(key)} is an integer with choices`);
    add({ property: snake(key), from: 'flag', key, spec });
  }
  return params;
}

/** The text an assistant reads: the help's summary and notes, and what a call costs or changes here. */
function describe(decl: CommandDecl, path: string[], billed: boolean, readOnly: boolean): string {
  const lines = [`svc ${path.join(' ')}: ${decl.summary}.`];
  if (decl.notes) lines.push(decl.notes);
  if (billed) lines.push("Billed (live mode): each call is priced first and refused past the session's --max-spend.");
  else if (!readOnly) lines.push("Changes the organization's objects (test mode unless the session is live).");
  lines.push("Returns the command's --json output.");
  return lines.join('\n');
}

/**
 * The session's tools, in the tree's order. Throws ToolDeclarationError when a declaration
 * marked `mcp` cannot be a tool; `all` checks every marked leaf, offered or not.
 */
export function toolsOf(root: RootSpec, session: Session, opts: { all?: boolean } = {}): ToolSpec[] {
  const problems: string[] = [];
  const tools: ToolSpec[] = [];
  for (const { path, leaf } of leavesOf(root)) {
    const use = leaf.decl.mcp;
    if (!use) continue;
    const name = path.join('_');
    if (!/^[a-z][a-z0-9_]{0,63}$/.test(name)) problems.push(`svc ${path.join(' ')}: "${name}" is not a tool name`);
    if (typeof use === 'object' && !leaf.decl.flags?.dryRun) problems.push(`svc ${path.join(' ')}: billable, but has no --dry-run to price a call with`);
    const { offered, billed, readOnly } = availability(use, session);
    const params = paramsOf(`svc ${path.join(' ')}`, leaf.decl, problems);
    if (!offered && !opts.all) continue;
    tools.push({ name, path, leaf, use, billed, readOnly, description: describe(leaf.decl, path, billed, readOnly), params });
  }
  if (problems.length) throw new ToolDeclarationError(problems);
  return tools;
}
