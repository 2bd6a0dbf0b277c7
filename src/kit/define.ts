// Commands declared where they run. A command's file is at the path of its command line
// (src/commands/calls/links/list.ts is `svc calls links list`) and exports
// `command = defineCommand({...})`: its summary, examples, arguments, flags and scopes as
// plain data; `parse(args, flags)` / `run(opts, ctx)` whose input types come from that
// declaration (ArgsOf/FlagsOf); and, last, `export default commandModule({ command, parse, run })`,
// where tsc checks that parse accepts what the declaration produces and run accepts what parse
// returns. run() returns its result (src/kit/result.ts), which the runner prints and `svc mcp`
// takes as it is. A folder is a group, declared by its index.ts (`group = defineGroup({...})`; the
// root's is src/commands/index.ts, `root = defineRoot({...})`). The build walks the folder into
// the tree as data, the manifest (src/kit/manifest.ts), from which the parser (src/cli/tree.ts),
// help, completions and man pages are made; a command's module is loaded only to run it.
//
// This file is on every start path: plain data and types only (no commander, no Node).
import type { Context } from '../context.js';
import type { Scope } from '../contract/constants.js';
import type { FlagKind } from '../validate/kinds.js';
import type { PricedEndpoint } from './dry-run.js';
import type { CommandResult } from './result.js';

/**
 * What a flag's or argument's value is (src/validate/kinds.ts, where each is read and
 * checked, once, before parse() runs):
 * `{ type: 'integer'; min?; max? }` → number; `{ type: 'duration'; min?; max? }` (`90s`,
 * `1h30m`) → milliseconds; `{ type: 'money' }` (dollars) → cents, exactly;
 * `{ type: 'id'; prefix }`, `{ type: 'language' }` (BCP 47), `{ type: 'file' }` (readable) → string.
 */
export type { FlagKind };

// ---- flags ---------------------------------------------------------------------------

/**
 * One flag. The object key is its name in camelCase; the long flag is its kebab-case
 * (`areaCode` → `--area-code`), or `--no-<name>` when `negate`.
 */
export interface FlagSpec {
  help: string;
  /** The value's placeholder (`<n>`): the flag takes a value. Absent: a boolean switch. */
  value?: `<${string}>`;
  /** A one-letter alias, e.g. `-F`. */
  short?: `-${string}`;
  /** The only values accepted (commander refuses others before parse runs). */
  choices?: readonly string[];
  /** What the value is: read and checked before parse() runs, which receives it typed. */
  kind?: FlagKind;
  /** Commander refuses the command line without it. */
  required?: boolean;
  /** Used when the flag is absent (shown in help). */
  default?: string;
  /** May be given several times: the values in order. */
  repeatable?: boolean;
  /** A boolean that defaults to true, switched off by `--no-<name>`. */
  negate?: boolean;
  /** An environment variable used when the flag is absent (the runner reads it from the context's env). */
  env?: string;
  /** Another flag (camelCase) it cannot be given with. */
  conflicts?: string;
}

export type FlagSpecs = Record<string, FlagSpec>;

/** The value a kind reads to: a number for integer, duration (ms) and money (cents), else a string. */
type KindValue<K> = K extends { type: 'integer' | 'duration' | 'money' } ? number : string;

/** One value of a flag or argument: one of its choices, its kind's value, or the word as given. */
type OneValue<S> = S extends { choices: readonly (infer C)[] } ? C : S extends { kind: infer K } ? KindValue<K> : string;

type FlagValue<F extends FlagSpec> = F extends { value: string } ? (F extends { repeatable: true } ? OneValue<F>[] : OneValue<F>) : boolean;

/** A flag parse() can count on: required, with a default, or negatable (true unless `--no-`). */
type AlwaysSet<F extends FlagSpec> = F extends { required: true } ? true : F extends { default: string } ? true : F extends { negate: true } ? true : false;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The flags as parse() receives them: typed, camelCase, optional unless always set. */
export type FlagValues<F extends FlagSpecs> = Simplify<
  { [K in keyof F as AlwaysSet<F[K]> extends true ? K : never]: FlagValue<F[K]> } & {
    [K in keyof F as AlwaysSet<F[K]> extends true ? never : K]?: FlagValue<F[K]>;
  }
>;

// ---- positional arguments ------------------------------------------------------------

export interface ArgSpec {
  /** Shown in usage as <name> (required) or [name]. */
  name: string;
  help: string;
  required?: boolean;
  /** Takes the rest of the words (last argument only). */
  variadic?: boolean;
  choices?: readonly string[];
  /** What the value is (as a flag's `kind`). */
  kind?: FlagKind;
}

type ArgValue<A extends ArgSpec> = OneValue<A>;

/** The positional words as parse() receives them, in order; a variadic argument spreads. */
export type ArgValues<A extends readonly ArgSpec[]> = A extends readonly [infer H extends ArgSpec, ...infer R extends readonly ArgSpec[]]
  ? H extends { variadic: true }
    ? ArgValue<H>[]
    : H extends { required: true }
      ? [ArgValue<H>, ...ArgValues<R>]
      : [ArgValue<H>?, ...ArgValues<R>]
  : [];

// ---- commands ------------------------------------------------------------------------

/** A command as its file declares it; its name is its file's (`list` is calls/links/list.ts), given by the manifest. */
export interface CommandSpec<F extends FlagSpecs = FlagSpecs, A extends readonly ArgSpec[] = readonly ArgSpec[]> {
  summary: string;
  /** Command lines shown under "Examples:" in its help. */
  examples?: readonly string[];
  /** More help text after the examples. */
  notes?: string;
  args?: A;
  flags?: F;
  /** The scopes its requests need (docs/contract.md "Resources"); [] for none. */
  scopes?: readonly Scope[];
  /** Left out of help and completions. */
  hidden?: boolean;
  /** Prints no JSON (a shell script): `--jq` is refused, and neither it nor `--json` is offered in completions. */
  printsNoJson?: true;
  /** A tool of `svc mcp`, and which (absent: never a tool); see McpUse. */
  mcp?: McpUse;
  /** What `svc mcp` tells an assistant of this command as a tool (required with `mcp`); see ToolFacts. */
  tool?: ToolFacts;
}

/**
 * A command as an assistant reads it (src/mcp/describe.ts): the words of a person,
 * not of the command line, and what the MCP tool annotations say (readOnlyHint follows McpUse).
 */
export interface ToolFacts {
  /** How a person would name it: "List calls". */
  title: string;
  /** What it does, in an assistant's terms: no flags, stdin or output formats. */
  does: string;
  /** Ends or removes something for good (a call, a chat, a line): destructiveHint. */
  destructive?: true;
  /** A second identical call changes nothing more: idempotentHint. */
  idempotent?: true;
  /** Reaches beyond the organization (rings a real phone): openWorldHint. */
  openWorld?: true;
  /** The service does it in this mode only: not a tool of a session in the other. */
  only?: 'test' | 'live';
  /** The tool that ends what this starts: wherever this is offered, that one is too. */
  endedBy?: string;
  /** The billable request it makes: its price (GET /v1/prices) is in the tool's description. */
  bills?: PricedEndpoint;
  /** Inputs a tool must be given that the command line may take from stdin (a text). */
  requires?: readonly string[];
  /** Inputs whose values are a closed set of the contract: event types, or event types and their families (`call.*`). */
  closed?: Readonly<Record<string, 'event_type' | 'event_pattern'>>;
  /** What one result is: an object with an id of this prefix, or a list of them (output schema). */
  returns: { list?: true; id?: string };
}

/**
 * How an AI assistant may use a command through `svc mcp` (src/mcp/):
 * - `read`: changes nothing; a tool in every session;
 * - `write`: changes the organization's objects, never billed; a tool with `--allow-write`;
 * - `{ billable }`: billed in live mode (a tool of a live session with `--max-spend`, each
 *   call priced first through the command's `--dry-run`); in test mode free, and then what
 *   `billable` says it is (`read`: it creates nothing, e.g. a translation).
 */
export type McpUse = 'read' | 'write' | { billable: 'read' | 'write' };

/** A leaf's declaration; `typeof command` carries its flag and argument types. */
export interface CommandDecl<F extends FlagSpecs = FlagSpecs, A extends readonly ArgSpec[] = readonly ArgSpec[]> extends CommandSpec<F, A> {
  readonly kind: 'command';
}

export function defineCommand<const F extends FlagSpecs = {}, const A extends readonly ArgSpec[] = []>(spec: CommandSpec<F, A>): CommandDecl<F, A> {
  return { kind: 'command', ...spec };
}

/** What parse() gets, from a declaration: `parse(args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>)`. */
export type ArgsOf<D> = D extends CommandDecl<FlagSpecs, infer A> ? ArgValues<A> : never;
export type FlagsOf<D> = D extends CommandDecl<infer F, readonly ArgSpec[]> ? FlagValues<F> : never;

/**
 * Another command, run in this process from typed input (what its parse() receives, never a
 * command line) with this run's services (its HTTP pool and stores), this run's global flags
 * (profile, base URL) and the `mode` given: what `svc mcp` runs for a tool call. `yes` answers
 * its confirmation. Nothing is printed: it resolves to what its run() returned, or its error.
 */
export interface InProcessRun {
  leaf: Leaf;
  /** `calls list`: the command's words, for its messages. */
  name: string;
  args: unknown[];
  flags: Record<string, unknown>;
  mode: 'test' | 'live';
  yes: boolean;
  /** The profile to run with (`svc mcp` fixes its session's when it starts); else this run's own choice. */
  profile?: string;
  /** The Idempotency-Key of the run's first create: the same key sends the same create again, making nothing more. */
  idempotencyKey?: string;
  /** The service's prices as the caller read them: a dry run prices from them (Context.knownPrices). */
  knownPrices?: ReadonlyArray<{ item: string; unit_amount: number; currency: string }>;
}

/** How a command run in-process ended: its exit code, and what its run() returned or the error report `--json` would print. */
export type InProcessOutcome =
  | { exitCode: 0; result: CommandResult | undefined }
  | { exitCode: number; error: { code: string; status: number | null; message: string; hint: string | null; exit_code: number } };

export type RunInProcess = (run: InProcessRun, signal: AbortSignal) => Promise<InProcessOutcome>;

/** A leaf module as the runner sees it once loaded. */
export interface LoadedCommand {
  parse(args: unknown[], flags: Record<string, unknown>): unknown;
  /**
   * `tree`: the whole command tree, for a command that describes it (svc completion) without
   * importing it; `runInProcess`: for a command that runs others (svc mcp).
   */
  run(opts: unknown, ctx: Context, tree: RootSpec, runInProcess: RunInProcess): Promise<CommandResult | void>;
  /** A command that runs until Ctrl-C (a server): being stopped so is its success, not EXIT.interrupted. */
  stopsOnInterrupt?: boolean;
}

/** What a command module must be (property types, so parameters are checked strictly). */
type Handler<D, Opts> = {
  command: D;
  parse: (args: ArgsOf<D>, flags: FlagsOf<D>) => Opts;
  run: (opts: Opts, ctx: Context, tree: RootSpec, runInProcess: RunInProcess) => Promise<CommandResult | void>;
  stopsOnInterrupt?: boolean;
};

/** A command file's default export: its declaration, checked against its parse and run. */
export interface CheckedCommand {
  readonly kind: 'checked-command';
  readonly command: CommandDecl;
  /** False for a declaration with nothing to run (`svc help`). */
  readonly runs: boolean;
}

/**
 * A command file's last line, `export default commandModule({ command, parse, run })`: tsc
 * checks here that parse accepts what the declaration produces and run accepts what parse
 * returns; the manifest refuses a command file without it.
 */
export function commandModule<D extends CommandDecl<any, any>, Opts>(module: Handler<D, Opts>): CheckedCommand {
  return { kind: 'checked-command', command: module.command, runs: true };
}

/**
 * The default export of a command answered before any command runs (`svc help`, read by
 * src/cli/tree.ts's `readHelpWord`): declared for the command list, help and completions, with
 * nothing to run.
 */
export function declaredOnly(command: CommandDecl): CheckedCommand {
  return { kind: 'checked-command', command, runs: false };
}

/** A declaration in the tree, named by its file (src/kit/manifest.ts). */
export type NamedDecl = CommandDecl & { readonly name: string };

export interface Leaf {
  readonly kind: 'leaf';
  decl: NamedDecl;
  /**
   * Where the command's code is: its module under src/commands/, without the extension
   * (`calls/list`), which is its command line. Absent for a command with nothing to run (`svc help`).
   */
  module?: string;
}

// ---- groups --------------------------------------------------------------------------

/** A group as its folder's index.ts declares it: its name is its folder's, its commands the folder's files. */
export interface GroupSpec {
  summary: string;
  examples?: readonly string[];
  hidden?: boolean;
  /**
   * Its commands and subgroups in help order, every one named; absent, they are listed
   * alphabetically. A name here with no file, or a file not named here, fails the build.
   */
  order?: readonly string[];
}

export interface GroupDecl extends GroupSpec {
  readonly kind: 'group-decl';
}

export function defineGroup(spec: GroupSpec): GroupDecl {
  return { kind: 'group-decl', ...spec };
}

/** A group in the tree: its declaration and its folder's commands, in help order. */
export interface Group extends Omit<GroupSpec, 'order'> {
  readonly kind: 'group';
  /** Its folder's name. */
  name: string;
  commands: ReadonlyArray<Leaf | Group>;
  /** `svc account` itself runs too (besides its subcommands): `account.ts` beside `account/`. */
  self?: Leaf;
}

export type Node = Leaf | Group;

/** The root as src/commands/index.ts declares it: svc's own text and global flags. */
export interface RootDecl {
  readonly kind: 'root-decl';
  summary: string;
  examples: readonly string[];
  notes: string;
  globals: FlagSpecs;
  /** The top-level commands and groups in help order, every one named (see GroupSpec). */
  order?: readonly string[];
}

export function defineRoot(spec: Omit<RootDecl, 'kind'>): RootDecl {
  return { kind: 'root-decl', ...spec };
}

/** The whole tree: the root's text and global flags, and the top-level commands. */
export interface RootSpec {
  summary: string;
  examples: readonly string[];
  notes: string;
  globals: FlagSpecs;
  commands: readonly Node[];
}

export function nameOf(node: Node): string {
  return node.kind === 'leaf' ? node.decl.name : node.name;
}

/** Left out of help and suggestions (`__complete`). */
export function isHidden(node: Node): boolean {
  return Boolean(node.kind === 'leaf' ? node.decl.hidden : node.hidden);
}

/** A repeatable flag's values as a list, whichever shape it came in (commander's array, one value, or none). */
export function repeated(value: unknown): string[] {
  if (value === undefined || value === null || value === false) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

/**
 * A repeatable flag's (or variadic argument's) values as one list, each read: the one rule for
 * both ways in. Commander's argParser hands one word and the list so far; svc mcp's input a
 * list or one value.
 */
export function readRepeated<T>(given: unknown, read: (word: string) => T, sofar?: unknown): T[] {
  // Not a list so far: nothing given yet (a declared default is replaced by the first value given).
  return [...(Array.isArray(sofar) ? (sofar as T[]) : []), ...repeated(given).map(read)];
}

/** `areaCode` → `area-code`. */
export function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

/** The commander flags string of a flag: `-F, --field <key=value>`, `--no-browser`. */
export function flagTerm(key: string, spec: FlagSpec): string {
  const long = spec.negate ? `--no-${kebab(key)}` : `--${kebab(key)}`;
  return `${spec.short ? `${spec.short}, ` : ''}${long}${spec.value ? ` ${spec.value}` : ''}`;
}
