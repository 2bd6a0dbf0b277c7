// The parser: commander, built from the manifest (the commands' declarations as data,
// src/commands/manifest.ts), parses every command line. Each flag's and argument's value is
// read by its declaration (choices, kind: src/validate/kinds.ts) as commander meets it, so a
// bad value is refused once, with the words of the rule that refused it. A run builds only
// the part argv names: the commands on argv's path and, where the path stops at a group, that
// group's children (for its help and "did you mean"), so start-up does not pay for ~45
// commands and their flags. Tests build it all to compare. The word `help` is read here
// alone (readHelpWord).
import { Argument, Command, Help, Option } from 'commander';
import { globalOptions } from '../shared/globals.js';
import { exampleLines } from './example-lines.js';
import { readValue } from '../validate/kinds.js';
import type { Invocation } from './run.js';
import { flagTerm, kebab, isHidden, nameOf, type ArgSpec, type FlagSpecs, type Group, type Leaf, type Node, type RootSpec } from '../commands/define.js';

export interface ProgramOptions {
  version: string;
  /** Runs the chosen leaf (src/cli/execute.ts). */
  invoke(invocation: Invocation): Promise<void>;
  writeOut(text: string): void;
  writeErr(text: string): void;
  /** Where commander's error messages go (default: writeErr). */
  outputError?(text: string): void;
  columns?: number;
}

/** The global flags that take a value (`--profile`), whose next word is no command. */
const valuedGlobals = (root: RootSpec) =>
  new Set(
    Object.entries(root.globals)
      .filter(([, s]) => s.value)
      .flatMap(([key, s]) => [`--${kebab(key)}`, ...(s.short ? [s.short] : [])]),
  );

/** A word of argv that names a command, or would: its place in argv and what it names. */
interface CommandWord {
  index: number;
  word: string;
  /** The command of that name under the words before it, if there is one. */
  node: Node | undefined;
}

/**
 * argv's command words in turn, skipping flags and global flags' values, down the tree:
 * stops after a word that names no command or a leaf, and at `--`. The one reading of which
 * words of a command line are its command path.
 */
function* commandWords(root: RootSpec, argv: readonly string[]): Generator<CommandWord> {
  const valued = valuedGlobals(root);
  let children: readonly Node[] = root.commands;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') return;
    if (word.startsWith('-')) {
      if (valued.has(word)) i++;
      continue;
    }
    const node = children.find((c) => nameOf(c) === word);
    yield { index: i, word, node };
    if (!node || node.kind === 'leaf') return;
    children = node.commands;
  }
}

/**
 * The words of argv's command path (`calls links list`), skipping flags and global flags'
 * values: what the tree is built for, and the command a usage error names.
 */
export function commandPath(root: RootSpec, argv: readonly string[]): string[] {
  const path: string[] = [];
  for (const { word, node } of commandWords(root, argv)) if (node) path.push(word);
  return path;
}

/** A command line asking for help with the word `help`, as the `--help` it means. */
export interface HelpWord {
  /** `svc help calls list` and `svc calls help list` as `svc calls list --help`; any other line as given. */
  argv: readonly string[];
  /** `svc help calls nope`: the first word no command has, and the path before it. */
  unknown?: { path: string[]; word: string };
}

/**
 * The one reading of the word `help` as a command: first (`svc help calls list`, svc's own
 * `help` command) or after a group (`svc calls help list`, commander's help command of a
 * group). Either asks for the help of the words after it, at any depth.
 */
export function readHelpWord(root: RootSpec, argv: readonly string[]): HelpWord {
  const path: string[] = [];
  for (const { index, word, node } of commandWords(root, argv)) {
    if (word === 'help') {
      const rest = argv.slice(index + 1);
      const asked = [...path, ...rest.filter((w) => !w.startsWith('-'))];
      const helped = [...argv.slice(0, index), ...rest, '--help'];
      const found = commandPath(root, helped);
      return found.length < asked.length ? { argv: helped, unknown: { path: found, word: asked[found.length]! } } : { argv: helped };
    }
    if (!node || node.kind === 'leaf') break;
    path.push(word);
  }
  return { argv };
}

/** The width a help page wraps to: the terminal's, else 80 (a pipe or a file). */
const helpWidth = (options: Pick<ProgramOptions, 'columns'>) => options.columns ?? 80;

/** The text after a command's flags (its examples and notes), wrapped to `width`: made only when help is shown. */
function examplesText(lines: readonly string[] | undefined, notes: string | undefined, width: number): string {
  const examples = lines?.length ? `\nExamples:\n${lines.map((line) => exampleLines(line, width, '  $ ', '      ').join('\n')).join('\n')}\n` : '';
  return examples + (notes ? `\n${new Help().boxWrap(notes, width)}\n` : '');
}

/**
 * A flag or command and its description in help: commander's two columns, or, where the
 * terminal is too narrow for a description beside the widest term, the description under it.
 */
function formatItem(term: string, termWidth: number, description: string, helper: Help): string {
  const width = helper.helpWidth ?? 80;
  if (!description || width - termWidth - 4 >= helper.minWidthToWrap) return Help.prototype.formatItem.call(helper, term, termWidth, description, helper);
  return `  ${term}\n${helper.boxWrap(description, width - 6).replace(/^/gm, '      ')}`;
}

function addFlags(cmd: Command, flags: FlagSpecs | undefined): void {
  for (const [key, spec] of Object.entries(flags ?? {})) {
    const option = new Option(flagTerm(key, spec), spec.help);
    const term = spec.negate ? `--no-${kebab(key)}` : `--${kebab(key)}`;
    // (choices() for help's "(choices: …)"; the value is read by readValue, which checks them.)
    if (spec.choices) option.choices(spec.choices);
    if (spec.value) {
      const read = (word: string) => readValue(spec, word, term);
      option.argParser<unknown>(spec.repeatable ? (word, previous) => [...((previous as unknown[] | undefined) ?? []), read(word)] : read);
    }
    // Help shows the default as declared (`5m`); the command gets it read, as a given value is.
    if (spec.default !== undefined) option.default(readValue(spec, spec.default, term), spec.default);
    if (spec.required) option.makeOptionMandatory();
    if (spec.conflicts) option.conflicts(spec.conflicts);
    cmd.addOption(option);
  }
}

function addArgs(cmd: Command, args: readonly ArgSpec[] | undefined): void {
  for (const spec of args ?? []) {
    const name = `${spec.name}${spec.variadic ? '...' : ''}`;
    const argument = new Argument(spec.required ? `<${name}>` : `[${name}]`, spec.help);
    if (spec.choices) argument.choices(spec.choices);
    if (spec.choices || spec.kind) {
      const read = (word: string) => readValue(spec, word, spec.name.toUpperCase());
      argument.argParser<unknown>(spec.variadic ? (word, previous) => [...((previous as unknown[] | undefined) ?? []), read(word)] : read);
    }
    cmd.addArgument(argument);
  }
}

/**
 * The program. With `argv`, only the commands on its path are built in full (the rest
 * as name, arguments and flags, enough for help and suggestions); without, everything.
 */
export function buildProgram(root: RootSpec, options: ProgramOptions, argv?: readonly string[]): Command {
  const program = new Command('svc');
  program
    .description(root.summary)
    .version(options.version, '--version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .exitOverride()
    .configureOutput({
      writeOut: options.writeOut,
      writeErr: options.writeErr,
      getOutHelpWidth: () => helpWidth(options),
      getErrHelpWidth: () => helpWidth(options),
      getOutHasColors: () => false,
      getErrHasColors: () => false,
      ...(options.outputError ? { outputError: options.outputError } : {}),
    })
    // Every command's help lists the global flags too: `svc login --help` shows --profile.
    // Descriptions wrap beside their terms down to 24 columns (commander's default is 40).
    // A command's line in its parent's help is its name alone, as gh lists them: its arguments
    // and flags are its own help's, and `api [options] <method-or-path> [path]` made the
    // column half the width of an 80-column terminal.
    .configureHelp({ showGlobalOptions: true, minWidthToWrap: 24, formatItem, subcommandTerm: (cmd) => cmd.name() })
    .showSuggestionAfterError(true)
    .addHelpCommand(false);
  addFlags(program, root.globals);
  program.addHelpText('after', () => examplesText(root.examples, root.notes, helpWidth(options)));

  const path = argv ? commandPath(root, readHelpWord(root, argv).argv) : null;

  const runs = (cmd: Command, name: string, target: Leaf): Command =>
    cmd.action(async (...received: unknown[]) => {
      const self = received[received.length - 1] as Command;
      const args = (self.processedArgs as unknown[]).flat().filter((a) => a !== undefined);
      await options.invoke({ name, leaf: target, args, flags: self.opts(), globals: globalOptions(self.optsWithGlobals()), root });
    });

  /** `full`: the command as it runs; otherwise what help and suggestions show of it. */
  const add = (parent: Command, node: Node, prefix: string, full: boolean, rest: string[] | null): void => {
    const name = nameOf(node);
    const qualified = prefix ? `${prefix} ${name}` : name;
    const cmd = parent.command(name, { hidden: isHidden(node) });
    const spec = node.kind === 'leaf' ? node.decl : node.self?.decl;
    cmd.description(node.kind === 'leaf' ? node.decl.summary : node.summary);
    if (spec) {
      addArgs(cmd, spec.args);
      // Off argv's path a command shows only as a line of its parent's help, where any flag
      // at all makes the "[options]" of its usage: one is enough (the rest cost start-up).
      addFlags(cmd, full ? spec.flags : Object.fromEntries(Object.entries(spec.flags ?? {}).slice(0, 1)));
    }
    if (!full) return;
    cmd.addHelpText('after', () => examplesText(node.kind === 'leaf' ? node.decl.examples : node.examples, spec?.notes, helpWidth(options)));
    if (node.kind === 'leaf') {
      runs(cmd, qualified, node);
      return;
    }
    if (node.self) runs(cmd, qualified, node.self);
    addChildren(cmd, node, qualified, rest);
  };

  // On the way down argv's path only the next command is needed; where the path stops, a
  // group's children are listed in its help and are what "did you mean" picks from.
  const addChildren = (cmd: Command, group: Pick<Group, 'commands'>, prefix: string, rest: string[] | null): void => {
    for (const child of group.commands) {
      const onPath = rest === null || rest[0] === nameOf(child);
      if (onPath || rest?.length === 0) add(cmd, child, prefix, onPath, rest === null ? null : onPath ? rest.slice(1) : []);
    }
  };

  addChildren(program, root, '', path);
  return program;
}

/** The whole tree, with no runner: for tests. */
export function commandTree(root: RootSpec, version = '0.0.0'): Command {
  return buildProgram(root, { version, invoke: async () => {}, writeOut: () => {}, writeErr: () => {} });
}
