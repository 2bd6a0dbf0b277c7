// A command's --help, laid out as gh lays out its own: its usage and what it does, its
// commands (the root's grouped), its own flags, the global flags that mean something for it
// as one short inherited section, its examples, and where to learn more (a help topic, its man
// page). Made only when help is shown; nothing here loads more than the topic names.
import type { Command, Help, Option } from 'commander';
import { TOPICS } from '../help-topics/topics.js';

/** What a command's help shows beyond commander's own: its examples and notes, and its words (`calls start`). */
export interface HelpExtras {
  words: readonly string[];
  /** Whether a subcommand is a group (built for help only, its own commands are not there to count). */
  isGroup?: (cmd: Command) => boolean;
  examples?: readonly string[] | undefined;
  notes?: string | undefined;
}

/** The root's commands by what a newcomer looks for first. */
const ROOT_GROUPS: readonly (readonly [string, readonly string[]])[] = [
  ['Core commands', ['account', 'calls', 'chats', 'translate', 'events']],
  ['Sign-in and credentials', ['login', 'logout', 'auth', 'keys', 'mode', 'profiles']],
];
const OTHER_COMMANDS = 'Additional commands';

/**
 * The global flags a command's help names, by its words: a command that reaches no service or
 * profile inherits none of the request flags, and only one that asks first takes --yes.
 */
const LOCAL = new Set(['completion', 'version', 'help', 'emulator']);
const ASKS = new Set(['login', 'logout', 'keys add', 'keys remove', 'profiles remove', 'calls start', 'calls dial', 'calls lines add', 'api', 'mcp']);
const JSON_LOCAL = new Set(['version', 'emulator']);

export function inheritedFlags(words: readonly string[]): string[] {
  const name = words.join(' ');
  if (LOCAL.has(words[0] ?? '')) return JSON_LOCAL.has(name) ? ['--json', '--jq <expr>'] : [];
  const flags = ['--profile <name>', '--test', '--live', '--json', '--jq <expr>', '--base-url <url>', '--debug', '--no-color'];
  if (ASKS.has(name) || [...ASKS].some((asks) => asks.startsWith(`${name} `))) flags.push('--yes');
  return flags;
}

/** The help topics a command's help points to, by its first word. */
const TOPICS_OF: Readonly<Record<string, readonly string[]>> = {
  login: ['credentials', 'modes'],
  logout: ['credentials'],
  auth: ['credentials', 'modes'],
  keys: ['credentials', 'modes'],
  profiles: ['credentials'],
  mode: ['modes'],
  account: ['modes', 'formatting'],
  calls: ['modes', 'formatting'],
  chats: ['modes', 'formatting'],
  translate: ['modes', 'formatting'],
  events: ['webhooks', 'formatting'],
  api: ['scripts', 'formatting'],
  mcp: ['mcp'],
  emulator: ['emulator'],
  doctor: ['troubleshooting'],
  completion: [],
  version: [],
  help: [],
};

export function topicsOf(words: readonly string[]): string[] {
  const names = new Set(TOPICS.map((topic) => topic.name));
  return (TOPICS_OF[words[0] ?? ''] ?? []).filter((name) => names.has(name));
}

/** `items` as two columns under `title`: commander's own layout (wrapping, the narrow fallback). */
function section(title: string, items: readonly (readonly [string, string])[], helper: Help): string[] {
  if (!items.length) return [];
  const width = Math.max(...items.map(([term]) => term.length));
  return [`${title}:`, ...items.map(([term, description]) => helper.formatItem(term, width, description, helper)), ''];
}

/** `text` wrapped to the help's width after `indent`. */
function wrapped(text: string, helper: Help, indent = '  '): string[] {
  const width = (helper.helpWidth ?? 80) - indent.length;
  return helper
    .boxWrap(text, width)
    .split('\n')
    .map((line) => `${indent}${line}`);
}

/** The help page of `cmd`; `extras` from its declaration, `examplesText` its examples and notes as the tree wraps them. */
export function helpPage(cmd: Command, helper: Help, extras: HelpExtras, examplesText: string): string {
  const isRoot = !cmd.parent;
  const out: string[] = [`Usage: ${helper.commandUsage(cmd)}`, ''];
  const description = helper.commandDescription(cmd);
  if (description) out.push(...wrapped(description, helper, ''), '');

  const commands = helper.visibleCommands(cmd).filter((sub) => isRoot || sub.name() !== 'help');
  const item = (sub: Command) => [helper.subcommandTerm(sub), helper.subcommandDescription(sub)] as const;
  if (isRoot) {
    const placed = new Set(ROOT_GROUPS.flatMap(([, names]) => names));
    for (const [title, names] of ROOT_GROUPS)
      out.push(...section(title, names.flatMap((name) => commands.filter((sub) => sub.name() === name)).map(item), helper));
    out.push(...section(OTHER_COMMANDS, commands.filter((sub) => !placed.has(sub.name())).map(item), helper));
  } else {
    const isGroup = extras.isGroup ?? ((sub: Command) => sub.commands.length > 0);
    const leaves = commands.filter((sub) => !isGroup(sub));
    const groups = commands.filter(isGroup);
    out.push(...section('Commands', leaves.map(item), helper), ...section('Command groups', groups.map(item), helper));
  }

  const optionItem = (option: Option) => [helper.optionTerm(option), helper.optionDescription(option)] as const;
  const own = helper.visibleOptions(cmd).filter((option) => isRoot || option.long !== '--help');
  out.push(...section(isRoot ? 'Flags' : 'Options', own.map(optionItem), helper));
  if (!isRoot) {
    const inherited = inheritedFlags(extras.words);
    out.push('Inherited options:');
    out.push(...wrapped([...inherited, '--help'].join(', '), helper));
    out.push(...wrapped('(what each does: svc --help; the variables beside them: svc help environment)', helper), '');
  }
  if (examplesText.trim()) out.push(examplesText.replace(/^\n+|\n+$/g, ''), '');

  out.push('Learn more:');
  if (isRoot) {
    out.push(...wrapped('svc help <command> or svc <command> --help for a command; svc help <topic> for a topic:', helper));
    const width = Math.max(...TOPICS.map((topic) => topic.name.length));
    for (const topic of TOPICS) out.push(helper.formatItem(topic.name, width, topic.summary, helper));
    out.push(...wrapped('man svc, man svc-<command> (man svc-calls-start), man 7 svc-<topic>', helper));
  } else {
    const topics = topicsOf(extras.words).map((name) => `svc help ${name}`);
    out.push(...wrapped([...topics, `man svc-${extras.words.join('-')}`].join(', '), helper));
  }
  return `${out.join('\n')}\n`;
}
