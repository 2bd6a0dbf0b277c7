// The README's quick start, for a person who is not root (issue 50: `npm link` with Debian's
// Node failed with EACCES, and the zsh completion line wrote into a root-owned folder). A
// throwaway user (useradd) gets a copy of the clone in their home and runs, as themselves
// (runuser), the README's quick-start block and its completion lines word for word with the
// machine's /usr/bin/node, whose npm prefix is /usr. Nothing may need root or write outside
// the clone and the home: such a step fails with EACCES, and so does the test.
// The copy holds the clone's node_modules (copied, the user's own), so `npm install` checks
// and builds rather than downloading every package again.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { blockLines } from '../helpers/doc-blocks.js';
import { root } from '../helpers/spawn.js';

const README = readFileSync(join(root, 'README.md'), 'utf8');
const INSTALL = readFileSync(join(root, 'docs/install.md'), 'utf8');
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const required = process.env.SVC_REQUIRE_REAL === '1';
const user = `svcqs${process.pid}`;
const scratch = mkdtempSync(join(tmpdir(), 'svc-quick-start-'));

function why(): string | null {
  if (process.getuid?.() !== 0) return 'making a throwaway user needs root';
  for (const tool of ['useradd', 'userdel', 'runuser', 'git'])
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return `${tool} is not installed`;
  if (!existsSync('/usr/bin/node') || !existsSync('/usr/bin/npm')) return "the machine's Node (/usr/bin/node, /usr/bin/npm) is not installed";
  return null;
}
const problem = why();

afterAll(() => {
  if (problem === null) spawnSync('userdel', ['--remove', user]);
  rmSync(scratch, { recursive: true, force: true });
});

/** The clone as git sees it (tracked files, as they are now) and its node_modules, in `dir`. */
function copyClone(dir: string): void {
  mkdirSync(dir);
  const tracked = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .stdout.split('\0')
    .filter(Boolean);
  for (const file of tracked) if (existsSync(join(root, file))) cpSync(join(root, file), join(dir, file), { recursive: true });
  cpSync(join(root, 'node_modules'), join(dir, 'node_modules'), { recursive: true, verbatimSymlinks: true });
}

describe.skipIf(problem !== null && !required)(`the quick start, as a user who is not root${problem && !required ? ` (skipped: ${problem})` : ''}`, () => {
  it("installs, links and runs svc, and puts the completions in the user's folders, with /usr/bin/node", () => {
    expect(problem).toBeNull();
    const home = join(scratch, 'home');
    const made = spawnSync('useradd', ['--create-home', '--home-dir', home, '--shell', '/bin/sh', user], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
    chmodSync(scratch, 0o755);
    const clone = join(home, 'svc');
    copyClone(clone);
    expect(spawnSync('chown', ['-R', `${user}:`, clone]).status).toBe(0);

    const lines = [...blockLines(README, 'quick-start'), ...blockLines(INSTALL, 'completions')];
    expect(lines.join('\n')).toMatch(/^npm install\b[^]*^npm link\b[^]*^svc --version$[^]*completion zsh/m);
    // One shell, as a person types them: the PATH export carries to the lines after it.
    const script = `set -e\ncd ~/svc\n${lines.join('\n')}\n`;
    const ran = spawnSync('runuser', ['-u', user, '--', 'env', '-i', `HOME=${home}`, 'PATH=/usr/bin:/bin', 'LANG=C.UTF-8', 'sh', '-c', script], {
      encoding: 'utf8',
      timeout: 600_000,
    });
    expect(ran.status, `${ran.stdout}\n${ran.stderr}`).toBe(0);
    expect(ran.stderr).not.toMatch(/EACCES|permission denied/i);
    expect(ran.stdout).toContain(`${version}\n`);
    expect(lstatSync(join(home, '.local/bin/svc')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(home, '.npmrc'), 'utf8')).toMatch(/^prefix=.*\.local$/m);
    for (const file of ['.local/share/bash-completion/completions/svc', '.zfunc/_svc', '.config/fish/completions/svc.fish'])
      expect(readFileSync(join(home, file), 'utf8'), file).toMatch(/svc/);
    // npm's global folder (/usr/lib/node_modules) was not written.
    expect(readdirSync('/usr/lib/node_modules')).not.toContain('svc');
  }, 900_000);
});
