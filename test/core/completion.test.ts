// The completion scripts the build writes (dist/completions/) are exactly what the command tree generates; the
// completion command prints the same; `--profile <TAB>` is answered by `svc __complete profiles`.
import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMPLETION_FILES, completionScript, SHELLS } from '../../src/kit/completion/generate.js';
import { commandTree } from '../../src/cli/tree.js';
import { declaredTree } from '../../src/cli/declared.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';

/** The command tree, as the sources declare it. */
const ROOT = await declaredTree();

const root = join(import.meta.dirname, '..', '..');
const shipped = (shell: (typeof SHELLS)[number]) => readFileSync(join(root, 'dist', 'completions', COMPLETION_FILES[shell]), 'utf8');
const hasBash = spawnSync('bash', ['--version']).status === 0;

describe('completions', () => {
  for (const shell of SHELLS) {
    it(`dist/completions/${COMPLETION_FILES[shell]} is what the command tree makes, and what svc completion prints`, async () => {
      expect(completionScript(shell, ROOT)).toBe(shipped(shell));
      const printed = await runCli(['completion', shell]);
      expect(printed.exitCode).toBe(0);
      expect(printed.stdout).toBe(shipped(shell));
    });
  }

  it('every command of the tree is in every script', () => {
    const tree = commandTree(ROOT);
    for (const shell of SHELLS) for (const cmd of tree.commands.filter((c) => c.name() !== '__complete')) expect(shipped(shell)).toContain(cmd.name());
  });

  it('an unknown shell is a usage error', async () => {
    expect((await runCli(['completion', 'tcsh'])).exitCode).toBe(2);
  });

  it('`svc __complete profiles` lists the configured profiles, and nothing on a broken config', async () => {
    const configDir = tempConfigDir();
    writeFileSync(join(configDir, 'config.json'), JSON.stringify({ version: 1, profiles: { work: {}, default: {} } }));
    expect((await runCli(['__complete', 'profiles'], { configDir })).stdout).toBe('default\nwork\n');
    writeFileSync(join(configDir, 'config.json'), '{');
    const broken = await runCli(['__complete', 'profiles'], { configDir });
    expect(broken).toMatchObject({ exitCode: 0, stdout: '' });
  });

  it.skipIf(!hasBash)('in bash: subcommands, choices and --profile through `svc __complete profiles`', () => {
    // A stand-in svc on PATH answering __complete, as the installed one does (the real
    // install is driven by test/real/package.test.ts).
    const bin = mkdtempSync(join(tmpdir(), 'svc-bin-'));
    writeFileSync(join(bin, 'svc'), '#!/bin/sh\n[ "$1" = __complete ] && [ "$2" = profiles ] && printf "alpha\\nbeta\\n"\n');
    chmodSync(join(bin, 'svc'), 0o755);
    const complete = (line: string) =>
      execFileSync('bash', ['--norc', '--noprofile', join(root, 'test/real/shells/bash-complete.bash'), join(root, 'dist/completions/svc.bash'), line], {
        env: { PATH: `${bin}:${process.env.PATH}` },
        encoding: 'utf8',
      })
        .trim()
        .split('\n');
    expect(complete('svc ca')).toEqual(['calls']);
    expect(complete('svc calls lines ')).toEqual(['add', 'list', 'release']);
    expect(complete('svc --profile x chats list --status ')).toEqual(['closed', 'open']);
    expect(complete('svc calls list --profile ')).toEqual(['alpha', 'beta']);
    expect(complete('svc mode ')).toEqual(['live', 'test']);
  });
});

describe('powershell completion', () => {
  it('is generated from the same tree: every command path with its subcommands, flags and choices', () => {
    const script = shipped('powershell');
    expect(script).toContain('Register-ArgumentCompleter -Native -CommandName svc');
    expect(script).toMatch(/'calls lines' = @\{\n {4}subs = @\('list', 'add', 'release'\)/);
    expect(script).toMatch(/'mode' = @\{[^]*?args = @\('test', 'live'\)/);
    expect(script).toMatch(/'calls list' = @\{[^]*?choices = @\{ '--status' = @\('active', 'ended'\) \}/);
    expect(script).toContain("if ($prev -eq '--profile') { $candidates = @(svc __complete profiles 2>$null) }");
    // Single quotes inside descriptions or names cannot break out of the PowerShell strings.
    expect(
      script
        .split('\n')
        .filter((l) => /^ {2}'/.test(l))
        .every((l) => /^ {2}'[^']*' = @\{$/.test(l)),
    ).toBe(true);
  });
});
