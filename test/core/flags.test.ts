// The flag rules no one command owns, parsed apart from running (the runF seam): `--` and the
// global flags around any command, and what every declaration must hold (its kinds, its
// scopes). Each command's own parse rules are at its mirror path, test/commands/<path>.test.ts
// (test/core/mirror.test.ts holds every command to one). No emulator, no context: parseCli's
// runtime throws if anything is touched.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { parseCli, parsing, refused } from '../helpers/parse.js';
import { declaredTree } from '../../src/cli/declared.js';
import { nameOf, type FlagKind, type FlagsOf, type Node } from '../../src/kit/define.js';

/** The command tree, as the sources declare it. */
const ROOT = await declaredTree();

describe('the command line around a command', () => {
  it('`--` before the command: commander reads the words after it as the command, and that command runs', async () => {
    const r = await parseCli(['--', 'version']);
    expect(r).toMatchObject({ exitCode: 0, command: 'version', opts: {} });
    expect(await parseCli(['--json', '--', 'calls', 'list'])).toMatchObject({ exitCode: 0, command: 'calls list' });
    expect(await parseCli(['calls', '--', 'list'])).toMatchObject({ exitCode: 0, command: 'calls list' });
  });
});

describe('the declarations', () => {
  it('global flags parse around any command', async () => {
    expect(await refused('help', 'nope')).toContain("unknown command 'nope'");
    // The runF seam names each leaf as the tree does.
    const r = await parseCli(['--profile', 'work', '--test', 'calls', 'list', '--json']);
    expect(r).toMatchObject({ exitCode: 0, command: 'calls list' });
    expect(await refused('--test', '--live', 'account')).toContain("option '--test' cannot be used with option '--live'");
  });

  it("every declared kind is one the parse reads: an id's prefix is the contract's, a default reads as its kind", async () => {
    const { ID_PREFIX } = await import('../../src/contract/constants.js');
    const { readKind } = await import('../../src/validate/kinds.js');
    const specs = (nodes: readonly Node[]): Array<{ name: string; kind?: FlagKind; default?: string }> =>
      nodes.flatMap((n) => {
        const decls = n.kind === 'leaf' ? [n.decl] : n.self ? [n.self.decl] : [];
        const own = decls.flatMap((d) => [...Object.entries(d.flags ?? {}).map(([name, f]) => ({ name, ...f })), ...(d.args ?? [])]);
        return n.kind === 'leaf' ? own : [...own, ...specs(n.commands)];
      });
    const kinded = specs(ROOT.commands).filter((s) => s.kind);
    expect(kinded.length).toBeGreaterThan(20);
    for (const spec of kinded) {
      if (spec.kind!.type === 'id') expect(Object.values(ID_PREFIX), spec.name).toContain(spec.kind!.prefix);
      if (spec.default !== undefined) expect(() => readKind(spec.kind!, spec.default!, spec.name), spec.name).not.toThrow();
    }
  });

  it('parse() receives each kind typed (FlagsOf infers it from the declaration)', async () => {
    const tail = await import('../../src/commands/events/tail.js');
    const login = await import('../../src/commands/login.js');
    expectTypeOf<FlagsOf<typeof tail.command>['maxEvents']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<FlagsOf<typeof tail.command>['since']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<FlagsOf<typeof login.command>['timeout']>().toEqualTypeOf<number>();
    expect(await parsing('events tail').ok('events', 'tail', '--max-events', '3', '--timeout', '2m')).toMatchObject({ maxEvents: 3, deadlineMs: 120_000 });
    expect(await parsing('events tail').ok('events', 'tail', '--idle-timeout', '2m')).toMatchObject({ idleTimeoutMs: 120_000 });
    expect(await parsing('login').ok('login', '--timeout', '90s')).toMatchObject({ timeoutSeconds: 90 });
  });
});

describe('declared scopes', () => {
  it("cover the scopes of every endpoint a command's module names (docs/contract.md Resources)", async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { ENDPOINTS } = await import('../../src/contract/endpoints.js');
    const dir = join(import.meta.dirname, '../../src/commands');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.endsWith('index.ts'));
    // Uses that fail soft, so the command does not need the scope: events tail names the
    // organization in its header when the key may read the account.
    const optional: Record<string, string[]> = { [join('events', 'tail.ts')]: ['account:read'] };
    let checked = 0;
    for (const file of files) {
      const module = (await import(join(dir, file))) as { command?: { scopes?: readonly string[] } };
      const declared = module.command?.scopes;
      if (!declared) continue;
      const text = readFileSync(join(dir, file), 'utf8');
      const used = Object.entries(ENDPOINTS)
        .filter(([name]) => text.includes(`'${name}'`))
        .map(([, e]) => e.scope)
        .filter((s): s is NonNullable<typeof s> => s !== null);
      expect(
        used.filter((s) => !declared.includes(s) && !optional[file]?.includes(s)),
        file,
      ).toEqual([]);
      checked++;
    }
    expect(checked).toBeGreaterThan(30);
  });

  it('are declared by every command, [] for one that asks the service nothing', () => {
    const undeclared: string[] = [];
    const walk = (nodes: readonly Node[], prefix: string) => {
      for (const node of nodes) {
        const name = `${prefix}${nameOf(node)}`;
        if (node.kind === 'leaf') {
          if (!node.decl.scopes) undeclared.push(name);
        } else {
          if (node.self && !node.self.decl.scopes) undeclared.push(name);
          walk(node.commands, `${name} `);
        }
      }
    };
    walk(ROOT.commands, '');
    // `svc api` asks whatever path it is given: its scopes are that endpoint's.
    expect(undeclared).toEqual(['api']);
  });
});
