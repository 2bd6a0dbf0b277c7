// The built svc at a real terminal: every interactive path run in a tmux pane (see
// test/helpers/pty.ts) and typed at as a person does: login in all its outcomes, the hidden
// key prompt, every y/N question, Ctrl-C on streams and prompts, and a held lock. Each test
// asserts the exit code and that svc ended by itself within 2 s of its last output (stretched
// on an overloaded machine, see exitBoundMs; a process waiting for input never ends).
// Needs the bundle (npm run build) and tmux; skips with the reason without tmux, and
// SVC_REQUIRE_REAL=1 (CI) turns that skip into a failure.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { prerequisites } from '../helpers/prerequisites.js';
import { exitBoundMs, root, svcBin, terminalProblem, useTerminal, type Exit, type Pane } from '../helpers/pty.js';
import { acquireFileLock } from '../../src/config/lock.js';
import { currentHolder } from '../../src/files/lock.js';
import { isHidden, nameOf, type Node, type RootSpec } from '../../src/kit/define.js';

const problem = terminalProblem();
prerequisites('terminal', problem, { describe: 'real terminal', it: 'is usable' });

const AUTHORIZE_URL = /http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+/;
const UNEXPECTED = 'unexpected failure';

describe.skipIf(problem !== null)('svc in a terminal', () => {
  const { emu, term, envFor } = useTerminal();

  async function svc(args: string[], extra: Record<string, string> = {}, configDir = tempConfigDir(), size?: { columns: number; rows: number }): Promise<Pane> {
    return term().start(args, envFor(configDir, extra), size);
  }

  /** The process ended by itself, within 2 s of its last output (more on an overloaded machine: exitBoundMs), with this code. */
  async function expectExit(pane: Pane, code: number): Promise<Exit> {
    const bound = exitBoundMs();
    const exit = await pane.exited(bound);
    expect(exit.code, pane.screen()).toBe(code);
    expect(exit.quietMs).toBeLessThanOrEqual(bound);
    return exit;
  }

  /** Plays the admin's browser: approve or deny at the emulator, then where the authorize page sends the browser. */
  async function adminAnswers(
    authorizeUrl: string,
    decision: 'approve' | 'deny',
    who = { email: emu().seed.admin.email, org_id: emu().seed.org_id },
  ): Promise<URL> {
    await emu().plane.approve({ ...who, decision });
    const response = await fetch(authorizeUrl, { redirect: 'manual' });
    const location = response.headers.get('location');
    if (!location) throw new Error(`the authorize page answered ${response.status} without a redirect`);
    return new URL(location, authorizeUrl);
  }

  /** A stand-in for the browser opener ($BROWSER): records the address and its own environment. */
  function fakeOpener(): { env: Record<string, string>; dir: string; opened(): Promise<string>; openerEnv(): string } {
    const dir = tempConfigDir();
    const script = join(dir, 'opener.sh');
    writeFileSync(
      script,
      `#!/bin/sh\nenv > "${dir}/env.tmp" && mv "${dir}/env.tmp" "${dir}/env"\nprintf '%s' "$1" > "${dir}/url.tmp" && mv "${dir}/url.tmp" "${dir}/url"\n`,
    );
    chmodSync(script, 0o755);
    return {
      dir,
      // No DISPLAY: a BROWSER set explicitly is used without one (it may be a text browser).
      env: { BROWSER: script },
      async opened() {
        const deadline = Date.now() + 10_000;
        while (!existsSync(join(dir, 'url'))) {
          if (Date.now() > deadline) throw new Error('the browser opener was never run');
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        return readFileSync(join(dir, 'url'), 'utf8');
      },
      openerEnv: () => readFileSync(join(dir, 'env'), 'utf8'),
    };
  }

  describe('help', () => {
    /** `svc … --help` on a pipe, as a script reads it (80 columns). */
    const pipedHelp = (path: string[]) =>
      execFileSync(process.execPath, [svcBin, ...path, '--help'], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: tempConfigDir() } });

    it('is wrapped to the terminal, not to the 80 columns of the help on a pipe', async () => {
      const pane = await svc(['--help'], {}, tempConfigDir(), { columns: 250, rows: 100 });
      await expectExit(pane, 0);
      await pane.waitFor(/^Usage: svc/m);
      // 250 columns: each flag's help on one line (on a pipe this one wraps after "the default").
      expect(pipedHelp([])).toMatch(/default: the default\n +profile\)/);
      expect(pane.screen()).toMatch(/--profile <name> +profile to use \(env SVC_PROFILE; default: the default profile\)/);
    });

    /**
     * Every help page's command path (the root's is []): each visible command of the manifest the
     * build wrote. With SVC_HELP_PAGES=top (scripts/test-all.mjs, on every Node but the newest)
     * the root's and each top-level command's.
     */
    const topOnly = process.env.SVC_HELP_PAGES === 'top';
    const which = topOnly ? "the root's and each top-level command's page" : 'every page';
    const helpPages = () => {
      const paths: string[][] = [[]];
      const walk = (nodes: readonly Node[], prefix: string[]) => {
        for (const node of nodes.filter((n) => !isHidden(n))) {
          paths.push([...prefix, nameOf(node)]);
          if (node.kind === 'group' && !topOnly) walk(node.commands, [...prefix, nameOf(node)]);
        }
      };
      walk((JSON.parse(readFileSync(join(root, 'dist', 'manifest.json'), 'utf8')) as RootSpec).commands, []);
      return paths;
    };

    /** Each page's `--help` in a pane of `columns`, a few at a time; the screens (terminal-wrapped lines joined). */
    async function helpScreens(columns: number): Promise<{ path: string[]; screen: string }[]> {
      const screens = [];
      const pages = helpPages();
      for (let at = 0; at < pages.length; at += 6) {
        const batch = pages.slice(at, at + 6);
        const panes = await Promise.all(batch.map((path) => svc([...path, '--help'], {}, tempConfigDir(), { columns, rows: 100 })));
        for (const [i, pane] of panes.entries()) {
          await expectExit(pane, 0);
          // The exit can be recorded before tmux has drawn the page: read it once it is there.
          await pane.waitFor(/^Usage: svc/m);
          screens.push({ path: batch[i]!, screen: pane.screen() });
          pane.kill(); // read: its recorder need not stay
        }
      }
      return screens;
    }

    it(`at 80 columns: ${which} fits, no word broken by the terminal, and reads as the page on a pipe`, async () => {
      const screens = await helpScreens(80);
      expect(screens.length).toBeGreaterThan(topOnly ? 10 : 40);
      for (const { path, screen } of screens) {
        // capture-pane joins what the terminal wrapped: a longer line is one svc wrote too long.
        expect(
          screen.split('\n').filter((line) => [...line].length > 80),
          `svc ${path.join(' ')} --help`,
        ).toEqual([]);
        const page = pipedHelp(path);
        expect(screen.trimEnd(), `svc ${path.join(' ')} --help`).toBe(page.replace(/ +$/gm, '').trimEnd());
      }
    }, 180_000);

    it(`at 50 columns: ${which} fits too, but for a single word wider than that (a description too wide to sit beside its flag goes under it)`, async () => {
      for (const { path, screen } of await helpScreens(50))
        expect(
          screen.split('\n').filter((line) => [...line].length > 50 && /\S\s+\S/.test(line)),
          `svc ${path.join(' ')} --help`,
        ).toEqual([]);
    }, 180_000);
  });

  describe('tables at 80 columns', () => {
    it('calls list fits the terminal: no line wraps, the id whole, the long title cut with …', async () => {
      const title = 'Quarterly intake with the interpreting team about the new onboarding flow and its questions';
      const response = await fetch(`${emu().url}/v1/calls`, {
        method: 'POST',
        headers: { authorization: `Bearer ${emu().seed.keys.test}`, 'content-type': 'application/json' },
        body: JSON.stringify({ languages: ['en', 'es'], title }),
      });
      const id = ((await response.json()) as { id: string }).id;
      const pane = await term().start(['calls', 'list'], envFor(tempConfigDir(), { SVC_API_KEY: emu().seed.keys.test }), { columns: 80, rows: 50 });
      await expectExit(pane, 0);
      // screen() joins wrapped lines: a line that wrapped would be longer than 80.
      const lines = pane.screen().split('\n');
      for (const line of lines) expect(line.length, pane.screen()).toBeLessThanOrEqual(80);
      expect(pane.screen()).toMatch(new RegExp(`^${id}  active\\s+en,es\\s+Quarterly intake.*…\\s+just now$`, 'm'));
    });
  });

  describe('stderr at 80 columns', () => {
    /** Every line within 80 columns (screen() joins what the terminal wrapped), none broken inside a word. */
    function expectWrappedAtWords(screen: string, words: string): void {
      for (const line of screen.split('\n')) expect([...line].length, screen).toBeLessThanOrEqual(80);
      expect(screen.replace(/\s+/g, ' ')).toContain(words);
    }

    it('an error and its hint wrap at words, continuation lines indented', async () => {
      const start = await fetch(`${emu().url}/v1/calls`, {
        method: 'POST',
        headers: { authorization: `Bearer ${emu().seed.keys.test}`, 'content-type': 'application/json' },
        body: JSON.stringify({ languages: ['en', 'es'] }),
      });
      const call = ((await start.json()) as { id: string }).id;
      await fetch(`${emu().url}/v1/calls/${call}/end`, { method: 'POST', headers: { authorization: `Bearer ${emu().seed.keys.test}` } });
      const pane = await term().start(
        ['calls', 'links', 'create', '--call', call, '--language', 'es', '--expires-in', '2h'],
        envFor(tempConfigDir(), { SVC_API_KEY: emu().seed.keys.test }),
        { columns: 40, rows: 30 },
      );
      await expectExit(pane, 6);
      const screen = pane.screen();
      for (const line of screen.split('\n')) expect([...line].length, screen).toBeLessThanOrEqual(40);
      expect(screen).toMatch(/^error: conflict: the call has ended/m);
      expect(screen).toMatch(/^ {7}\S/m); // the message's continuation, under its text
    });

    it("events tail's header and its Ctrl-C summary fit", async () => {
      const pane = await term().start(
        ['events', 'tail', '--type', 'call.*', '--type', 'chat.*', '--type', 'translation.*'],
        envFor(tempConfigDir(), { SVC_API_KEY: emu().seed.keys.test }),
        {
          columns: 80,
          rows: 30,
        },
      );
      await pane.waitFor('Ctrl-C to stop');
      pane.press('C-c');
      await expectExit(pane, 130);
      expectWrappedAtWords(pane.screen(), 'Ctrl-C to stop.');
    });

    it('a usage error with a long hint fits, its words whole', async () => {
      const pane = await term().start(['calls', 'links', 'list', '--lmit', '5'], envFor(tempConfigDir()), { columns: 60, rows: 30 });
      await expectExit(pane, 2);
      const screen = pane.screen();
      for (const line of screen.split('\n')) expect([...line].length, screen).toBeLessThanOrEqual(60);
      expect(screen.replace(/\s+/g, ' ')).toContain(
        "unknown option '--lmit' (Did you mean --limit?) run `svc calls links list --help` for its arguments and flags",
      );
    });
  });

  describe('login', () => {
    it('through the browser: ends by itself once signed in; the opener gets no SVC_* variable', async () => {
      const opener = fakeOpener();
      const key = emu().seed.keys.test;
      const pane = await svc(['login'], { ...opener.env, SVC_API_KEY: key, SVC_FORWARD_SECRET: 'whsec_do-not-leak' });
      const url = await opener.opened();
      await fetch(await adminAnswers(url, 'approve'));
      await pane.waitFor('Signed in to Acme');
      await expectExit(pane, 0);
      const env = opener.openerEnv();
      expect(env).toContain('BROWSER=');
      expect(env).not.toMatch(/^SVC_/m);
      expect(env).not.toContain(key);
      expect(env).not.toContain('whsec_do-not-leak');
    });

    it('--no-browser: the address is printed, the browser returns to the loopback server, svc ends', async () => {
      const pane = await svc(['login', '--no-browser']);
      const [url] = await pane.waitFor(AUTHORIZE_URL);
      await fetch(await adminAnswers(url, 'approve'));
      await pane.waitFor('Signed in to Acme');
      await expectExit(pane, 0);
    });

    it('--no-browser: the redirect address typed into the terminal signs in', async () => {
      const pane = await svc(['login', '--no-browser']);
      const [url] = await pane.waitFor(AUTHORIZE_URL);
      const callback = await adminAnswers(url, 'approve'); // never loaded: the browser is "elsewhere"
      pane.type(callback.href);
      pane.press('Enter');
      await pane.waitFor('Signed in to Acme');
      await expectExit(pane, 0);
    });

    it('refused by the admin (access_denied): exit 3, at once', async () => {
      const pane = await svc(['login', '--no-browser']);
      const [url] = await pane.waitFor(AUTHORIZE_URL);
      await fetch(await adminAnswers(url, 'deny'));
      await pane.waitFor('refused the sign-in');
      await expectExit(pane, 3);
    });

    it('--timeout expiring: exit 3, at once', async () => {
      const pane = await svc(['login', '--no-browser', '--timeout', '1s']);
      await pane.waitFor('no sign-in arrived within 1 s', 15_000);
      await expectExit(pane, 3);
    });

    it('Ctrl-C while waiting for the sign-in: exit 130, quietly', async () => {
      const opener = fakeOpener();
      const pane = await svc(['login'], opener.env);
      await opener.opened();
      await pane.waitFor('If no browser appears');
      pane.press('C-c');
      await expectExit(pane, 130);
      expect(pane.screen()).not.toContain(UNEXPECTED);
    });

    describe('into a profile of another organization asks first', () => {
      async function loginElsewhere(columns?: number): Promise<{ pane: Pane; configDir: string }> {
        const configDir = tempConfigDir();
        mkdirSync(configDir, { recursive: true });
        writeFileSync(
          join(configDir, 'config.json'),
          JSON.stringify({
            version: 1,
            default_profile: 'default',
            profiles: { default: { base_url: emu().url, org_id: emu().seed.org_id, org_name: 'Acme' } },
          }),
        );
        const other = await emu().plane.createOrg(`Globex ${Date.now()}`);
        const pane = await term().start(['login', '--no-browser'], envFor(configDir), { columns: columns ?? 250, rows: 50 });
        const [url] = await pane.waitFor(AUTHORIZE_URL);
        await fetch(await adminAnswers(url, 'approve', { email: other.admin.email, org_id: other.org_id }));
        await pane.waitFor('Move the profile to it');
        return { pane, configDir };
      }
      const orgOf = (configDir: string) => JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles.default.org_id;

      it('y: the profile moves, exit 0', async () => {
        const { pane, configDir } = await loginElsewhere();
        pane.press('y', 'Enter');
        await pane.waitFor('Signed in to Globex');
        await expectExit(pane, 0);
        expect(orgOf(configDir)).not.toBe(emu().seed.org_id);
      });

      it('N: nothing is stored, exit 1', async () => {
        const { pane, configDir } = await loginElsewhere();
        pane.press('N', 'Enter');
        await pane.waitFor('nothing was stored');
        await expectExit(pane, 1);
        expect(orgOf(configDir)).toBe(emu().seed.org_id);
      });

      it('at 80 columns the question keeps (y/N) on its line, the sentence before it above', async () => {
        const { pane } = await loginElsewhere(80);
        await pane.waitFor('(y/N)');
        const screen = pane.screen();
        expect(screen).toMatch(/^\? Move the profile to it \(its API keys are removed\)\? \(y\/N\)/m);
        // The sentence wraps at words to the 80 columns (its continuation indented), every line within them.
        expect(screen.replace(/\n +/g, ' ')).toMatch(/^profile "default" belongs to Acme \(org_\w+\); this sign-in is for org_\w+\.$/m);
        for (const line of screen.split('\n')) if (!line.includes('/oauth/authorize?')) expect([...line].length, screen).toBeLessThanOrEqual(80);
        pane.press('N', 'Enter');
        await expectExit(pane, 1);
      });

      it('Ctrl-C: exit 130, quietly, nothing stored', async () => {
        const { pane, configDir } = await loginElsewhere();
        pane.press('C-c');
        await expectExit(pane, 130);
        expect(pane.screen()).not.toContain(UNEXPECTED);
        expect(orgOf(configDir)).toBe(emu().seed.org_id);
      });
    });
  });

  describe('keys add: the hidden prompt', () => {
    it('the key typed never appears on the screen, and is stored', async () => {
      const configDir = tempConfigDir();
      const key = emu().seed.keys.test;
      const pane = await svc(['keys', 'add', '--name', 'ci'], {}, configDir);
      await pane.waitFor('API key');
      pane.type(key);
      pane.press('Enter');
      await expectExit(pane, 0);
      expect(pane.screen()).not.toContain(key);
      expect(pane.screen()).not.toContain(key.slice(0, 16));
      expect(readFileSync(join(configDir, 'credentials.json'), 'utf8')).toContain(key);
    });

    it('Enter alone asks again, with no ✔ and nothing stored; the key typed next is taken', async () => {
      const configDir = tempConfigDir();
      const pane = await svc(['keys', 'add', '--name', 'ci'], {}, configDir);
      await pane.waitFor('API key');
      pane.press('Enter');
      await pane.waitFor('nothing was entered');
      expect(pane.screen()).not.toContain('✔');
      expect(existsSync(join(configDir, 'credentials.json'))).toBe(false);
      pane.type(emu().seed.keys.test);
      pane.press('Enter');
      await expectExit(pane, 0);
      expect(readFileSync(join(configDir, 'credentials.json'), 'utf8')).toContain(emu().seed.keys.test);
    });

    it('Ctrl-C at the prompt: exit 130, quietly', async () => {
      const pane = await svc(['keys', 'add', '--name', 'ci']);
      await pane.waitFor('API key');
      pane.type('svc_test_half');
      pane.press('C-c');
      await expectExit(pane, 130);
      expect(pane.screen()).not.toContain(UNEXPECTED);
      expect(pane.screen()).not.toContain('svc_test_half');
    });
  });

  describe('billed live actions ask first', () => {
    async function liveCall(): Promise<string> {
      const response = await fetch(`${emu().url}/v1/calls`, {
        method: 'POST',
        headers: { authorization: `Bearer ${emu().seed.keys.live}`, 'content-type': 'application/json' },
        body: JSON.stringify({ languages: ['en', 'es'] }),
      });
      return ((await response.json()) as { id: string }).id;
    }
    const actions: Array<[string, () => Promise<string[]>]> = [
      ['calls start --live', async () => ['calls', 'start', '--languages', 'en,es']],
      ['calls dial', async () => ['calls', 'dial', await liveCall(), '--to', '+14155550100']],
      ['calls lines add', async () => ['calls', 'lines', 'add', '--country', 'US']],
    ];
    for (const [name, argv] of actions) {
      describe(name, () => {
        const live = () => ({ SVC_API_KEY: emu().seed.keys.live });
        it('y: done, exit 0', async () => {
          const pane = await svc(await argv(), live());
          await pane.waitFor('continue?');
          pane.press('y', 'Enter');
          await expectExit(pane, 0);
          expect(pane.screen()).toMatch(/(call|part|line)_\w+/);
        });
        it('N: nothing done, exit 1', async () => {
          const pane = await svc(await argv(), live());
          await pane.waitFor('continue?');
          pane.press('N', 'Enter');
          await pane.waitFor('cancelled: nothing was done');
          await expectExit(pane, 1);
        });
        it('Ctrl-C: exit 130, quietly', async () => {
          const pane = await svc(await argv(), live());
          await pane.waitFor('continue?');
          pane.press('C-c');
          await expectExit(pane, 130);
          expect(pane.screen()).not.toContain(UNEXPECTED);
        });
      });
    }
  });

  describe('streams stop with Ctrl-C', () => {
    it('events tail: exit 130', async () => {
      const pane = await svc(['events', 'tail'], { SVC_API_KEY: emu().seed.keys.test });
      await pane.waitFor('Ctrl-C to stop');
      pane.press('C-c');
      await expectExit(pane, 130);
      expect(pane.screen()).not.toContain(UNEXPECTED);
    });

    it('chats stream: exit 130', async () => {
      const response = await fetch(`${emu().url}/v1/chats`, {
        method: 'POST',
        headers: { authorization: `Bearer ${emu().seed.keys.test}`, 'content-type': 'application/json' },
        body: JSON.stringify({ language: 'en' }),
      });
      const chat = ((await response.json()) as { id: string }).id;
      const pane = await svc(['chats', 'stream', chat], { SVC_API_KEY: emu().seed.keys.test });
      await pane.waitFor('Ctrl-C to stop');
      pane.press('C-c');
      await expectExit(pane, 130);
      expect(pane.screen()).not.toContain(UNEXPECTED);
    });
  });

  describe('a lock held by another process', () => {
    it('a live holder: svc says it is waiting, and finishes once the lock is released', async () => {
      const configDir = tempConfigDir();
      const release = await acquireFileLock(join(configDir, 'config.json')); // held by this test process
      const pane = await svc(['mode', 'test'], {}, configDir);
      await pane.waitFor(`svc: waiting: another svc process (pid ${process.pid}`);
      await release();
      await pane.waitFor('now uses test mode');
      await expectExit(pane, 0);
    });

    it('Ctrl-C while waiting for a live holder: exit 130, quietly', async () => {
      const configDir = tempConfigDir();
      const release = await acquireFileLock(join(configDir, 'config.json'));
      try {
        const pane = await svc(['mode', 'test'], {}, configDir);
        await pane.waitFor('svc: waiting: another svc process');
        pane.press('C-c');
        await expectExit(pane, 130);
        expect(pane.screen()).not.toContain(UNEXPECTED);
      } finally {
        await release();
      }
    });

    it('left by a SIGKILLed process: taken over at once, no wait notice', async () => {
      const configDir = tempConfigDir();
      const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore' });
      await new Promise((resolve) => child.once('spawn', resolve));
      await acquireFileLock(join(configDir, 'config.json'), { holder: { ...currentHolder(), pid: child.pid! } });
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await gone;
      const pane = await svc(['mode', 'test'], {}, configDir);
      await pane.waitFor('now uses test mode');
      await expectExit(pane, 0);
      expect(pane.screen()).not.toContain('waiting');
    });
  });
});
