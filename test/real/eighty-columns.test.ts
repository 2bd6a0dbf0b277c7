// Issue 44's small surprises at a real terminal (a tmux pane, test/helpers/pty.ts) of 80
// columns, as a new user meets them: every line svc writes fits the 80 columns (the screen's
// lines are read with the terminal's own wraps joined, so a line the terminal had to break
// shows as longer than 80), a thing is said once, and a terminal whose locale is not UTF-8
// gets ASCII. Needs the bundle and tmux; skips with the reason without tmux (SVC_REQUIRE_REAL=1 fails instead).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { prerequisites } from '../helpers/prerequisites.js';
import { exitBoundMs, terminalProblem, useTerminal, type Pane } from '../helpers/pty.js';

const problem = terminalProblem();
prerequisites('80-column terminal', problem, { describe: '80-column terminal suite', it: 'is usable' });

const EIGHTY = { columns: 80, rows: 60 };
const AUTHORIZE_URL = /http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+/g;

describe.skipIf(problem !== null)('svc at an 80-column terminal', () => {
  const { emu, term, envFor: paneEnv } = useTerminal();

  /** A UTF-8 terminal unless a test says otherwise. */
  const envFor = (configDir: string, extra: Record<string, string> = {}) => paneEnv(configDir, { LANG: 'C.UTF-8', ...extra });

  async function expectExit(pane: Pane, code: number): Promise<void> {
    const exit = await pane.exited(exitBoundMs());
    expect(exit.code, pane.screen()).toBe(code);
  }

  /** Every line of the screen fits 80 columns, but for those named (an address to copy, one word). */
  function fitsEighty(screen: string, except: RegExp = /\/oauth\/authorize\?/): void {
    for (const line of screen.split('\n')) if (!except.test(line)) expect([...line].length, `${line}\n---\n${screen}`).toBeLessThanOrEqual(80);
  }

  /** `svc keys add` at the terminal: the key typed at its hidden prompt. */
  async function addKeyTyped(key: string, configDir: string, extra: Record<string, string> = {}): Promise<Pane> {
    const pane = await term().start(['keys', 'add'], envFor(configDir, extra), EIGHTY);
    await pane.waitFor('API key');
    pane.type(key);
    pane.press('Enter');
    await pane.waitFor(/Added \w+ key/);
    await expectExit(pane, 0);
    return pane;
  }

  it("keys add's confirmation wraps at words within 80 columns", async () => {
    const org = await emu().plane.createOrg('Acme Interpretation Services International Holdings');
    const { key } = await emu().makeKey('test', undefined, org.org_id);
    const pane = await addKeyTyped(key, tempConfigDir());
    const screen = pane.screen();
    fitsEighty(screen);
    expect(screen.replace(/\n +/g, ' ')).toContain(`for Acme Interpretation Services International Holdings (${org.org_id}) to profile "default"`);
  });

  it('under LANG=C the terminal gets ASCII: no …, ✔ or → (the redacted key reads svc_test_...)', async () => {
    const configDir = tempConfigDir();
    const pane = await addKeyTyped(emu().seed.keys.test, configDir, { LANG: 'C' });
    const screen = pane.screen();
    expect(screen).toMatch(/svc_test_\.\.\.[\w-]{4}/);
    expect(screen).not.toMatch(/[…✔→]/);
    // A table's cut cells end in "..." and the table still fits the 80 columns.
    const list = await term().start(['keys', 'list'], envFor(configDir, { LANG: 'C' }), EIGHTY);
    await expectExit(list, 0);
    await list.waitFor(/NAME/);
    expect(list.screen()).toContain('...');
    expect(list.screen()).not.toContain('…');
    fitsEighty(list.screen());
  });

  it("login's scopes wrap as a field's value: every scope whole, every line within 80 columns", async () => {
    const configDir = tempConfigDir();
    const opener = join(configDir, 'opener.sh');
    mkdirSync(configDir, { recursive: true });
    writeFileSync(opener, `#!/bin/sh\nexit 0\n`, { mode: 0o755 });
    const pane = await term().start(['login'], envFor(configDir, { BROWSER: opener }), EIGHTY);
    const [url] = await pane.waitFor(new RegExp(AUTHORIZE_URL.source));
    await emu().plane.approve({ email: emu().seed.admin.email, org_id: emu().seed.org_id });
    const answer = await fetch(url, { redirect: 'manual' });
    await fetch(new URL(answer.headers.get('location')!, url));
    await pane.waitFor(/stored_in/);
    await expectExit(pane, 0);
    const screen = pane.screen();
    fitsEighty(screen);
    const scopes = /^scopes +([\s\S]*?)\nbase_url/m.exec(screen)?.[1]?.replace(/\s+/g, ' ');
    expect(scopes).toContain('events:read');
    expect(screen).not.toMatch(/eve…/);
  });

  it('the mode trap at the terminal: login says live and how to reach test mode; a test call missed in live mode says add `--test`; a quiet tail says so', async () => {
    const configDir = tempConfigDir();
    const opener = join(configDir, 'opener.sh');
    mkdirSync(configDir, { recursive: true });
    writeFileSync(opener, `#!/bin/sh\nexit 0\n`, { mode: 0o755 });
    const login = await term().start(['login'], envFor(configDir, { BROWSER: opener }), EIGHTY);
    const [url] = await login.waitFor(new RegExp(AUTHORIZE_URL.source));
    await emu().plane.approve({ email: emu().seed.admin.email, org_id: emu().seed.org_id });
    const answer = await fetch(url, { redirect: 'manual' });
    await fetch(new URL(answer.headers.get('location')!, url));
    await expectExit(login, 0);
    expect(login.screen()).toContain('svc uses live mode for profile "default" (a sign-in is always live).');
    expect(login.screen()).toContain('then `svc mode test` (or --test).');
    fitsEighty(login.screen());
    await addKeyTyped(emu().seed.keys.test, configDir);

    const made = await fetch(`${emu().url}/v1/calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emu().seed.keys.test}`, 'content-type': 'application/json' },
      body: JSON.stringify({ languages: ['en', 'es'] }),
    });
    const { id } = (await made.json()) as { id: string };
    const get = await term().start(['calls', 'get', id], envFor(configDir), EIGHTY);
    await expectExit(get, 5);
    expect(get.screen().replace(/\n +/g, ' ')).toContain('if it is a test-mode object, add `--test`');
    fitsEighty(get.screen());

    const tail = await term().start(['events', 'tail'], envFor(configDir), EIGHTY);
    try {
      await tail.waitFor('add `--test` for its events');
      expect(tail.screen()).toContain('no live-mode event for 5 s; profile "default" has a test-mode credential too:');
      fitsEighty(tail.screen());
    } finally {
      tail.kill();
    }
  });

  it('a browser that fails to open: the sign-in address is printed once', async () => {
    const pane = await term().start(['login', '--timeout', '2s'], envFor(tempConfigDir(), { BROWSER: '/nonexistent/browser' }), EIGHTY);
    await pane.waitFor('No browser here');
    await expectExit(pane, 3);
    const screen = pane.screen();
    expect(screen.match(AUTHORIZE_URL), screen).toHaveLength(1);
    expect(screen).toContain('Open the address above in a browser to sign in.');
  });

  it('a live calls start at the terminal says once that it is billed', async () => {
    const pane = await term().start(['calls', 'start', '--languages', 'en,es'], envFor(tempConfigDir(), { SVC_API_KEY: emu().seed.keys.live }), EIGHTY);
    await pane.waitFor('(y/N)');
    pane.press('n', 'Enter');
    await expectExit(pane, 1);
    const screen = pane.screen();
    expect(screen.match(/billed/g), screen).toHaveLength(1);
    fitsEighty(screen);
  });

  it('svc --help: descriptions start within the first quarter of the line, every line within 80 columns', async () => {
    const pane = await term().start(['--help'], envFor(tempConfigDir()), EIGHTY);
    await expectExit(pane, 0);
    await pane.waitFor(/^Usage: svc/m);
    const screen = pane.screen();
    fitsEighty(screen);
    const loginLine = screen.split('\n').find((line) => line.startsWith('  login'))!;
    expect(loginLine.indexOf('sign in with'), loginLine).toBeLessThanOrEqual(20);
  });

  it('svc emulator --https: the CA line and its note fit 80 columns', async () => {
    const configDir = tempConfigDir();
    const pane = await term().start(['emulator', '--https', '--port', '0'], envFor(configDir), EIGHTY);
    try {
      await pane.waitFor(/try: /);
      const screen = pane.screen();
      expect(screen).toMatch(/^ca {12}\S+ca\.pem$/m);
      fitsEighty(screen, /^(ca|try:|trust) /);
    } finally {
      pane.kill();
    }
  });

  it('svc mcp log: the table fits 80 columns', async () => {
    const configDir = tempConfigDir();
    const id = (prefix: string, n: number) => `${prefix}${String(n).repeat(20)}`;
    const entries = [1, 2, 3].map((n) => ({
      time: `2026-11-28T00:0${n}:00.000Z`,
      tool: 'calls_start',
      args: {},
      mode: 'live',
      price_asked: 2,
      result: n === 2 ? 'insufficient_balance' : 'ok',
      ids: [id('call_', n), id('evt_', n)],
    }));
    writeFileSync(join(configDir, 'mcp-audit.ndjson'), entries.map((e) => JSON.stringify(e)).join('\n') + '\n', { mode: 0o600 });
    const pane = await term().start(['mcp', 'log'], envFor(configDir), EIGHTY);
    await expectExit(pane, 0);
    await pane.waitFor(/TOOL/);
    fitsEighty(pane.screen());
  });
});
