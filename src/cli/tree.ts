// The parser: commander, built from the manifest (the commands' declarations as data,
// src/kit/manifest.ts), parses every command line. Each flag's and argument's value is
// read by its declaration (choices, kind: src/validate/kinds.ts) as commander meets it, so a
// bad value is refused once, with the words of the rule that refused it. A run builds only
// the part argv names: the commands on argv's path and, where the path stops at a group, that
// group's children (for its help and "did you mean"), so start-up does not pay for ~45
// commands and their flags. Tests build it all to compare. The word `help` is read here
// alone (readHelpWord).
import { Argument, Command, Help, Option } from 'commander';
import { globalOptions } from '../shared/globals.js';
import { exampleLines } from './example-lines.js';
import { helpPage, type HelpExtras } from './help-page.js';
import { readValue } from '../validate/kinds.js';
import type { Invocation } from './run.js';
import { UsageError } from '../errors.js';
import {
  flagTerm,
  kebab,
  isHidden,
  nameOf,
  readRepeated,
  type ArgSpec,
  type FlagSpecs,
  type Group,
  type Leaf,
  type Node,
  type RootSpec,
} from '../kit/define.js';

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

/** The flags one command reads itself (commander's `_findOption` looks at its own only): with a value, and switches. */
interface OwnFlags {
  valued: ReadonlySet<string>;
  switches: ReadonlySet<string>;
}

function ownFlags(flags: FlagSpecs | undefined, switches: readonly string[] = []): OwnFlags {
  const own = { valued: new Set<string>(), switches: new Set<string>(switches) };
  for (const [key, spec] of Object.entries(flags ?? {}))
    for (const term of [spec.negate ? `--no-${kebab(key)}` : `--${kebab(key)}`, ...(spec.short ? [spec.short] : [])])
      (spec.value ? own.valued : own.switches).add(term);
  return own;
}

/** A word of argv (index -1: the rest of a group of short switches, `-yj` → `-j`). */
interface Word {
  word: string;
  index: number;
}

const looksLikeFlag = (word: string) => word.length > 1 && word.startsWith('-');

/**
 * One command's reading of its words, as commander 14's `parseOptions` does it for svc's kinds
 * of flag (a value always required, none variadic): its own flags and their values are taken
 * out; words before the first flag it does not know are operands, that flag and everything
 * after are left to the next command; after `--` every word is an operand (or, once a flag was
 * left over, left over too, with the `--`).
 */
function readOwnFlags(words: readonly Word[], own: OwnFlags): { operands: Word[]; unknown: Word[] } {
  const operands: Word[] = [];
  const unknown: Word[] = [];
  let dest = operands;
  let group: Word | null = null;
  for (let i = 0; i < words.length || group;) {
    const arg: Word = group ?? words[i++]!;
    group = null;
    const { word } = arg;
    if (word === '--') {
      if (dest === unknown) dest.push(arg);
      dest.push(...words.slice(i));
      break;
    }
    if (looksLikeFlag(word) && own.valued.has(word)) {
      i++;
      continue;
    }
    if (looksLikeFlag(word) && own.switches.has(word)) continue;
    if (word.length > 2 && word[0] === '-' && word[1] !== '-') {
      const short = word.slice(0, 2);
      if (own.valued.has(short)) continue;
      if (own.switches.has(short)) {
        group = { word: `-${word.slice(2)}`, index: -1 };
        continue;
      }
    }
    if (/^--[^=]+=/.test(word) && own.valued.has(word.slice(0, word.indexOf('=')))) continue;
    if (dest === operands && looksLikeFlag(word)) dest = unknown;
    dest.push(arg);
  }
  return { operands, unknown };
}

/** A word of argv that names a command, or would: its place in argv and what it names. */
interface CommandWord {
  index: number;
  word: string;
  /** The command of that name under the words before it, if there is one. */
  node: Node | undefined;
}

/**
 * argv's command words in turn, down the tree, read as commander reads them (each command
 * reads its own flags, then hands its first operand to the subcommand of that name): stops
 * after a word that names no command or a leaf. The one reading of which words of a command
 * line are its command path, so the part of the tree built for a line is the part commander
 * walks.
 */
function* commandWords(root: RootSpec, argv: readonly string[]): Generator<CommandWord> {
  let children: readonly Node[] = root.commands;
  let own = ownFlags(root.globals, ['--version']);
  let operands: Word[] = [];
  let rest: Word[] = argv.map((word, index) => ({ word, index }));
  for (;;) {
    const read = readOwnFlags(rest, own);
    operands = [...operands, ...read.operands];
    rest = read.unknown;
    const first = operands.shift();
    if (!first) return;
    const node = children.find((c) => nameOf(c) === first.word);
    yield { index: first.index, word: first.word, node };
    if (!node || node.kind === 'leaf') return;
    children = node.commands;
    own = ownFlags(node.self?.decl.flags);
  }
}

/**
 * The words of argv's command path (`calls links list`), as commander finds them: what the
 * tree is built for, and the command a usage error names.
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
  for (const { index, word, node } of commandWords(root, argv)) {
    if (word === 'help') {
      const helped = [...argv.slice(0, index), ...argv.slice(index + 1), '--help'];
      // The commands asked about are read as the line is, flags' values skipped.
      const asked = [...commandWords(root, helped)];
      const missing = asked.find((w) => !w.node);
      return missing ? { argv: helped, unknown: { path: asked.filter((w) => w.node).map((w) => w.word), word: missing.word } } : { argv: helped };
    }
    if (!node || node.kind === 'leaf') break;
  }
  return { argv };
}

/** What each built command's help shows beyond commander's own (src/cli/help-page.ts). */
const helpExtras = new WeakMap<Command, HelpExtras>();
/** The commands built for a group of the tree, with their children or not. */
const groupCommands = new WeakSet<Command>();
const isGroupCommand = (cmd: Command) => groupCommands.has(cmd);

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
      option.argParser<unknown>(spec.repeatable ? (word, sofar) => readRepeated(word, read, sofar) : read);
    }
    // Help shows the default as declared (`5m`); the command gets it read, as a given value is.
    if (spec.default !== undefined) option.default(readValue(spec, spec.default, term), spec.default);
    // A required flag is checked when the command runs (requireFlags), after commander has
    // refused any unknown flag: `--langauges` is a typo with its "did you mean", not a missing --languages.
    if (spec.conflicts) option.conflicts(spec.conflicts);
    cmd.addOption(option);
  }
}

/** Commander's own refusal of a required flag the line left out (its words, its error code). */
function requireFlags(cmd: Command, flags: FlagSpecs | undefined): void {
  for (const [key, spec] of Object.entries(flags ?? {})) {
    const option = cmd.options.find((o) => o.attributeName() === key);
    if (spec.required && option && cmd.getOptionValue(key) === undefined)
      cmd.error(`error: required option '${option.flags}' not specified`, { code: 'commander.missingMandatoryOptionValue' });
  }
}

function addArgs(cmd: Command, args: readonly ArgSpec[] | undefined): void {
  for (const spec of args ?? []) {
    const name = `${spec.name}${spec.variadic ? '...' : ''}`;
    const argument = new Argument(spec.required ? `<${name}>` : `[${name}]`, spec.help);
    if (spec.choices) argument.choices(spec.choices);
    if (spec.choices || spec.kind) {
      const read = (word: string) => readValue(spec, word, spec.name.toUpperCase());
      argument.argParser<unknown>(spec.variadic ? (word, sofar) => readRepeated(word, read, sofar) : read);
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
    // A command's help names the global flags that mean something for it in one short
    // section (src/cli/help-page.ts), as gh's "INHERITED FLAGS".
    // Descriptions wrap beside their terms down to 24 columns (commander's default is 40).
    // A command's line in its parent's help is its name alone, as gh lists them: its arguments
    // and flags are its own help's, and `api [options] <method-or-path> [path]` made the
    // column half the width of an 80-column terminal.
    // Inherited flags are the root's alone: a group's own flags (`svc mcp --max-spend`) are
    // not its children's (refuseGroupFlags).
    .configureHelp({
      minWidthToWrap: 24,
      formatItem,
      subcommandTerm: (cmd) => cmd.name(),
      formatHelp: (cmd, helper) => {
        const extras = helpExtras.get(cmd) ?? { words: [] };
        return helpPage(cmd, helper, extras, examplesText(extras.examples, extras.notes, helpWidth(options)));
      },
    })
    .showSuggestionAfterError(true)
    .addHelpCommand(false);
  addFlags(program, root.globals);
  // The root's notes (the environment's variables) are the environment topic's, listed under "Learn more".
  helpExtras.set(program, { words: [], examples: root.examples });

  const path = argv ? commandPath(root, readHelpWord(root, argv).argv) : null;

  const runs = (cmd: Command, name: string, target: Leaf): Command =>
    cmd.action(async (...received: unknown[]) => {
      const self = received[received.length - 1] as Command;
      requireFlags(self, target.decl.flags);
      const args = (self.processedArgs as unknown[]).flat().filter((a) => a !== undefined);
      refuseGroupFlags(self, name);
      await options.invoke({ name, leaf: target, args, flags: self.opts(), globals: globalOptions(self.optsWithGlobals()), root });
    });

  /** `full`: the command as it runs; otherwise what help and suggestions show of it. */
  const add = (parent: Command, node: Node, prefix: string, full: boolean, rest: string[] | null): void => {
    const name = nameOf(node);
    const qualified = prefix ? `${prefix} ${name}` : name;
    const cmd = parent.command(name, { hidden: isHidden(node) });
    const spec = node.kind === 'leaf' ? node.decl : node.self?.decl;
    cmd.description(node.kind === 'leaf' ? node.decl.summary : node.summary);
    if (node.kind === 'group') groupCommands.add(cmd);
    if (!full) {
      // Off argv's path a command is a line of its parent's help (its name and summary) and a
      // name "did you mean" picks from. Should commander run it all the same (argv read
      // otherwise than commander reads it), it takes any words and says so, and parseLine
      // parses the line again with the whole tree: it never ends a line having run nothing.
      cmd
        .helpOption(false)
        .allowUnknownOption()
        .allowExcessArguments()
        .action(() => {
          throw new BuiltForHelpOnly(`svc built \`svc ${qualified}\` for help only, yet the line runs it`);
        });
      return;
    }
    if (spec) {
      addArgs(cmd, spec.args);
      addFlags(cmd, spec.flags);
    }
    helpExtras.set(cmd, {
      words: qualified.split(' '),
      isGroup: isGroupCommand,
      examples: node.kind === 'leaf' ? node.decl.examples : node.examples,
      notes: spec?.notes,
    });
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

/** What a command built for help only throws when commander runs it: parseLine then uses the whole tree. */
export class BuiltForHelpOnly extends Error {}

/**
 * Parses a command line with `program`, the tree built for it. Should commander run a command
 * built for help only, the line is parsed again with the whole tree. Resolves to the program
 * that parsed it.
 */
export async function parseLine(
  root: RootSpec,
  options: ProgramOptions,
  argv: readonly string[],
  program = buildProgram(root, options, argv),
): Promise<Command> {
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return program;
  } catch (error) {
    if (!(error instanceof BuiltForHelpOnly)) throw error;
  }
  const whole = buildProgram(root, options);
  await whole.parseAsync([...argv], { from: 'user' });
  return whole;
}

/** `svc mcp log`: a command's words, without `svc`. */
function wordsOf(cmd: Command): string {
  const words: string[] = [];
  for (let at: Command | null = cmd; at?.parent; at = at.parent) words.unshift(at.name());
  return words.join(' ');
}

/**
 * A group's own flags (its `self` command's: `svc mcp --max-spend`) on a line that runs one
 * of its children: commander reads them into the group wherever they stand, and the child
 * would run without them. Refused, never ignored.
 */
function refuseGroupFlags(cmd: Command, name: string): void {
  for (let group = cmd.parent; group?.parent; group = group.parent) {
    const reader: Command = group;
    const given = reader.options.filter((option) => reader.getOptionValueSource(option.attributeName()) === 'cli').map((option) => option.long ?? option.flags);
    if (given.length)
      throw new UsageError(
        `${given.join(' and ')} ${given.length === 1 ? 'is a flag' : 'are flags'} of \`svc ${wordsOf(reader)}\` itself, not of \`svc ${name}\``,
        `run \`svc ${name} --help\` for its flags`,
      );
  }
}

/** The whole tree, with no runner: for tests. */
export function commandTree(root: RootSpec, version = '0.0.0'): Command {
  return buildProgram(root, { version, invoke: async () => {}, writeOut: () => {}, writeErr: () => {} });
}
