// The bundle that ships (dist/, built by the suites' global setup): each of svc's modules is
// in one file (esbuild's split: main.cjs, a file per command module, shared chunks), so a
// command line loads the core and its command's own file, each once (test/bin/binary.test.ts
// runs them through bin/svc.js). The bundle keeps svc's function names: a function svc
// defines once must be defined in one bundle file.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { whileAwaited } from '../../src/cli/process/stranded.js';
import { root } from '../helpers/spawn.js';

const dist = join(root, 'dist');

/** The bundle files of svc's own code: the entry, each command module's file and the chunks they share. */
const svcFiles = () => readdirSync(dist).filter((file) => /^(main|cmd-.+|chunk-.+)\.cjs$/.test(file));

/** The files that define `function name(`. */
function definedIn(name: string): string[] {
  return svcFiles().filter((file) => readFileSync(join(dist, file), 'utf8').includes(`function ${name}(`));
}

/** Names of functions that one module of src/ (the emulator aside) defines and no other does. */
function functionsDefinedOnce(): string[] {
  const counts = new Map<string, number>();
  const sources = readdirSync(join(root, 'src'), { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.ts') && !file.startsWith('emulator') && !file.endsWith('.d.ts'));
  for (const file of sources)
    for (const [, name] of readFileSync(join(root, 'src', file), 'utf8').matchAll(/^(?:export )?(?:async )?function\*? ?(\w+)\(/gm))
      counts.set(name!, (counts.get(name!) ?? 0) + 1);
  return [...counts].filter(([, count]) => count === 1).map(([name]) => name);
}

describe('the bundle in dist/', () => {
  it("holds each of svc's modules in one file: the core once, each command's code once", () => {
    const [context] = definedIn('createContext');
    expect(definedIn('createContext')).toHaveLength(1);
    expect(definedIn('createApiClient')).toHaveLength(1);
    // The core a command line runs is no command's file; a command's own code is in its module's file.
    expect(context).toMatch(/^chunk-/);
    expect(definedIn('runCommand')).toEqual(['main.cjs']);
    expect(definedIn('parseTail')).toEqual(['cmd-events-tail.cjs']);
    // What several commands use (calls' list flags) is in a chunk they share.
    expect(definedIn('parseListFlags')).toEqual([expect.stringMatching(/^chunk-/)]);
    const names = functionsDefinedOnce();
    expect(names.length).toBeGreaterThan(200);
    expect(names.filter((name) => definedIn(name).length > 1)).toEqual([]);
    // commander is a file of its own (the launcher answers --version and completion without it).
    expect(definedIn('suggestSimilar')).toEqual([]);
    expect(readFileSync(join(dist, 'lib/commander.cjs'), 'utf8')).toContain('function suggestSimilar(');
    // The sources' own way to the declarations (src/commands/declared.ts) is not in the bundle.
    expect(definedIn('commandModulePaths')).toEqual([]);
  });
});

describe('a command left stranded', () => {
  it('is reported when the event loop runs dry under it (Node would exit 0 with nothing)', async () => {
    const stranded: string[] = [];
    let settle!: () => void;
    const work = whileAwaited(new Promise<void>((resolve) => (settle = resolve)), () => stranded.push('stranded'));
    process.emit('beforeExit', 0);
    expect(stranded).toEqual(['stranded']);
    settle();
    await work;
    // Once it has settled, the watch is gone.
    process.emit('beforeExit', 0);
    expect(stranded).toEqual(['stranded']);
  });
});
