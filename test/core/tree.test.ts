// The command tree built from the declarations: a run builds only the part argv names,
// and that part must behave exactly as the whole tree does (help, errors, suggestions).
import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram } from '../../src/cli/tree.js';
import { commandPath, readHelpWord } from '../../src/cli/tree.js';
import { nameOf, type Node } from '../../src/commands/define.js';
import { ROOT } from '../../src/commands/index.js';

/** Parses argv with the whole tree or only argv's part; what it printed and how it ended. */
async function outcome(argv: string[], partial: boolean) {
  let out = '';
  const invoked: string[] = [];
  const program = buildProgram(
    ROOT,
    { version: '1.2.3', invoke: async (i) => void invoked.push(i.name), writeOut: (t) => void (out += t), writeErr: (t) => void (out += t) },
    partial ? argv : undefined,
  );
  let code = 'ok';
  try {
    await program.parseAsync(argv, { from: 'user' });
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
    expect(commandPath(ROOT, ['--', 'calls'])).toEqual([]);
    expect(commandPath(ROOT, ['translate', 'calls'])).toEqual(['translate']);
  });

  it('reads the word help in one place: first, or after a group, as --help for the words after it', () => {
    expect(readHelpWord(ROOT, ['help', 'calls', 'list'])).toEqual({ argv: ['calls', 'list', '--help'] });
    expect(readHelpWord(ROOT, ['--json', 'calls', 'help', 'links', 'list'])).toEqual({ argv: ['--json', 'calls', 'links', 'list', '--help'] });
    expect(readHelpWord(ROOT, ['--profile', 'help', 'account'])).toEqual({ argv: ['--profile', 'help', 'account'] });
    expect(readHelpWord(ROOT, ['help', 'calls', 'nope'])).toEqual({ argv: ['calls', 'nope', '--help'], unknown: { path: ['calls'], word: 'nope' } });
    // After a leaf, `help` is the leaf's argument (svc translate help --to es).
    expect(readHelpWord(ROOT, ['translate', 'help', '--to', 'es'])).toEqual({ argv: ['translate', 'help', '--to', 'es'] });
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
    ];
    for (const argv of cases) expect(await outcome(argv, true), argv.join(' ')).toEqual(await outcome(argv, false));
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
