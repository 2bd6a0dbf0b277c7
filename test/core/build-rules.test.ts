// The two rules the bundle (scripts/bundle.mjs) relies on without saying so at build time,
// checked here by name so that breaking one fails with the rule, not with a broken bundle:
// 1. A command's declaration (`export const command = defineCommand({…})`) is copied into
//    the core alone, with the imports it names (the `declarationsOnly` slicer): it may use
//    nothing of its own module (a local constant, a helper) but imported names.
// 2. A module of one command (src/commands/<name>/…) that another command imports is moved
//    into the core (main.cjs), so every command line loads it: the list of such modules is
//    kept here, so a new one is a decision, not an accident.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const commandsDir = join(root, 'src/commands');
const sources = readdirSync(commandsDir, { recursive: true })
  .map(String)
  .filter((file) => file.endsWith('.ts'))
  .map((file) => join(commandsDir, file));

/** The free identifiers a declaration uses that its module's value imports do not provide. */
function unimportedNames(file: string): string[] | null {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const declaration = source.statements.find(
    (s): s is ts.VariableStatement =>
      ts.isVariableStatement(s) &&
      Boolean(s.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) &&
      s.declarationList.declarations.some((d) => d.name.getText(source) === 'command'),
  );
  if (!declaration) return null;
  const imported = new Set<string>();
  for (const statement of source.statements) {
    const clause = ts.isImportDeclaration(statement) ? statement.importClause : undefined;
    if (!clause || clause.isTypeOnly) continue;
    if (clause.name) imported.add(clause.name.text);
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) imported.add(bindings.name.text);
    if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) if (!e.isTypeOnly) imported.add(e.name.text);
  }
  const used = new Set<string>();
  const initializer = declaration.declarationList.declarations[0]!.initializer!;
  (function walk(node: ts.Node) {
    if (ts.isIdentifier(node)) {
      const parent = node.parent;
      const isPropertyName = (ts.isPropertyAssignment(parent) && parent.name === node) || (ts.isPropertyAccessExpression(parent) && parent.name === node);
      if (!isPropertyName) used.add(node.text);
    }
    ts.forEachChild(node, walk);
  })(initializer);
  return [...used].filter((name) => !imported.has(name) && !['undefined', 'Infinity'].includes(name));
}

describe("the bundle's rules", () => {
  it('1. a declaration uses only imported names (the core gets the declaration and its imports alone)', () => {
    const declared = sources.map((file) => ({ file: relative(root, file), names: unimportedNames(file) })).filter((d) => d.names !== null);
    expect(declared.length).toBeGreaterThan(40);
    expect(declared.filter((d) => d.names!.length > 0)).toEqual([]);
  });

  it("2. the modules one command takes from another's folder (each moved into the core, loaded on every line) are these", () => {
    const commandOf = (file: string) => relative(commandsDir, file).split(/[\\/]/)[0]!.replace(/\.ts$/, '');
    const crossing = new Set<string>();
    for (const file of sources) {
      const text = readFileSync(file, 'utf8');
      for (const [, spec] of text.matchAll(/^import (?!type )[^;]*? from '(\.[^']+)';/gm)) {
        const target = resolve(dirname(file), spec!.replace(/\.js$/, '.ts'));
        if (!target.startsWith(commandsDir + '/') || /[\\/]index\.ts$/.test(file)) continue;
        const owner = commandOf(target);
        // The vocabulary and src/commands/shared/ are the core's by design.
        if (owner === 'define' || owner === 'shared' || owner === commandOf(file)) continue;
        crossing.add(relative(root, target));
      }
    }
    expect([...crossing].sort()).toEqual(CORE_BY_IMPORT);
  });
});

/** Modules in a command's folder that other commands import (the bundle puts them in main.cjs). */
const CORE_BY_IMPORT: string[] = [
  'src/commands/calls/ordered.ts',
  'src/commands/calls/pacer.ts',
  'src/commands/calls/views.ts',
  'src/commands/dry-run.ts',
  'src/commands/events/secret.ts',
  'src/commands/keys/shared.ts',
];
