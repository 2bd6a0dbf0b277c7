// A real terminal for the built svc: a tmux pane (Debian's tmux) that a test types into
// (send-keys) and reads (capture-pane), as a person at a terminal does. Each run is one
// tmux session on a private server. svc runs under a tiny Node parent that records its
// exit (code or signal) in a file the moment it ends: tmux's own `#{pane_dead_status}` is
// unreliable under load (tmux 3.3a left exited panes unreaped for over 10 s). The parent
// ignores SIGINT, so Ctrl-C is svc's alone to handle, as in a shell, and it stays after svc
// ends, keeping the pane alive: tmux discards what a pane's process wrote but tmux had not
// yet read when that process ends (tmux/tmux#506), which under load emptied a help page.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { svcCommand, svcPath } from './spawn.js';
import { testEmulator, type TestEmulator } from './emulator.js';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const svcBin = join(root, 'bin/svc.js');

/** Why tmux cannot run here, or null. */
export function tmuxProblem(): string | null {
  const probe = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
  if (probe.error) return 'tmux is not installed (Debian package tmux)';
  const version = /tmux (\d+)\.(\d+)/.exec(probe.stdout);
  // new-session -e (the pane's environment) needs tmux 3.2 or later.
  if (!version || Number(version[1]) < 3 || (Number(version[1]) === 3 && Number(version[2]) < 2))
    return `tmux 3.2 or later is needed, found "${probe.stdout.trim()}"`;
  return null;
}

/** Why the terminal suites cannot run here: no usable tmux, or no bundle for bin/svc.js to run. */
export function terminalProblem(): string | null {
  return tmuxProblem() ?? (existsSync(join(root, 'dist/main.cjs')) ? null : 'the bundle is missing: run npm run build');
}

export interface Exit {
  code: number;
  /** Time from the screen's last change to the process's end. */
  quietMs: number;
}

export interface TerminalServer {
  /** Starts `svc args…` (with this Node binary) in a new pane of `columns`×`rows` (250×50 unless given). */
  start(args: string[], env: Record<string, string>, size?: { columns: number; rows: number }): Promise<Pane>;
  close(): void;
}

export interface Pane {
  /** The screen as text (wrapped lines joined, trailing blanks trimmed). */
  screen(): string;
  /** Types text literally (no key names interpreted). */
  type(text: string): void;
  /** Presses keys by tmux name: 'Enter', 'C-c', 'y'. */
  press(...keys: string[]): void;
  /** Waits until the screen matches; fails with the screen after `timeoutMs`. */
  waitFor(pattern: RegExp | string, timeoutMs?: number): Promise<RegExpMatchArray>;
  /**
   * Waits for the process to end by itself: fails if it is still running `withinMs` after
   * the screen last changed. Resolves to its exit code and how long it stayed after its last output.
   */
  exited(withinMs?: number): Promise<Exit>;
  kill(): void;
}

const POLL_MS = 25;

/**
 * The parent of svc in the pane: runs argv[2] with argv[3..] with the terminal (stdin from the
 * file PTY_STDIN names, when set: \`svc … < file\` at a terminal), writes
 * {code, signal} to argv[1] when it ends, then stays until the test's tmux server is killed
 * (at most 10 minutes), so the pane lives until the test has read it.
 */
const EXIT_RECORDER = `
const { spawn } = require('node:child_process');
const { renameSync, writeFileSync } = require('node:fs');
const [file, command, ...argv] = process.argv.slice(1);
process.on('SIGINT', () => {});
const stdin = process.env.PTY_STDIN ? require('node:fs').openSync(process.env.PTY_STDIN, 'r') : 'inherit';
const child = spawn(command, argv, { stdio: [stdin, 'inherit', 'inherit'] });
child.on('exit', (code, signal) => {
  writeFileSync(file + '.tmp', JSON.stringify({ code, signal }));
  renameSync(file + '.tmp', file);
  setTimeout(() => process.exit(code ?? 1), 600000);
});
`;

/**
 * How long svc may stay after its last output: 2 s on a machine with a core to spare,
 * stretched by how overloaded it is (load average per core) up to 10 s, because an exit
 * takes CPU too and a shared 2-core machine running eight test suites has a load of ~17.
 * A process that waits for input never ends, so it fails at any stretch.
 */
export function exitBoundMs(): number {
  const perCore = loadavg()[0]! / Math.max(1, cpus().length);
  return Math.min(10_000, Math.round(2_000 * Math.max(1, perCore)));
}

export function terminalServer(): TerminalServer {
  const socketDir = mkdtempSync(join(tmpdir(), 'svc-tmux-'));
  const socket = join(socketDir, 'socket');
  const conf = join(socketDir, 'tmux.conf');
  // remain-on-exit: the pane (and svc's last screen) stays should the recorder end too. A large
  // history and no status line keep capture-pane to svc's own output.
  writeFileSync(conf, 'set -g remain-on-exit on\nset -g status off\nset -g history-limit 5000\n');
  // The server's environment is every pane's starting one: nothing of this process's (a
  // developer's own SVC_* variables) may reach svc, only what each test passes with -e.
  // (With SVC_BIN, svcPath() has no node on it: the exit recorder is started by its full path.)
  const serverEnv = { PATH: svcPath() || '/usr/bin:/bin', TERM: 'xterm-256color', LANG: 'C.UTF-8' };
  const tmux = (...args: string[]) => {
    const result = spawnSync('tmux', ['-S', socket, '-f', conf, ...args], { encoding: 'utf8', env: serverEnv });
    if (result.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${result.stderr.trim() || result.error?.message}`);
    return result.stdout;
  };
  let count = 0;

  return {
    async start(args, env, size = { columns: 250, rows: 50 }) {
      const session = `svc${++count}`;
      const envArgs = Object.entries(env).flatMap(([name, value]) => ['-e', `${name}=${value}`]);
      // Several arguments after the options: tmux runs the program directly, no shell.
      const exitFile = join(socketDir, `${session}.exit`);
      tmux(
        'new-session',
        '-d',
        '-s',
        session,
        '-x',
        String(size.columns),
        '-y',
        String(size.rows),
        '-c',
        root,
        ...envArgs,
        process.execPath,
        '-e',
        EXIT_RECORDER,
        exitFile,
        ...svcCommand(args).flat(),
      );
      const target = `${session}:0.0`;
      const screen = () =>
        tmux('capture-pane', '-p', '-J', '-S', '-', '-t', target)
          .split('\n')
          .map((line) => line.trimEnd())
          .join('\n')
          .trimEnd();
      /** svc's exit code once it has ended, else null. */
      const status = () => {
        let text: string;
        try {
          text = readFileSync(exitFile, 'utf8');
        } catch {
          return null;
        }
        const { code, signal } = JSON.parse(text) as { code: number | null; signal: string | null };
        if (signal !== null) throw new Error(`svc was killed by ${signal}; the screen shows:\n${screen()}`);
        return code;
      };
      const pane: Pane = {
        screen,
        type(text) {
          tmux('send-keys', '-t', target, '-l', text);
        },
        press(...keys) {
          tmux('send-keys', '-t', target, ...keys);
        },
        async waitFor(pattern, timeoutMs = 20_000) {
          const regex = typeof pattern === 'string' ? new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : pattern;
          const deadline = Date.now() + timeoutMs;
          for (;;) {
            const text = screen();
            const match = regex.exec(text);
            if (match) return match;
            if (Date.now() > deadline) throw new Error(`the screen never showed ${regex} within ${timeoutMs} ms; it shows:\n${text}`);
            await new Promise((resolve) => setTimeout(resolve, POLL_MS));
          }
        },
        async exited(withinMs = exitBoundMs()) {
          let last = screen();
          let changedAt = Date.now();
          for (;;) {
            const code = status();
            const now = Date.now();
            const text = screen();
            if (text !== last) {
              last = text;
              changedAt = now;
            }
            if (code !== null) return { code, quietMs: now - changedAt };
            if (now - changedAt > withinMs) {
              throw new Error(`svc was still running ${withinMs} ms after its last output; the screen shows:\n${text}`);
            }
            await new Promise((resolve) => setTimeout(resolve, POLL_MS));
          }
        },
        kill() {
          spawnSync('tmux', ['-S', socket, 'kill-session', '-t', session], { env: serverEnv });
        },
      };
      return pane;
    },
    close() {
      spawnSync('tmux', ['-S', socket, 'kill-server'], { env: serverEnv });
      rmSync(socketDir, { recursive: true, force: true });
    },
  };
}

export interface TerminalTests {
  /** The emulator and the tmux server of the file's tests; each fails if used before they started. */
  emu(): TestEmulator;
  term(): TerminalServer;
  /** svc's environment in a pane: only what a test gives, its config dir as HOME, the emulator, the file store. */
  envFor(configDir: string, extra?: Record<string, string>): Record<string, string>;
}

/** An emulator and a tmux server for the terminal tests of the describe block it is called in (beforeAll/afterAll). */
export function useTerminal(): TerminalTests {
  let emu: TestEmulator | undefined;
  let term: TerminalServer | undefined;
  beforeAll(async () => {
    emu = await testEmulator();
    term = terminalServer();
  });
  afterAll(async () => {
    term?.close();
    await emu?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the terminal tests have not started yet (use it inside tests or hooks)');
    return value;
  };
  return {
    emu: () => started(emu),
    term: () => started(term),
    envFor: (configDir, extra = {}) => ({ HOME: configDir, SVC_CONFIG_DIR: configDir, SVC_CREDENTIAL_STORE: 'file', SVC_BASE_URL: started(emu).url, ...extra }),
  };
}
