// The bundle that ships (dist/, built by the suites' global setup): each of svc's modules is
// in one file, so a command line loads the core and its command's own file, each once
// (test/bin/binary.test.ts runs them through bin/svc.js). The bundle keeps svc's function
// names: a function svc defines once must be defined in one bundle file.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { whileAwaited } from '../../src/cli/process/stranded.js';
import { root } from '../helpers/spawn.js';

const dist = join(root, 'dist');

/** The bundle files of svc's own code: the core and each command's file. */
const svcFiles = () => readdirSync(dist).filter((file) => /^(main|cmd-.+)\.cjs$/.test(file));

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
    expect(definedIn('createContext')).toEqual(['main.cjs']);
    expect(definedIn('createApiClient')).toEqual(['main.cjs']);
    expect(definedIn('runCommand')).toEqual(['main.cjs']);
    // A command's own code in its file; what several commands use (calls' list flags) in the core.
    expect(definedIn('parseTail')).toEqual(['cmd-events.cjs']);
    expect(definedIn('parseListFlags')).toEqual(['main.cjs']);
    const names = functionsDefinedOnce();
    expect(names.length).toBeGreaterThan(200);
    expect(names.filter((name) => definedIn(name).length > 1)).toEqual([]);
    // commander is a file of its own (the launcher answers --version, help on a pipe and completion without it).
    expect(definedIn('suggestSimilar')).toEqual([]);
    expect(readFileSync(join(dist, 'lib/commander.cjs'), 'utf8')).toContain('function suggestSimilar(');
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
