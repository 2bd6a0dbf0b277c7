// The man pages the build writes (dist/man/, scripts/gen-man.mjs): one page per visible command
// and topic, made from the command declarations, as the completions are
// (test/core/completion.test.ts); and what git keeps of them is current (npm run generate).
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isHidden, nameOf, type Node } from '../../src/kit/define.js';
import { declaredTree } from '../../src/cli/declared.js';

/** The command tree, as the sources declare it. */
const ROOT = await declaredTree();

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
  it('src/help-topics\' modules and package.json\'s "man" list match the declarations and topics (else: npm run generate)', () => {
    const check = spawnSync(process.execPath, ['scripts/gen-man.mjs', '--check'], { cwd: root, encoding: 'utf8' });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  }, 60_000);

  it('has svc(1) and a page for each visible command, and none for a hidden one', () => {
    const pages = readdirSync(join(root, 'dist', 'man'))
      .filter((file) => file.endsWith('.1'))
      .sort();
    expect(pages).toEqual(['svc', ...pageNames(ROOT.commands, 'svc')].map((name) => `${name}.1`).sort());
    expect(pages).not.toContain('svc-__complete.1');
  });

  it("a leaf's page has its synopsis, options, examples, environment, exit status and files", () => {
    const page = readFileSync(join(root, 'dist', 'man', 'svc-calls-start.1'), 'utf8');
    expect(page).toMatch(/^\.SH NAME\nsvc\\-calls\\-start \\- start an interpreted call between two languages$/m);
    for (const section of ['SYNOPSIS', 'DESCRIPTION', 'OPTIONS', 'GLOBAL OPTIONS', 'EXAMPLES', 'ENVIRONMENT', 'EXIT STATUS', 'FILES', 'SEE ALSO'])
      expect(page).toContain(`\n.SH ${section}\n`);
    expect(page).toContain('\\fB\\-\\-languages\\fR \\fI<a,b>\\fR');
    expect(page).toContain('svc calls start \\-\\-languages en,es');
    expect(page).toMatch(/\.TP\n\\fB130\\fR\ninterrupted/);
  });

  const pages = () => readdirSync(join(root, 'dist', 'man')).filter((file) => /\.[17]$/.test(file));
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

  it('every page is ASCII (troff in the C locale prints no UTF-8) and dates and versions itself in .TH', () => {
    for (const file of pages()) {
      const text = readFileSync(join(root, 'dist', 'man', file), 'utf8');
      expect(
        [...text].filter((c) => c.charCodeAt(0) > 0x7f),
        file,
      ).toEqual([]);
      expect(text, file).toMatch(
        new RegExp(`^\\.TH "[A-Z-]+" "[17]" "\\d{4}-\\d{2}-\\d{2}" "svc ${version.replace(/\./g, '\\.')}" "svc manual"\n\\.nh\n`, 'm'),
      );
    }
  });

  it("lists each exit code once, with the README's meaning (409 is 6, not 1)", () => {
    const page = readFileSync(join(root, 'dist', 'man', 'svc.1'), 'utf8');
    const status = page.slice(page.indexOf('.SH EXIT STATUS'), page.indexOf('.SH FILES'));
    const codes = [...status.matchAll(/^\\fB(\d+)\\fR\n(.*)$/gm)].map((m) => [m[1], m[2]]);
    expect(codes.map((c) => c[0])).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '130']);
    expect(codes.find((c) => c[0] === '6')![1]).toContain('(409)');
    expect(codes.find((c) => c[0] === '1')![1]).not.toMatch(/\b409,/);
  });

  it('SEE ALSO names the parent, the siblings and the children, each unhyphenatable', () => {
    const page = readFileSync(join(root, 'dist', 'man', 'svc-calls-start.1'), 'utf8');
    const seeAlso = page.slice(page.indexOf('.SH SEE ALSO'));
    for (const name of ['svc\\-calls', 'svc\\-calls\\-list', 'svc\\-calls\\-end', 'svc\\-calls\\-links']) expect(seeAlso).toContain(`\\fB\\%${name}\\fR(1)`);
    expect(seeAlso).not.toContain('svc\\-calls\\-start\\fR');
  });

  const manProblem = existsSync('/usr/bin/man') ? null : 'man is not installed (Debian package man-db)';
  const required = process.env.SVC_REQUIRE_REAL === '1';
  it.skipIf(manProblem !== null && !required)(
    `reads within 80 columns in the C locale, with no command name split over two lines${manProblem && !required ? ` (skipped: ${manProblem})` : ''}`,
    () => {
      expect(manProblem).toBeNull();
      for (const file of pages()) {
        const shown = spawnSync('man', ['-l', join(root, 'dist', 'man', file)], {
          encoding: 'utf8',
          env: { PATH: process.env.PATH, LC_ALL: 'C', MANWIDTH: '80', MANPAGER: 'cat', PAGER: 'cat' },
        });
        expect(shown.status, shown.stderr).toBe(0);
        const lines = shown.stdout.split('\n');
        expect(
          lines.filter((line) => line.length > 80),
          file,
        ).toEqual([]);
        expect(
          lines.filter((line) => /svc-[a-z-]*-$/.test(line)),
          file,
        ).toEqual([]);
        expect(shown.stdout, file).not.toContain('/svc/credentials.json');
      }
    },
    120_000,
  );
});
