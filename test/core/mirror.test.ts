// A command's tests are where a newcomer guesses: src/commands/<path>.ts (`svc calls links
// list` is calls/links/list.ts) has test/commands/<path>.test.ts; a command with many tests keeps
// its themes beside it, in test/commands/<path>/<theme>.test.ts (events/tail/frames.test.ts),
// and nothing else lives under test/commands/. Each mirror file parses its own command (parsing('calls links list').ok(…)
// there fails on a line that runs another), so every leaf of the tree has its parse rules tested.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { declaredTree } from '../../src/cli/declared.js';
import { commandFiles } from '../../src/kit/command-files.js';
import { nameOf, type Node } from '../../src/kit/define.js';
import { root } from '../helpers/spawn.js';

/** Every command file's path without extension (`calls/links/list`); a group's index.ts is no command. */
const commands = commandFiles(join(root, 'src/commands')).filter((path) => path !== 'index' && !path.endsWith('/index'));
const mirrorOf = (path: string) => `test/commands/${path}.test.ts`;

describe('the mirror path', () => {
  it('every command file has its tests at its mirror path', () => {
    expect(commands.length).toBeGreaterThan(35);
    const missing = commands.filter((path) => !existsSync(join(root, mirrorOf(path))));
    expect(missing.map((path) => `add ${mirrorOf(path)}: a command's tests live at its mirror path (src/commands/${path}.ts)`)).toEqual([]);
  });

  it('every file under test/commands/ mirrors a command file', () => {
    const files = readdirSync(join(root, 'test/commands'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name).slice(join(root, 'test/commands/').length).replace(/\\/g, '/'));
    // A file mirrors a command at its path, or is a theme of one in the folder named by it.
    const mirrored = (file: string) => {
      const path = file.slice(0, -'.test.ts'.length);
      return commands.includes(path) || commands.includes(path.slice(0, path.lastIndexOf('/')));
    };
    const orphans = files.filter((file) => !(file.endsWith('.test.ts') && mirrored(file)));
    expect(
      orphans.map(
        (file) =>
          `test/commands/${file} mirrors no command (no src/commands/${file.replace(/\.test\.ts$/, '')}.ts): move its tests to the mirror path of the command they test, test/commands/<path>.test.ts (or test/commands/<path>/<theme>.test.ts)`,
      ),
    ).toEqual([]);
  });

  it('every leaf of the declared tree has its parse rules tested at its mirror path', async () => {
    const leaves = (nodes: readonly Node[], prefix: string[] = []): string[][] =>
      nodes.flatMap((n) =>
        n.kind === 'leaf' ? [[...prefix, nameOf(n)]] : [...(n.self ? [[...prefix, n.name]] : []), ...leaves(n.commands, [...prefix, n.name])],
      );
    const all = leaves((await declaredTree()).commands);
    expect(all.length).toBeGreaterThan(35);
    // `svc help A B` never runs its leaf: execute() turns it into `svc A B --help` (declared for help and completions).
    const untested = all
      .filter((words) => words.join(' ') !== 'help')
      .filter((words) => {
        const file = join(root, mirrorOf(words.join('/')));
        if (!existsSync(file)) return true;
        const text = readFileSync(file, 'utf8');
        return !text.includes(`parsing('${words.join(' ')}')`) || !/\bok\(/.test(text);
      });
    expect(
      untested.map(
        (words) =>
          `${mirrorOf(words.join('/'))}: parse \`svc ${words.join(' ')}\` there (const { ok } = parsing('${words.join(' ')}'); ok(…)), its flags and arguments`,
      ),
    ).toEqual([]);
  });
});
