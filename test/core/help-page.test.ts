// A command's --help as gh lays out its own: its own options first, the global flags that mean
// something for it as one short inherited section, its examples, and where to learn more;
// every line of every command's help within 80 columns.
import { describe, expect, it } from 'vitest';
import { isHidden, nameOf, type Node } from '../../src/kit/define.js';
import { declaredTree } from '../../src/cli/declared.js';
import { runCli } from '../helpers/cli.js';

/** The command tree, as the sources declare it. */
const ROOT = await declaredTree();

/** Every visible command's words: ['calls'], ['calls', 'start'], … */
function everyCommand(nodes: readonly Node[], prefix: string[] = []): string[][] {
  return nodes
    .filter((node) => !isHidden(node))
    .flatMap((node) => {
      const words = [...prefix, nameOf(node)];
      return [words, ...(node.kind === 'group' ? everyCommand(node.commands, words) : [])];
    });
}

const help = async (...argv: string[]) => (await runCli([...argv, '--help'], { columns: 80 })).stdout;

describe('--help', () => {
  it('calls start: its own options, then the inherited ones in three lines, not 17; then its examples and where to learn more', async () => {
    const page = await help('calls', 'start');
    const sections = [...page.matchAll(/^([A-Z][a-z ]+):$/gm)].map((m) => m[1]);
    expect(sections).toEqual(['Options', 'Inherited options', 'Examples', 'Learn more']);
    const inherited = page.slice(page.indexOf('Inherited options:'), page.indexOf('Examples:')).trim().split('\n');
    expect(inherited.length).toBeLessThanOrEqual(4);
    expect(inherited.join(' ')).toContain('--test');
    expect(inherited.join(' ')).toContain('svc help environment');
    expect(page).toMatch(/Learn more:\n {2}svc help modes, svc help formatting, man svc-calls-start\n$/);
  });

  it('names only the global flags that mean something for the command', async () => {
    const version = await help('version');
    expect(version).toMatch(/Inherited options:\n {2}--json, --jq <expr>, --help\n/);
    expect(version).not.toContain('--profile');
    expect(await help('calls', 'list')).not.toMatch(/Inherited options:[^]*--yes/);
    expect(await help('keys', 'remove')).toMatch(/Inherited options:[^]*--yes/);
  });

  it('a group lists its commands first, its subgroups apart; the root groups its commands and lists the topics', async () => {
    const calls = await help('calls');
    expect(calls.indexOf('Commands:')).toBeLessThan(calls.indexOf('Command groups:'));
    expect(calls.slice(calls.indexOf('Command groups:'))).toMatch(/^ {2}links /m);
    expect(calls).not.toMatch(/^ {2}help /m);
    const root = await help();
    expect(root.indexOf('Core commands:')).toBeLessThan(root.indexOf('Sign-in and credentials:'));
    expect(root.slice(root.indexOf('Learn more:'))).toMatch(/^ {2}environment +the environment variables svc reads$/m);
  });

  it("every command's help fits 80 columns", async () => {
    const wide: string[] = [];
    for (const words of [[], ...everyCommand(ROOT.commands)])
      for (const line of (await help(...words)).split('\n')) if (line.length > 80) wide.push(`svc ${words.join(' ')}: ${line}`);
    expect(wide).toEqual([]);
  }, 60_000);
});
