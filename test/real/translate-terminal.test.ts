// `svc translate --lines --to de < lines.txt` at a real 80-column terminal (issue 44): stderr
// says how many lines and about how long at the service's pace, then how far it is, and the
// output keeps a tab a tab. A tmux pane (test/helpers/pty.ts) against the emulator.
import { writeFileSync } from 'node:fs';
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
});
