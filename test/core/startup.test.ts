// The bundle that ships (dist/, built by the suites' global setup): each of svc's modules is
// in one file, so a command line loads the core and its command's own file, each once
// (test/bin/binary.test.ts runs them through bin/svc.js). esbuild names each module it
// inlines in a comment line (`// src/cli/context.ts`), which is what is counted here.
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { whileAwaited } from '../../src/cli/stranded.js';
import { root } from '../helpers/spawn.js';

const dist = join(root, 'dist');

/** Each module of src/ inlined in a bundle file, with the files that hold it. */
function modulesByFile(): Map<string, string[]> {
  const files = readdirSync(dist, { recursive: true })
    .map(String)
    .filter((file) => /\.c?js$/.test(file));
  const holders = new Map<string, string[]>();
  for (const file of files)
    for (const [, module] of readFileSync(join(dist, file), 'utf8').matchAll(/^\/\/ (src\/\S+\.ts)$/gm))
      holders.set(module!, [...(holders.get(module!) ?? []), file]);
  return holders;
}

describe('the bundle in dist/', () => {
  it("holds each of svc's modules in one file: the core once, each command's code once", () => {
    const holders = modulesByFile();
    expect(holders.get('src/cli/context.ts')).toEqual(['main.cjs']);
    expect(holders.get('src/api/client.ts')).toEqual(['main.cjs']);
    expect(holders.get('src/cli/tree.ts')).toEqual(['main.cjs']);
    expect(holders.get('src/commands/calls/list.ts')).toEqual(['cmd-calls.cjs']);
    // (calls' helpers, which chats uses too)
    expect(holders.get('src/commands/calls/shared.ts')).toEqual(['cmd-calls.cjs']);
    const twice = [...holders].filter(([, files]) => files.length > 1);
    expect(twice).toEqual([]);
    // commander is a file of its own, loaded for help and usage errors only.
    expect(readFileSync(join(dist, 'main.cjs'), 'utf8')).not.toContain('node_modules/commander/');
    expect(readFileSync(join(dist, 'lib/commander.cjs'), 'utf8')).toContain('node_modules/commander/lib/command.js');
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
