// The tools of `svc mcp`, read off the command tree (the manifest, src/kit/manifest.ts): every leaf
// whose declaration says `mcp` (src/kit/define.ts McpUse) is one tool, named by its path
// (`calls_lines_list`), described by its `tool` facts (describe.ts), taking its flags and arguments as named
// properties. Nothing here is a second list of commands: a new command or flag becomes a tool
// or a property with no code here. What a declaration says that a tool cannot carry is a
// ToolDeclarationError (test/mcp/tools.test.ts runs the generator over the whole tree).
import type { CommandDecl, FlagSpec, Leaf, McpUse, Node, RootSpec } from '../kit/define.js';
import type { Param, Session, ToolSpec } from './tool-spec.js';
import { kebab, nameOf } from '../kit/define.js';
import { dollars } from './budget.js';
import { description, priceable, type PriceList } from './describe.js';

/** A declaration the tool generator cannot express; names the command and the reason. */
export class ToolDeclarationError extends Error {
  constructor(readonly problems: string[]) {
    super(`svc mcp cannot make these commands tools:\n${problems.map((p) => `- ${p}`).join('\n')}`);
    this.name = 'ToolDeclarationError';
  }
}

/**
 * Flags a tool never takes: `--dry-run` is how the server prices a billable call itself;
 * `--all` would make one result of every page (a list tool answers one bounded page);
 * `--lines` reads stdin, which a tool has not; a `file` flag would have the assistant read or
 * write the user's files through svc.
 */
function leftOut(key: string, spec: FlagSpec): boolean {
  return key === 'dryRun' || key === 'all' || key === 'lines' || spec.kind?.type === 'file';
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

/**
 * Offered in the session: what its use allows, in a mode the service does it in; and a tool
 * that ends what an offered one starts (a live session that may start a call may end it).
 */
function offeredNames(marked: ReadonlyArray<{ name: string; leaf: Leaf }>, session: Session): Set<string> {
  const works = (leaf: Leaf) =>
    (leaf.decl.tool?.only === undefined || leaf.decl.tool.only === session.mode) &&
    // A live call svc mcp cannot bound (a line, billed by the month) would be refused every time.
    (session.mode === 'test' || typeof leaf.decl.mcp !== 'object' || priceable({ leaf }));
  const offered = new Set(marked.filter(({ leaf }) => works(leaf) && availability(leaf.decl.mcp!, session).offered).map(({ name }) => name));
  for (const { name, leaf } of marked) {
    const ender = leaf.decl.tool?.endedBy;
    if (offered.has(name) && ender && marked.some((m) => m.name === ender && works(m.leaf))) offered.add(ender);
  }
  return offered;
}

/** The declaration's `tool` facts, checked: what the generator needs to tell an assistant the truth. */
function factProblems(name: string, decl: CommandDecl, marked: ReadonlyArray<{ name: string }>): string[] {
  const facts = decl.tool;
  if (!facts) return [`${name}: marked mcp, but declares no \`tool\` (title, what it does, what it returns)`];
  const problems: string[] = [];
  if (typeof decl.mcp === 'object' && !facts.bills) problems.push(`${name}: billable, but names no request it bills (tool.bills)`);
  if (facts.endedBy && !marked.some((m) => m.name === facts.endedBy)) problems.push(`${name}: ended by ${facts.endedBy}, which is not a tool`);
  return problems;
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
  const requires = new Set(decl.tool?.requires ?? []);
  args.forEach((spec, index) => {
    if (spec.variadic && index !== args.length - 1) problems.push(`${name}: the variadic argument <${spec.name}> is not the last`);
    if (!/^[a-z][a-z0-9_-]*$/i.test(spec.name)) problems.push(`${name}: the argument name "${spec.name}" is not a property name`);
    const property = snake(spec.name.replace(/-/g, '_'));
    // A text the command line may take from stdin has no stdin here: the tool must be given it.
    const required = spec.required === true || requires.has(property);
    add({ property, from: 'arg', index, spec: required ? { ...spec, required: true } : spec });
  });
  for (const [key, spec] of Object.entries(decl.flags ?? {})) {
    if (leftOut(key, spec)) continue;
    if (spec.kind && !spec.value) problems.push(`${name}: --${kebab(key)} has a kind (${spec.kind.type}) but takes no value`);
    if (spec.kind?.type === 'integer' && spec.choices) problems.push(`${name}: --${kebab(key)} is an integer with choices`);
    add({ property: snake(key), from: 'flag', key, spec });
  }
  for (const property of requires) if (!taken.has(property)) problems.push(`${name}: requires "${property}", which is not an input`);
  return params;
}

/** What the session tells the tools: the service's prices (read when it starts). */
export interface ToolsOptions {
  /** Every marked leaf, offered or not (the generator's own test). */
  all?: boolean;
  prices?: PriceList;
}

/**
 * The session's tools, in the tree's order. Throws ToolDeclarationError when a declaration
 * marked `mcp` cannot be a tool; `all` checks every marked leaf, offered or not.
 */
export function toolsOf(root: RootSpec, session: Session, opts: ToolsOptions = {}): ToolSpec[] {
  const problems: string[] = [];
  const tools: ToolSpec[] = [];
  const marked = leavesOf(root)
    .filter(({ leaf }) => leaf.decl.mcp)
    .map(({ path, leaf }) => ({ path, leaf, name: path.join('_') }));
  const offered = offeredNames(marked, session);
  const cap = session.maxSpend !== undefined ? `${dollars(session.maxSpend)}` : undefined;
  for (const { path, leaf, name } of marked) {
    const use = leaf.decl.mcp!;
    const command = `svc ${path.join(' ')}`;
    if (!/^[a-z][a-z0-9_]{0,63}$/.test(name)) problems.push(`${command}: "${name}" is not a tool name`);
    if (typeof use === 'object' && !leaf.decl.flags?.dryRun) problems.push(`${command}: billable, but has no --dry-run to price a call with`);
    problems.push(...factProblems(command, leaf.decl, marked));
    const { billed, readOnly } = availability(use, session);
    const params = paramsOf(command, leaf.decl, problems);
    if (!offered.has(name) && !opts.all) continue;
    const tool: ToolSpec = { name, path, leaf, use, billed, readOnly, description: '', params };
    if (leaf.decl.tool) tool.description = description(tool, opts.prices, cap);
    tools.push(tool);
  }
  if (problems.length) throw new ToolDeclarationError(problems);
  return tools;
}
