// A line commander refuses, said in svc's words where commander's would mislead or read as a
// parser's: extra arguments name what the command takes; an unknown subcommand that lives in
// another group points there (`svc profiles switch` → `svc auth switch`); a "did you mean"
// that only shares letters with the typo (`--call` → `--all`) is left out. Otherwise
// commander's words stay, with the command's --help to read.
import { UsageError } from '../errors.js';
import { nameOf, type Node, type RootSpec } from '../kit/define.js';

export interface CommanderRefusal {
  code: string;
  message: string;
}

/**
 * What commander had read of the line when it refused it: the refusing command's words that
 * are no flag it knows (commander's `args`), so nothing is read back out of its English.
 */
export interface RefusedLine {
  operands: readonly string[];
}

/** The flag commander did not know: the first word of the rest that is a flag (not a negative number). */
function unknownFlag(operands: readonly string[]): string | undefined {
  return operands.find((word) => word.startsWith('-') && word !== '-' && Number.isNaN(Number(word)));
}

/** The node at the end of `path` (command words), if any. */
function nodeAt(root: RootSpec, path: readonly string[]): Node | undefined {
  let children: readonly Node[] = root.commands;
  let node: Node | undefined;
  for (const word of path) {
    node = children.find((c) => nameOf(c) === word);
    if (!node) return undefined;
    children = node.kind === 'group' ? node.commands : [];
  }
  return node;
}

/** Every command line of the tree that ends in `word`, e.g. `svc auth switch` for "switch". */
function leavesNamed(root: RootSpec, word: string): string[] {
  const found: string[] = [];
  const walk = (nodes: readonly Node[], path: string[]) => {
    for (const node of nodes) {
      const here = [...path, nameOf(node)];
      if (nameOf(node) === word && !(node.kind === 'leaf' && node.decl.hidden)) found.push(here.join(' '));
      if (node.kind === 'group' && !node.hidden) walk(node.commands, here);
    }
  };
  walk(root.commands, ['svc']);
  return found;
}

function tooManyArguments(root: RootSpec, path: readonly string[], command: string, got: number): UsageError {
  const node = nodeAt(root, path);
  const args = node?.kind === 'leaf' ? (node.decl.args ?? []) : [];
  const takes =
    args.length === 0
      ? 'takes no arguments'
      : `takes ${args.length === 1 ? 'one argument' : `${args.length} arguments`} (${args.map((a) => `<${a.name}>`).join(' ')})`;
  return new UsageError(
    `too many arguments: ${command} ${takes}, not ${got}`,
    `${args.length ? 'quote a value that holds spaces; ' : ''}run \`${command} --help\` for its arguments and flags`,
  );
}

/** Commander's refusal of a line under `path` (its command words) as svc's usage error. */
export function usageFromCommander(error: CommanderRefusal, line: RefusedLine, root: RootSpec, path: readonly string[]): UsageError {
  const command = ['svc', ...path].join(' ');
  let words = error.message
    .replace(/^error: /, '')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
  const help = `run \`${command} --help\` for its arguments and flags`;
  if (error.code === 'commander.excessArguments') return tooManyArguments(root, path, command, line.operands.length);
  if (error.code === 'commander.unknownCommand') {
    const unknown = line.operands[0];
    const elsewhere = unknown ? leavesNamed(root, unknown).filter((found) => found !== `${command} ${unknown}`) : [];
    if (elsewhere.length) return new UsageError(`${command} has no command '${unknown}'`, `did you mean \`${elsewhere.join('` or `')}\`?`);
  }
  if (error.code === 'commander.unknownOption') {
    // A typo keeps its first letter: a suggestion that does not is another flag altogether.
    // (The suggestion is commander's alone, said only in its words: the one thing read from them.)
    const typed = unknownFlag(line.operands)?.replace(/^-+/, '');
    const suggested = /\(Did you mean -*([^?]*)\?\)/.exec(words)?.[1];
    if (typed && suggested && typed[0] !== suggested[0]) words = words.replace(/\s*\(Did you mean [^)]*\)/, '');
  }
  return new UsageError(words, help);
}
