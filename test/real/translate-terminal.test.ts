// `svc translate --lines --to de < lines.txt` at a real 80-column terminal (issue 44): stderr
// says how many lines and about how long at the service's pace, then how far it is, and the
// output keeps a tab a tab; fed an endless stdin, it holds little and says how far it is
// without a total. A tmux pane (test/helpers/pty.ts) against the emulator.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { prerequisites } from '../helpers/prerequisites.js';
import { exitBoundMs, terminalProblem, useTerminal } from '../helpers/pty.js';

const problem = terminalProblem();
prerequisites('translate-terminal', problem, { describe: 'translate at a terminal: prerequisites', it: 'are here' });

describe.skipIf(problem !== null)('translate --lines at an 80-column terminal', () => {
  const { emu, term, envFor } = useTerminal();

  it('says how many lines and about how long, then how far it is; a tab stays a tab', async () => {
    const configDir = tempConfigDir();
    const input = join(configDir, 'lines.txt');
    // 80 lines: past the burst of 10, about 7 s at 600 requests a minute.
    writeFileSync(input, ['a\tb', ...Array.from({ length: 79 }, (_, i) => `line ${i + 2}`)].join('\n') + '\n');
    const env = envFor(configDir, { SVC_API_KEY: emu().seed.keys.test, PTY_STDIN: input });
    const pane = await term().start(['translate', '--lines', '--to', 'de'], env, { columns: 80, rows: 200 });
    await pane.waitFor(/^80 lines to translate: about \d+\.\d s \(the service takes 600\s+requests a minute\)$/m);
    const exit = await pane.exited(exitBoundMs());
    const screen = pane.screen();
    expect(exit.code, screen).toBe(0);
    // The terminal shows a tab as spaces up to the next stop: "[de] a" then b at column 8.
    expect(screen).toMatch(/^\[de\] a +b$/m);
    expect(screen).not.toContain('^I');
    expect(screen).toMatch(/^\[de\] line 80$/m);
    for (const line of screen.split('\n')) expect([...line].length, screen).toBeLessThanOrEqual(80);
  }, 60_000);

  it('fed an endless stdin, runs in a small heap and says how many are done, with no total; Ctrl-C ends it', async () => {
    const configDir = tempConfigDir();
    const fifo = join(configDir, 'endless');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    // Opened read-write, the FIFO never blocks this process; `yes` writes into it for as long as it is read.
    const end = openSync(fifo, 'r+');
    const writer = spawn('yes', ['hello there'], { stdio: ['ignore', end, 'ignore'] });
    closeSync(end);
    try {
      // A heap far below what the input would take if it were held: a reader that keeps it dies of it.
      const env = envFor(configDir, { SVC_API_KEY: emu().seed.keys.test, PTY_STDIN: fifo, NODE_OPTIONS: '--max-old-space-size=64' });
      const pane = await term().start(['translate', '--lines', '--to', 'de'], env, { columns: 80, rows: 50 });
      // Progress comes every 10 s of the clock: by then about a hundred lines have been translated.
      await pane.waitFor(/^translated \d+ lines so far$/m, 30_000);
      expect(pane.screen()).not.toMatch(/lines to translate|of \d+ lines/);
      pane.press('C-c');
      const exit = await pane.exited(exitBoundMs());
      expect(exit.code, pane.screen()).toBe(130);
      expect(pane.screen()).toMatch(/^\[de\] hello there$/m);
    } finally {
      writer.kill();
    }
  }, 60_000);
});
