// Start-up: `--version` and `--help` must not load any command's code or heavy library.
// Checked on the real bundle layout: esbuild (with scripts/bundle.mjs's plugin that gives
// the command tree only each module's declaration) splits the code; everything main.js
// imports statically is loaded at start-up, so none of it may be a command's code or a
// heavy library. (How fast that is belongs to the benchmarks.)
import { describe, expect, it } from 'vitest';
import { build } from 'esbuild';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { declarationsOnly } from '../../scripts/bundle.mjs';

const HEAVY = ['undici', '@napi-rs/keyring', '@inquirer', 'ora', 'cli-table3', 'chalk', 'proper-lockfile', 'open', 'zod', 'hono', 'eventsource-parser'];

describe('start-up', () => {
  it('main.js, and the command-line parser it loads for --help, statically load no command module and no heavy library', async () => {
    const outdir = mkdtempSync(join(tmpdir(), 'svc-startup-'));
    const result = await build({
      entryPoints: { main: 'src/main.ts', execute: 'src/cli/execute.ts' },
      outdir,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20.18',
      external: ['@napi-rs/keyring'],
      define: { __SVC_VERSION__: '"0.0.0"' },
      plugins: [declarationsOnly],
      metafile: true,
      write: false,
      logLevel: 'silent',
    });
    const outputs = result.metafile.outputs;
    // Walk the static import graph from both entries (dynamic imports load later, on demand).
    const stack = Object.keys(outputs).filter((o) => ['src/main.ts', 'src/cli/execute.ts'].includes(outputs[o]!.entryPoint ?? ''));
    expect(stack).toHaveLength(2);
    const seen = new Set<string>();
    const external: string[] = [];
    while (stack.length) {
      const out = stack.pop()!;
      if (seen.has(out)) continue;
      seen.add(out);
      for (const imp of outputs[out]!.imports) {
        if (imp.kind !== 'import-statement') continue;
        if (imp.external) external.push(imp.path);
        else stack.push(imp.path);
      }
    }
    const inputs = [...seen].flatMap((o) => Object.keys(outputs[o]!.inputs));
    expect(inputs.some((i) => i.includes('src/main.ts'))).toBe(true);
    // The command tree: the indexes, and of each command module only its declaration.
    const commandFiles = inputs.filter((i) => i.includes('src/commands/'));
    expect(commandFiles.filter((i) => !i.startsWith('svc-declaration:') && !i.endsWith('/index.ts'))).toEqual([]);
    expect(commandFiles.filter((i) => i.startsWith('svc-declaration:')).length).toBeGreaterThan(30);
    // Nothing a command uses: no context, config, credentials, HTTP, output or validation
    // (only the redaction of error messages, which every run may need).
    expect(inputs.filter((i) => /^src\/(api|auth|config|credentials|io|validate)\/|^src\/context\.ts$/.test(i) && i !== 'src/io/redact.ts')).toEqual([]);
    for (const lib of HEAVY) {
      expect(
        inputs.filter((i) => i.includes(`node_modules/${lib}/`)),
        lib,
      ).toEqual([]);
      expect(
        external.filter((e) => e === lib || e.startsWith(`${lib}/`)),
        lib,
      ).toEqual([]);
    }
    // Each command is its own chunk, reached only by a dynamic import.
    const dynamic = Object.values(outputs).flatMap((o) => o.imports.filter((i) => i.kind === 'dynamic-import'));
    expect(dynamic.length).toBeGreaterThan(20);
  });
});
