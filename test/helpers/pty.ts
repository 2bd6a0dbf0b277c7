// A real terminal for the built svc: a tmux pane (Debian's tmux) that a test types into
// (send-keys) and reads (capture-pane), as a person at a terminal does. Each run is one
// tmux session on a private server whose panes stay after their process ends
// (remain-on-exit), so the exit status is tmux's own `#{pane_dead_status}`: nothing wraps
// svc, and Ctrl-C reaches svc's process group alone.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
export const svcBin = join(root, 'bin/svc.js');

/** Why tmux cannot run here, or null. */
export function tmuxProblem(): string | null {
  const probe = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
  if (probe.error) return 'tmux is not installed (Debian package tmux)';
  const version = /tmux (\d+)\.(\d+)/.exec(probe.stdout);
  // pane_dead_status and new-session -e need tmux 3.2 or later.
  if (!version || Number(version[1]) < 3 || (Number(version[1]) === 3 && Number(version[2]) < 2)) return `tmux 3.2 or later is needed, found "${probe.stdout.trim()}"`;
  return null;
}

export interface Exit {
  code: number;
  /** Time from the screen's last change to the process's end. */
  quietMs: number;
}

export interface TerminalServer {
  /** Starts `svc args…` (with this Node binary) in a new pane of `columns`×`rows`. */
  start(args: string[], env: Record<string, string>): Promise<Pane>;
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

export function terminalServer(): TerminalServer {
  const socketDir = mkdtempSync(join(tmpdir(), 'svc-tmux-'));
  const socket = join(socketDir, 'socket');
  const conf = join(socketDir, 'tmux.conf');
  // remain-on-exit: the pane (and its exit status) stays after svc ends. A large history and
  // no status line keep capture-pane to svc's own output.
  writeFileSync(conf, 'set -g remain-on-exit on\nset -g status off\nset -g history-limit 5000\n');
  // The server's environment is every pane's starting one: nothing of this process's (a
  // developer's own SVC_* variables) may reach svc, only what each test passes with -e.
  const serverEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color', LANG: 'C.UTF-8' };
  const tmux = (...args: string[]) => {
    const result = spawnSync('tmux', ['-S', socket, '-f', conf, ...args], { encoding: 'utf8', env: serverEnv });
    if (result.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${result.stderr.trim() || result.error?.message}`);
    return result.stdout;
  };
  let count = 0;

  return {
    async start(args, env) {
      const session = `svc${++count}`;
      const envArgs = Object.entries(env).flatMap(([name, value]) => ['-e', `${name}=${value}`]);
      // Several arguments after the options: tmux runs the program directly, no shell.
      tmux('new-session', '-d', '-s', session, '-x', '250', '-y', '50', '-c', root, ...envArgs, process.execPath, svcBin, ...args);
      const target = `${session}:0.0`;
      const screen = () =>
        tmux('capture-pane', '-p', '-J', '-S', '-', '-t', target)
          .split('\n')
          .map((line) => line.trimEnd())
          .join('\n')
          .trimEnd();
      /** The exit code once the pane's process has ended, else null. */
      const status = () => {
        const [dead = '', code = '', signal = ''] = tmux('display-message', '-p', '-t', target, '#{pane_dead}:#{pane_dead_status}:#{pane_dead_signal}').trim().split(':');
        if (dead !== '1') return null;
        if (signal !== '') throw new Error(`svc was killed by signal ${signal}; the screen shows:\n${screen()}`);
        // tmux marks the pane dead a moment before it records the status: ask again.
        return code === '' ? null : Number(code);
      };
      const pane: Pane = {
        screen,
        type(text) {
          tmux('send-keys', '-t', target, '-l', text);
        },
        press(...keys) {
          tmux('send-keys', '-t', target, ...keys);
        },
        async waitFor(pattern, timeoutMs = 10_000) {
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
        async exited(withinMs = 2_000) {
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
