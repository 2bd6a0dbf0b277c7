// The repository stands alone (docs/design.md "Layout rules"): a clone in any folder, with
// nothing beside it, builds and passes its tests. So no file of the code, the tests, the
// scripts or the bench may read a path that climbs out of the repository, or cite a document
// that is not in it: the contract and the design are docs/contract.md and docs/design.md.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const FOLDERS = ['src', 'test', 'scripts', 'bench'];
const SOURCE = /\.(?:ts|tsx|mts|cts|js|mjs|cjs|sh)$/;

function files(): string[] {
  return FOLDERS.flatMap((folder) =>
    readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && SOURCE.test(entry.name))
      .map((entry) => join(entry.parentPath, entry.name)),
  );
}

/** Relative paths (in code or in a comment) that lead out of the repository from the file that names them. */
function pathsOutside(file: string, text: string, root = ROOT): string[] {
  const outside: string[] = [];
  for (const match of text.matchAll(/(?<![\w.])((?:\.\.\/)+[\w.@/-]*)/g)) {
    const target = resolve(dirname(file), match[1]!);
    if (target !== root && !target.startsWith(root + sep)) outside.push(match[1]!);
  }
  return outside;
}

/** Citations of documents that live outside the repository. */
function foreignCitations(text: string): string[] {
  const cited = text.match(/\/work\/shared\b|\bapi-contract\.md|\bservice-spec\.md|(?<!docs\/)\bdesign\.md/g);
  return cited ?? [];
}

describe('the repository stands alone', () => {
  it('finds an escaping path and a foreign citation (the checks below are not vacuous)', () => {
    const file = join(ROOT, 'test/contract/example.test.ts');
    expect(pathsOutside(file, `join(import.meta.dirname, '../../../shared/api-contract.md')`)).toEqual(['../../../shared/api-contract.md']);
    expect(pathsOutside(file, `// the rules are in ../../../shared/design.md`)).toEqual(['../../../shared/design.md']);
    expect(pathsOutside(file, `import x from '../../src/main.js'`)).toEqual([]);
    expect(foreignCitations('see design.md "HTTP" and service-spec.md §2')).toEqual(['design.md', 'service-spec.md']);
    expect(foreignCitations('see docs/design.md "HTTP" and docs/contract.md "Errors"')).toEqual([]);
  });

  it('no file of src, test, scripts or bench reads a path outside the repository or cites a document not in it', () => {
    const self = join(ROOT, 'test/contract/standalone.test.ts');
    const found: string[] = [];
    for (const file of files()) {
      if (file === self) continue;
      const text = readFileSync(file, 'utf8');
      const name = relative(ROOT, file);
      for (const path of pathsOutside(file, text)) found.push(`${name}: reads ${path}`);
      for (const cite of foreignCitations(text)) found.push(`${name}: cites ${cite}`);
    }
    expect(found).toEqual([]);
  });

  it('README.md and ARCHITECTURE.md cite the documents in docs/, not ones beside the repository', () => {
    const found = ['README.md', 'ARCHITECTURE.md'].flatMap((name) =>
      foreignCitations(readFileSync(join(ROOT, name), 'utf8')).map((cite) => `${name}: cites ${cite}`),
    );
    expect(found).toEqual([]);
  });

  it('the documents the code cites are in the repository', () => {
    const names = readdirSync(join(ROOT, 'docs'));
    expect(names).toEqual(expect.arrayContaining(['contract.md', 'design.md']));
  });
});
