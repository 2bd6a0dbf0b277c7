// Waiting is said (issue 49): at an 80-column terminal, a request a server accepts and never
// answers shows one spinner line on stderr naming what it waits for, within 3 s; Ctrl-C then
// says what was stopped and, for a write, that it may have reached the service, with the
// command that checks. On a pipe nothing of the kind is shown. A tmux pane (test/helpers/pty.ts).
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { prerequisites } from '../helpers/prerequisites.js';
import { exitBoundMs, svcBin, terminalProblem, useTerminal } from '../helpers/pty.js';

const problem = terminalProblem();
prerequisites('terminal-waiting', problem, { describe: 'waiting at a terminal: prerequisites', it: 'are here' });

describe.skipIf(problem !== null)('a request with no answer at an 80-column terminal', () => {
  const { term, envFor } = useTerminal();
  let server: Server;
  let url = '';
  /** Called when a request arrives: the 3 s are counted from there, not from svc's start (slow under load). */
  let arrived = () => {};
  beforeAll(async () => {
    // Accepts every request and never answers it.
    server = createServer(() => arrived());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it('shows one spinner line naming the host and the request within 3 s; Ctrl-C says what was stopped', async () => {
    const env = envFor(tempConfigDir(), { SVC_API_KEY: 'svc_test_waitingwaitingwaiting', SVC_BASE_URL: url });
    const asked = new Promise<void>((resolve) => (arrived = resolve));
    const pane = await term().start(['calls', 'start', '--languages', 'en,es'], env, { columns: 80, rows: 30 });
    const host = new URL(url).host;
    await asked;
    await pane.waitFor(`waiting for ${host} to answer POST /v1/calls`, 3_000);
    pane.press('C-c');
    const exit = await pane.exited(exitBoundMs());
    const screen = pane.screen();
    expect(exit.code, screen).toBe(130);
    // (Wrapped at 80 columns: read as one text.)
    const said = screen.replace(/\s+/g, ' ');
    expect(said).toContain(
      `svc: stopped POST /v1/calls to ${host} before its answer came; it was sent, so the service may have acted on it: check with \`svc calls list\``,
    );
    // The spinner is gone once Ctrl-C is said.
    expect(screen).not.toContain('waiting for');
    for (const line of screen.split('\n')) expect([...line].length, screen).toBeLessThanOrEqual(80);
  }, 30_000);

  it('on a pipe: no spinner', async () => {
    const env = { ...process.env, SVC_CONFIG_DIR: tempConfigDir(), SVC_API_KEY: 'svc_test_waitingwaitingwaiting', SVC_BASE_URL: url, SVC_HTTP_TIMEOUT: '4s' };
    const child = spawn(process.execPath, [svcBin, 'calls', 'list'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    // The deadline ended it (past the 2 s a terminal would have shown the spinner at).
    expect(code, stderr).not.toBe(0);
    expect(stderr).not.toContain('waiting for');
  }, 30_000);
});
