// The command tree built from the declarations: a run builds only the part argv names,
// and that part must behave exactly as the whole tree does (help, errors, suggestions).
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram, commandPath, parseLine, readHelpWord, type ProgramOptions } from '../../src/cli/tree.js';
import { nameOf, type Node } from '../../src/kit/define.js';
import { declaredTree } from '../../src/cli/declared.js';

/** The command tree, as the sources declare it. */
const ROOT = await declaredTree();

/** Parses argv with the whole tree or only argv's part; what it printed, what it ran with what, and how it ended. */
async function outcome(argv: string[], partial: boolean) {
  let out = '';
  const invoked: unknown[] = [];
  const options: ProgramOptions = {
    version: '1.2.3',
    invoke: async (i) => void invoked.push([i.name, i.args, i.flags, i.globals]),
    writeOut: (t) => void (out += t),
    writeErr: (t) => void (out += t),
  };
  let code = 'ok';
  try {
    // The part built for argv parses it alone: a line that reached a command built for help
    // only (parseLine's retry with the whole tree) is an outcome of its own here.
    // (The word help is read first, as a run does.)
    const line = readHelpWord(ROOT, argv).argv;
    await buildProgram(ROOT, options, partial ? line : undefined).parseAsync([...line], { from: 'user' });
  } catch (error) {
    code = (error as { code?: string }).code ?? String(error);
  }
  return { out, code, invoked };
}

function allPaths(nodes: readonly Node[], prefix: string[] = []): string[][] {
  return nodes.flatMap((n) => {
    const path = [...prefix, nameOf(n)];
    return n.kind === 'leaf' ? [path] : [path, ...allPaths(n.commands, path)];
  });
}

describe('the command tree', () => {
  it('finds the command path in argv, skipping flags and the values of global flags', () => {
    expect(commandPath(ROOT, ['--profile', 'calls', 'calls', 'links', 'list', '--all'])).toEqual(['calls', 'links', 'list']);
    expect(commandPath(ROOT, ['--profile=work', '-y', 'account', '--json'])).toEqual(['account']);
    expect(commandPath(ROOT, readHelpWord(ROOT, ['calls', 'help', 'list']).argv)).toEqual(['calls', 'list']);
    expect(commandPath(ROOT, ['calls', 'bogus', 'list'])).toEqual(['calls']);
    expect(commandPath(ROOT, ['translate', 'calls'])).toEqual(['translate']);
  });

  it("reads the path as commander does: a group's own flags' values, `--`, and what an unknown flag leaves to the next command", () => {
    expect(commandPath(ROOT, ['mcp', '--max-spend', '5', 'log', '--verify'])).toEqual(['mcp', 'log']);
    expect(commandPath(ROOT, ['mcp', '--max-spend=5', 'log'])).toEqual(['mcp', 'log']);
    // After `--` the words are the program's operands, and commander still dispatches on the first.
    expect(commandPath(ROOT, ['--', 'calls'])).toEqual(['calls']);
    expect(commandPath(ROOT, ['--', 'version'])).toEqual(['version']);
    expect(commandPath(ROOT, ['calls', '--', 'list'])).toEqual(['calls', 'list']);
    // --help is no flag commander's parse knows: the words after it are left for a command it never reaches.
    expect(commandPath(ROOT, ['-h', 'calls'])).toEqual([]);
    // A global flag's value glued to its short form, or given with `=`.
    expect(commandPath(ROOT, ['--profile=calls', 'account'])).toEqual(['account']);
  });

  it('reads the word help in one place: first, or after a group, as --help for the words after it', () => {
    expect(readHelpWord(ROOT, ['help', 'calls', 'list'])).toEqual({ argv: ['calls', 'list', '--help'] });
    expect(readHelpWord(ROOT, ['--json', 'calls', 'help', 'links', 'list'])).toEqual({ argv: ['--json', 'calls', 'links', 'list', '--help'] });
    expect(readHelpWord(ROOT, ['--profile', 'help', 'account'])).toEqual({ argv: ['--profile', 'help', 'account'] });
    expect(readHelpWord(ROOT, ['help', 'calls', 'nope'])).toEqual({ argv: ['calls', 'nope', '--help'], unknown: { path: ['calls'], word: 'nope' } });
    // After a leaf, `help` is the leaf's argument (svc translate help --to es).
    expect(readHelpWord(ROOT, ['translate', 'help', '--to', 'es'])).toEqual({ argv: ['translate', 'help', '--to', 'es'] });
    // A flag's value after `help` is no command asked about.
    expect(readHelpWord(ROOT, ['help', '--profile', 'work', 'calls'])).toEqual({ argv: ['--profile', 'work', 'calls', '--help'] });
    expect(readHelpWord(ROOT, ['calls', 'help', '--base-url', 'http://x', 'list'])).toEqual({ argv: ['calls', '--base-url', 'http://x', 'list', '--help'] });
    expect(readHelpWord(ROOT, ['help', '--profile', 'work', 'calls', 'nope'])).toMatchObject({ unknown: { path: ['calls'], word: 'nope' } });
  });

  it('built for argv, prints the same help and errors as the whole tree, for every command', async () => {
    const cases = [
      ['--help'],
      ...allPaths(ROOT.commands).map((p) => [...p, '--help']),
      ['frobnicate'],
      ['chats', 'lst'],
      ['calls'],
      ['calls', 'list', '--bogus'],
      ['calls', 'start'],
      ['mode', 'xyz'],
      ['--test', '--live', 'account'],
      ['calls', 'help', 'list'],
      ['account', 'foo'],
      ['account', '--json'],
      ['calls', 'lines', 'lst'],
      ['calls', 'list', '--stat', 'active'],
      ['--json', 'login', '--no-browser'],
      ['--profile', 'work', 'calls', 'lines', 'add', '--country', 'US'],
      // Lines whose command path is easy to misread: each must run the same leaf with the same input.
      ['mcp', '--max-spend', '5', 'log', '--verify'],
      ['mcp', '--max-spend', '5', 'log'],
      ['mcp', 'log', '--max-spend', '5', '--allow-write', '--verify'],
      ['mcp', '--allow-write', '--live'],
      ['mcp', 'log', '--help'],
      ['--', 'version'],
      ['--', 'calls', 'list', '--json'],
      ['--json', '--', 'calls', 'list'],
      ['calls', '--', 'list'],
      ['calls', 'list', '--', '--json'],
      ['-h', 'calls'],
      ['--help', 'calls', 'list'],
      ['calls', '-h', 'list'],
      ['--json=1', 'account'],
      ['--profile=work', 'calls', 'list'],
      ['--profile', 'calls', 'calls', 'list'],
      ['--profile'],
      ['-', 'calls'],
      ['calls', '-5', 'list'],
      ['calls', '--bogus', 'list'],
      ['account', 'balance', '--json'],
      ['account', '--', 'balance'],
      ['chats', 'list', '--limit', '5'],
    ];
    for (const argv of cases) expect(await outcome(argv, true), argv.join(' ')).toEqual(await outcome(argv, false));
  });

  it('built for argv, runs what the whole tree runs for every short line of words that are easy to misread', async () => {
    const words = ['mcp', 'log', '--max-spend', '5', '--', '-h', '--profile', 'account', 'balance'];
    const lines: string[][] = [[]];
    for (let length = 1; length <= 3; length++)
      for (const line of lines.filter((l) => l.length === length - 1)) for (const word of words) lines.push([...line, word]);
    for (const argv of lines) expect(await outcome(argv, true), argv.join(' ')).toEqual(await outcome(argv, false));
  });

  it("a group's own flags are its own: in its help, not in its children's inherited options", async () => {
    const logHelp = (await outcome(['mcp', 'log', '--help'], true)).out;
    expect(logHelp).toMatch(/Inherited options:[^]*--profile/);
    expect(logHelp).not.toMatch(/--max-spend|--allow-write|--confirm-over/);
    expect((await outcome(['mcp', '--help'], true)).out).toMatch(/Options:[^]*--max-spend[^]*Inherited options:/);
    expect((await outcome(['account', 'balance', '--help'], true)).out).toMatch(/Inherited options:[^]*--profile/);
  });

  it('a command built for help only never ends a line silently: dispatched to, it parses the line again with the whole tree', async () => {
    const invoked: string[] = [];
    const options: ProgramOptions = { version: '0', invoke: async (i) => void invoked.push(i.name), writeOut: () => {}, writeErr: () => {} };
    // Built for `svc calls`, whose children are there for its help only; then handed a line that runs one.
    const program = buildProgram(ROOT, options, ['calls']);
    await expect(program.parseAsync(['calls', 'list', '--json'], { from: 'user' })).rejects.toThrow(/`svc calls list` for help only, yet the line runs it/);
    expect(invoked).toEqual([]);
    // parseLine (what a run uses) parses such a line again with the whole tree.
    const partial = buildProgram(ROOT, options, ['calls']);
    const ran = await parseLine(ROOT, options, ['calls', 'list', '--all'], partial);
    expect(invoked).toEqual(['calls list']);
    expect(ran).not.toBe(partial);
  });

  it('builds a fraction of the tree for one command', () => {
    const count = (cmd: Command): number => 1 + cmd.commands.reduce((n, c) => n + count(c), 0);
    const noop = { version: '0', invoke: async () => {}, writeOut: () => {}, writeErr: () => {} };
    const whole = count(buildProgram(ROOT, noop));
    const part = count(buildProgram(ROOT, noop, ['calls', 'list', '--json']));
    expect(whole).toBeGreaterThan(40);
    expect(part).toBe(3); // svc, calls, list
  });
});
