// The shipped man pages (man/) are exactly what the command declarations generate, one page
// per visible command, as the completions are (test/core/completion.test.ts).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isHidden, nameOf, type Node } from '../../src/commands/define.js';
import { ROOT } from '../../src/commands/index.js';

const root = join(import.meta.dirname, '..', '..');

/** Every visible command's page name: svc-calls, svc-calls-start, … */
function pageNames(nodes: readonly Node[], prefix: string): string[] {
  return nodes
    .filter((node) => !isHidden(node))
    .flatMap((node) => {
      const name = `${prefix}-${nameOf(node)}`;
      return [name, ...(node.kind === 'group' ? pageNames(node.commands, name) : [])];
    });
}

describe('man pages', () => {
  it('man/ matches the command declarations (else: npm run man)', () => {
    const check = spawnSync(process.execPath, ['scripts/gen-man.mjs', '--check'], { cwd: root, encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  }, 60_000);

  it('has svc(1) and a page for each visible command, and none for a hidden one', () => {
    const pages = readdirSync(join(root, 'man')).sort();
    expect(pages).toEqual(['svc', ...pageNames(ROOT.commands, 'svc')].map((name) => `${name}.1`).sort());
    expect(pages).not.toContain('svc-__complete.1');
  });

  it("a leaf's page has its synopsis, options, examples, environment, exit status and files", () => {
    const page = readFileSync(join(root, 'man', 'svc-calls-start.1'), 'utf8');
    expect(page).toMatch(/^\.SH NAME\nsvc\\-calls\\-start \\- start an interpreted call between two languages$/m);
    for (const section of ['SYNOPSIS', 'DESCRIPTION', 'OPTIONS', 'GLOBAL OPTIONS', 'EXAMPLES', 'ENVIRONMENT', 'EXIT STATUS', 'FILES', 'SEE ALSO'])
      expect(page).toContain(`\n.SH ${section}\n`);
    expect(page).toContain('\\fB\\-\\-languages\\fR \\fI<a,b>\\fR');
    expect(page).toContain('svc calls start \\-\\-languages en,es');
    expect(page).toMatch(/\.TP\n\\fB130\\fR\ninterrupted/);
  });
});
