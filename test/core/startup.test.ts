// The bundle that ships (dist/, built by the suites' global setup): svc's modules are in one
// file, main.cjs, each command module among them evaluated only when a line runs it; the
// libraries loaded on demand are files of their own (test/bin/binary.test.ts runs them
// through bin/svc.js). The bundle keeps svc's function names: a function svc defines once
// must be defined once in it.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { whileAwaited } from '../../src/cli/process/stranded.js';
import { root } from '../helpers/spawn.js';

const dist = join(root, 'dist');

/** The bundle files of svc's own code. */
const svcFiles = () => readdirSync(dist).filter((file) => file.endsWith('.cjs'));

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
  it("holds each of svc's modules once, in one file, and each command module behind its own import", () => {
    expect(svcFiles()).toEqual(['main.cjs']);
    const bundle = readFileSync(join(dist, 'main.cjs'), 'utf8');
    const names = functionsDefinedOnce();
    expect(names.length).toBeGreaterThan(200);
    expect(names.filter((name) => bundle.split(`function ${name}(`).length > 2)).toEqual([]);
    expect(definedIn('createContext')).toEqual(['main.cjs']);
    // The table the build wrote (src/cli/command-modules.ts): each module imported, so evaluated, only when asked for.
    expect(bundle).toMatch(/"calls\/list":\(\)=>Promise\.resolve\(\)\.then\(\(\)=>\(init_\w+\(\)/);
    // commander is a file of its own (the launcher answers --version and completion without it).
    expect(definedIn('suggestSimilar')).toEqual([]);
    expect(readFileSync(join(dist, 'lib/commander.cjs'), 'utf8')).toContain('function suggestSimilar(');
    // The sources' own way to the declarations (src/cli/declared.ts) is not in the bundle.
    expect(bundle).not.toContain('function commandFiles(');
    expect(bundle).not.toContain('function manifestOf(');
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
