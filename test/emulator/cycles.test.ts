// No import cycles (docs/design.md "Layout rules"), counting the type-only `import('…')`
// expressions the lint's import-x/no-cycle does not follow: the emulator had
// guards.ts → http.ts → auth.ts → state.ts → guards.ts through one of them (issue 24).
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Each file's relative imports: static, type-only and `import('…')` alike, resolved to .ts files. */
function importGraph(files: string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)'(\.{1,2}\/[^']+)'/g)].map((m) => resolve(dirname(file), m[1]!));
    graph.set(
      file,
      targets.flatMap((target) => [target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx')].filter((t) => known.has(t))),
    );
  }
  return graph;
}

function findCycle(graph: Map<string, string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): string[] | null => {
    if (state.get(file) === 'done') return null;
    if (state.get(file) === 'open') return [...stack.slice(stack.indexOf(file)), file];
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(file, 'done');
    return null;
  };
  for (const file of graph.keys()) {
    const cycle = visit(file);
    if (cycle) return cycle;
  }
  return null;
}

describe('imports', () => {
  it('form no cycle anywhere in src, type-only imports included', () => {
    const cycle = findCycle(importGraph(sourceFiles(src)));
    expect(cycle?.map((f) => relative(src, f)).join(' → ') ?? null).toBeNull();
  });
});
