// The command lines that need no commander: a valid line (a command, its flags and
// arguments as declared, the global flags anywhere) is parsed here from the declarations,
// into the same Invocation commander's action would make (test/core/fast-parse.test.ts
// compares the two over every command). Anything else (help, an unknown flag or command,
// a missing or refused value, `--`, conflicting or missing required flags, too many or too
// few arguments) is left to commander (null), which says what is wrong: commander loads
// only for help and mistakes.
import { kebab, nameOf, type FlagSpec, type FlagSpecs, type Group, type Leaf, type Node, type RootSpec } from '../commands/define.js';
import type { Invocation, RawGlobals } from '../commands/define.js';

interface FlagTerm {
  key: string;
  spec: FlagSpec;
  /** The value a switch sets: false for `--no-<name>`. */
  switchValue: boolean;
}

/** `--area-code`, `--no-browser`, `-F` → the flag each names. */
function terms(flags: FlagSpecs | undefined): Map<string, FlagTerm> {
  const map = new Map<string, FlagTerm>();
  for (const [key, spec] of Object.entries(flags ?? {})) {
    const term = { key, spec, switchValue: !spec.negate };
    map.set(spec.negate ? `--no-${kebab(key)}` : `--${kebab(key)}`, term);
    if (spec.short) map.set(spec.short, term);
  }
  return map;
}

/** What commander's opts() holds for flags the line did not give: defaults, and true for a `--no-` flag. */
function withDefaults(given: Record<string, unknown>, flags: FlagSpecs | undefined): Record<string, unknown> {
  const opts: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(flags ?? {})) {
    if (key in given) opts[key] = given[key];
    else if (spec.default !== undefined) opts[key] = spec.default;
    else if (spec.negate) opts[key] = true;
  }
  return opts;
}

/** The flags given break none of their rules commander checks (required, conflicts). */
function acceptable(given: Record<string, unknown>, flags: FlagSpecs | undefined): boolean {
  for (const [key, spec] of Object.entries(flags ?? {})) {
    if (spec.required && !(key in given)) return false;
    if (spec.conflicts && key in given && spec.conflicts in given) return false;
  }
  return true;
}

/** `--profile=work` → `--profile`. */
function flagName(word: string): string {
  const equals = word.startsWith('--') ? word.indexOf('=') : -1;
  return equals >= 0 ? word.slice(0, equals) : word;
}

/**
 * Records the flag `argv[at]` names (`term`) in `given`, with its value; the index of the
 * last word it took, or null where commander has something to say (a value missing or
 * refused, a switch given a value, a flag given twice).
 */
function takeFlag(term: FlagTerm, argv: readonly string[], at: number, given: Record<string, unknown>): number | null {
  const word = argv[at]!;
  const equals = word.startsWith('--') ? word.indexOf('=') : -1;
  let last = at;
  let value: unknown;
  if (!term.spec.value) {
    if (equals >= 0) return null;
    value = term.switchValue;
  } else {
    const next = equals >= 0 ? word.slice(equals + 1) : argv[++last];
    if (next === undefined || (equals < 0 && next.startsWith('-'))) return null;
    if (term.spec.choices && !term.spec.choices.includes(next)) return null;
    value = next;
  }
  if (term.spec.repeatable) {
    if (term.spec.default !== undefined) return null;
    value = [...((given[term.key] as string[] | undefined) ?? []), value as string];
  } else if (term.key in given) return null; // given twice
  given[term.key] = value;
  return last;
}

/**
 * The words of argv's command path (`calls links list`), skipping flags and global flags'
 * values: what commander's tree is built for, and the command a usage error names.
 */
export function commandPath(root: RootSpec, argv: readonly string[]): string[] {
  const valued = new Set(
    Object.entries(root.globals)
      .filter(([, s]) => s.value)
      .flatMap(([key, s]) => [`--${kebab(key)}`, ...(s.short ? [s.short] : [])]),
  );
  const path: string[] = [];
  let children: readonly Node[] = root.commands;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') break;
    if (word.startsWith('-')) {
      if (valued.has(word)) i++;
      continue;
    }
    // `svc calls help list`: commander's help command of a group names the leaf.
    if (word === 'help' && path.length > 0) continue;
    const next = children.find((c) => nameOf(c) === word);
    if (!next) break;
    path.push(word);
    if (next.kind === 'leaf') break;
    children = next.commands;
  }
  return path;
}

export function fastInvocation(root: RootSpec, argv: readonly string[]): Invocation | null {
  const globalTerms = terms(root.globals);
  const globalsGiven: Record<string, unknown> = {};
  const leafGiven: Record<string, unknown> = {};
  const operands: string[] = [];
  const path: string[] = [];
  /** The groups passed on the way, nearest last. */
  const groups: Group[] = [];
  let children: readonly Node[] = root.commands;
  let leaf: Leaf | null = null;
  let leafTerms: Map<string, FlagTerm> | null = null;

  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word.startsWith('-') && word !== '-') {
      if (word === '--') return null;
      const name = flagName(word);
      const global = globalTerms.get(name);
      const own = leafTerms?.get(name);
      // A name both levels know, or a flag before its command is known: commander's to sort out.
      if ((global && own) || (!global && !own)) return null;
      const last = takeFlag((global ?? own)!, argv, i, global ? globalsGiven : leafGiven);
      if (last === null) return null;
      i = last;
      continue;
    }
    if (!leaf) {
      // (`help` is commander's: `svc calls help list`.)
      if (word === 'help') return null;
      const child = children.find((node) => nameOf(node) === word);
      if (child) {
        path.push(word);
        if (child.kind === 'leaf') {
          leaf = child;
          leafTerms = terms(child.decl.flags);
        } else {
          groups.push(child);
          children = child.commands;
        }
        continue;
      }
      // A word that names no subcommand: the group's own command's argument, if it runs itself.
      const group = groups.pop();
      if (!group?.self) return null;
      leaf = group.self;
      leafTerms = terms(leaf.decl.flags);
    }
    operands.push(word);
  }
  if (!leaf) {
    // A bare group that runs itself (`svc account`); any other stops short of a command (help).
    const group = groups.pop();
    if (!group?.self) return null;
    leaf = group.self;
  }

  const decl = leaf.decl;
  // A global flag the command also declares is commander's to sort out.
  if (Object.keys(decl.flags ?? {}).some((key) => key in root.globals)) return null;
  if (!acceptable(leafGiven, decl.flags) || !acceptable(globalsGiven, root.globals)) return null;
  const args = decl.args ?? [];
  const variadic = args[args.length - 1]?.variadic === true;
  if (operands.length < args.filter((a) => a.required).length) return null;
  if (!variadic && operands.length > args.length) return null;
  for (const [index, operand] of operands.entries()) {
    const spec = args[Math.min(index, args.length - 1)]!;
    if (spec.choices && !spec.choices.includes(operand)) return null;
  }

  // A group on the way that runs itself with flags of its own would add them to commander's
  // optsWithGlobals(): commander's to work out (no such group today).
  if (groups.some((group) => Object.keys(group.self?.decl.flags ?? {}).length > 0)) return null;
  const flags = withDefaults(leafGiven, decl.flags);
  // commander's optsWithGlobals(): the command's own flags, the root's over them.
  const globals = { ...flags, ...withDefaults(globalsGiven, root.globals) };
  return { name: path.join(' '), leaf, args: operands, flags, globals: globals as RawGlobals, root };
}
