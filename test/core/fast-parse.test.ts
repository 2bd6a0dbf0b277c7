// The parse without commander (src/cli/fast-parse.ts) against commander itself, over every
// command in the tree: for each, command lines built from its declaration (its flags in
// every form, global flags before, between and after, arguments, repeats), and lines that
// are wrong. Wherever the fast parse answers, commander must make the same invocation; on
// every valid line it must answer (or svc would pay for commander anyway); on every wrong
// line it must not (commander says what is wrong).
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../src/commands/index.js';
import { isHidden, kebab, nameOf, type CommandDecl, type FlagSpec, type Leaf, type Node } from '../../src/commands/define.js';
import { fastInvocation } from '../../src/cli/fast-parse.js';
import { buildProgram } from '../../src/cli/tree.js';
import type { Invocation } from '../../src/commands/define.js';

/** Commander's failure for a line (its code and message), or null when it accepts the line. */
async function commanderFailure(argv: readonly string[]): Promise<{ code: string; message: string } | null> {
  const program = buildProgram(ROOT, { version: '0.0.0', invoke: async () => {}, writeOut: () => {}, writeErr: () => {}, outputError: () => {} }, argv);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return null;
  } catch (error) {
    const { code, message } = error as { code: string; message: string };
    return { code, message };
  }
}

async function viaCommander(argv: readonly string[]): Promise<Invocation | null> {
  let made: Invocation | null = null;
  const program = buildProgram(
    ROOT,
    {
      version: '0.0.0',
      invoke: async (invocation) => {
        made = invocation;
      },
      writeOut: () => {},
      writeErr: () => {},
      outputError: () => {},
    },
    argv,
  );
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch {
    return null; // commander refused it, or printed help
  }
  return made;
}

/** Every runnable command: its words and declaration (a group that runs itself included). */
function commands(): { path: string[]; leaf: Leaf }[] {
  const found: { path: string[]; leaf: Leaf }[] = [];
  const walk = (nodes: readonly Node[], prefix: string[]) => {
    for (const node of nodes) {
      const path = [...prefix, nameOf(node)];
      if (node.kind === 'leaf') found.push({ path, leaf: node });
      else {
        if (node.self) found.push({ path, leaf: node.self });
        walk(node.commands, path);
      }
    }
  };
  walk(ROOT.commands, []);
  return found;
}

const valueOf = (spec: FlagSpec) => spec.choices?.[0] ?? 'v1';
const long = (key: string, spec: FlagSpec) => (spec.negate ? `--no-${kebab(key)}` : `--${kebab(key)}`);

/** The flags in a form: each flag once (the first of a conflicting pair only), repeatable ones twice. */
function flagWords(decl: CommandDecl, form: 'space' | 'equals' | 'short', only: 'required' | 'all'): string[] {
  const words: string[] = [];
  const given = new Set<string>();
  for (const [key, spec] of Object.entries(decl.flags ?? {})) {
    if (only === 'required' && !spec.required) continue;
    if (spec.conflicts && given.has(spec.conflicts)) continue;
    given.add(key);
    const name = form === 'short' && spec.short ? spec.short : long(key, spec);
    const once = (value: string) => (!spec.value ? [name] : form === 'equals' && name.startsWith('--') ? [`${name}=${value}`] : [name, value]);
    words.push(...once(valueOf(spec)));
    if (spec.repeatable && spec.value) words.push(...once('v2'));
  }
  return words;
}

function argWords(decl: CommandDecl, all: boolean): string[] {
  const words: string[] = [];
  for (const spec of decl.args ?? []) {
    if (!spec.required && !all) break;
    const value = spec.choices?.[0] ?? `${spec.name}-1`;
    words.push(value);
    if (spec.variadic) words.push(spec.choices?.[1] ?? `${spec.name}-2`);
  }
  return words;
}

/** Is `words` (past the command's path) a flag/argument list commander accepts? Each line is also compared. */
async function agree(argv: string[]): Promise<Invocation | null> {
  const fast = fastInvocation(ROOT, argv);
  const slow = await viaCommander(argv);
  if (fast) {
    expect(slow, `commander refused what the fast parse took: svc ${argv.join(' ')}`).not.toBeNull();
    expect({ ...fast, root: null }, `svc ${argv.join(' ')}`).toEqual({ ...slow!, root: null });
    expect(fast.leaf).toBe(slow!.leaf);
  }
  return slow && fast;
}

const all = commands();

describe('parsing without commander', () => {
  it('finds every command of the tree', () => {
    expect(all.length).toBeGreaterThan(40);
  });

  for (const { path, leaf } of all) {
    it(`svc ${path.join(' ')}: the same invocation as commander, for every valid form`, async () => {
      const decl = leaf.decl;
      const required = flagWords(decl, 'space', 'required');
      const lines = [
        [...path, ...argWords(decl, false), ...required],
        [...path, ...argWords(decl, true), ...flagWords(decl, 'space', 'all')],
        [...path, ...flagWords(decl, 'equals', 'all'), ...argWords(decl, true)],
        [...path, ...flagWords(decl, 'short', 'all'), ...argWords(decl, true)],
        ['--profile', 'work', '--json', ...path, ...argWords(decl, false), ...required],
        [...path, ...argWords(decl, false), ...required, '--debug', '--base-url=http://127.0.0.1:9', '--no-color', '-y', '--test'],
        [path[0]!, '--live', ...path.slice(1), ...argWords(decl, true), ...required],
      ];
      for (const line of lines) {
        const commander = await viaCommander(line);
        const fast = await agree(line);
        // Where commander takes the line, the fast parse must too (`svc help …` never gets
        // here: execute() makes it `… --help` first).
        if (commander && path[0] !== 'help') expect(fast, `the fast parse left a valid line to commander: svc ${line.join(' ')}`).not.toBeNull();
      }
    });
  }

  it('leaves every wrong or unusual line to commander', async () => {
    const leafWithChoices = all.find(({ leaf }) => Object.values(leaf.decl.flags ?? {}).some((s) => s.choices && s.value))!;
    const [choiceKey, choiceSpec] = Object.entries(leafWithChoices.leaf.decl.flags!).find(([, s]) => s.choices && s.value)!;
    const leafWithRequired = all.find(({ leaf }) => Object.values(leaf.decl.flags ?? {}).some((s) => s.required));
    const lines: string[][] = [
      [],
      ['--help'],
      ['calls', '--help'],
      ['calls', 'list', '-h'],
      ['help', 'calls'],
      ['calls'],
      ['cals', 'list'],
      ['calls', 'list', '--nope'],
      ['calls', 'list', '--json', '--json'],
      ['calls', 'list', '--profile'],
      ['calls', 'list', '--profile', '--json'],
      ['calls', 'list', '--test', '--live'],
      ['calls', 'list', '--', 'x'],
      ['calls', 'list', 'extra-word'],
      ['--json=yes', 'calls', 'list'],
      [...leafWithChoices.path, ...argWords(leafWithChoices.leaf.decl, false), `--${kebab(choiceKey)}`, 'not-a-choice'],
      ...(leafWithRequired ? [[...leafWithRequired.path, ...argWords(leafWithRequired.leaf.decl, false)]] : []),
    ];
    expect(choiceSpec.choices).not.toContain('not-a-choice');
    for (const line of lines) {
      expect(fastInvocation(ROOT, line), `svc ${line.join(' ')}`).toBeNull();
    }
  });
});
