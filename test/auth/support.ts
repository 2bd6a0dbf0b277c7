// Shared pieces of the login tests: a scripted browser that plays the admin through the
// emulator's approvals control; control-plane calls delegate to test/helpers/emulator.ts.
import { randomBytes } from 'node:crypto';
import type { Browser } from '../../src/context.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { execute } from '../../src/main.js';
import type { Runtime } from '../../src/cli/context.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import type { SecretStore } from '../../src/credentials/store.js';
import { tempConfigDir, type RunCliResult } from '../helpers/cli.js';
import { controlPlane, type EmulatorStats } from '../helpers/emulator.js';

export interface AdminChoice {
  decision?: 'approve' | 'deny';
  email?: string;
  org_id?: string;
  /** Runs after the authorize page redirected, before the browser reaches the loopback server. */
  beforeCallback?: (callbackUrl: URL) => Promise<void> | void;
}

/** A browser whose open(url) approves (or denies) at once and follows the redirect to the loopback server. */
export function scriptedBrowser(emulator: RunningEmulator, choice: AdminChoice = {}): Browser & { opened: string[] } {
  const opened: string[] = [];
  return {
    opened,
    async open(url) {
      opened.push(url);
      await controlPlane(emulator).approve({
        email: choice.email ?? emulator.seed.admin.email,
        org_id: choice.org_id ?? emulator.seed.org_id,
        decision: choice.decision ?? 'approve',
      });
      const callbackUrl = await authorizeRedirect(url);
      await choice.beforeCallback?.(callbackUrl);
      await fetch(callbackUrl);
    },
  };
}

/** GET the authorize URL as a browser would, without following: where it sends the browser. */
export async function authorizeRedirect(url: string): Promise<URL> {
  const response = await fetch(url, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (!location) throw new Error(`the authorize page answered ${response.status} without a redirect: ${await response.text()}`);
  return new URL(location, url);
}

/** A raw control-plane call (test/helpers/emulator.ts); `path` may start with /_emulator. */
export function control<T = any>(emulator: RunningEmulator, method: string, path: string, body?: unknown): Promise<T> {
  return controlPlane(emulator).request<T>(method, path, body);
}

export type Stats = EmulatorStats;

export const stats = (emulator: RunningEmulator) => controlPlane(emulator).stats();

export { controlPlane };

/** The environment of an in-process run against this emulator, with a display so the browser is tried. */
export function envFor(emulator: RunningEmulator, extra: Record<string, string> = {}): Record<string, string> {
  return { SVC_BASE_URL: emulator.url, DISPLAY: ':0', ...extra };
}

/**
 * Like runCli, but stdin is a live line source: `watch` is called with the stderr written so
 * far each time it grows, with `type(line)` to send a line to stdin whenever it likes.
 * runCli's stdin is fixed text, which cannot carry a redirect that exists only mid-login.
 */
export async function runWithPaste(
  argv: string[],
  opts: {
    env: Record<string, string>;
    watch: (stderrSoFar: string, type: (line: string) => void) => void;
    secrets?: SecretStore;
    configDir?: string;
    /** stdin is a terminal (a person could paste there). */
    stdinTty?: boolean;
    /** Defaults to one that cannot open anything. */
    browser?: Browser;
  },
): Promise<RunCliResult> {
  let stdout = '';
  let stderr = '';
  const configDir = opts.configDir ?? tempConfigDir();
  const queue: string[] = [];
  let wake: (() => void) | undefined;
  const type = (line: string) => {
    queue.push(line);
    wake?.();
  };
  const runtime: Runtime = {
    env: { HOME: configDir, SVC_CONFIG_DIR: configDir, ...opts.env },
    stdout: { write: (chunk) => void (stdout += chunk), isTTY: false },
    stderr: {
      write: (chunk) => {
        stderr += chunk;
        opts.watch(stderr, type);
      },
      isTTY: false,
    },
    stdin: {
      isTTY: opts.stdinTty ?? false,
      readAll: async () => '',
      async *lines() {
        for (;;) {
          while (queue.length) yield queue.shift()!;
          await new Promise<void>((resolve) => (wake = resolve));
        }
      },
    },
    clock: {
      now: () => Date.now(),
      sleep: (ms, signal) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, ms);
          signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
        }),
    },
    random: { bytes: (n) => new Uint8Array(randomBytes(n)) },
    browser: opts.browser ?? {
      open: async () => {
        throw new Error('no browser here');
      },
    },
    signal: new AbortController().signal,
    secrets: opts.secrets ?? new MemorySecretStore(),
  };
  const exitCode = await execute(argv, runtime);
  return { exitCode, stdout, stderr };
}
