// runCli: the whole CLI in-process (no child process), with captured stdout/stderr,
// a temp config dir, an in-memory secret store unless a test asks for another, and
// no terminal unless `tty` says so.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { execute } from '../../src/main.js';
import type { Runtime } from '../../src/cli/context.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import type { KeychainBackend, SecretStore } from '../../src/credentials/store.js';
import type { Prompter } from '../../src/io/interactive.js';
import type { Browser, Clock } from '../../src/context.js';
import type { TransactionSteps } from '../../src/credentials/transaction.js';
import type { HttpTransport } from '../../src/api/http.js';

export interface RunCliOptions {
  env?: Record<string, string>;
  tty?: boolean;
  stdin?: string;
  /** stdin as chunks that arrive (an endless one, say), instead of `stdin`'s text. */
  stdinChunks?: (signal?: AbortSignal) => AsyncIterable<string>;
  /** The config dir (SVC_CONFIG_DIR); a fresh temp dir when absent. */
  configDir?: string;
  /** The secret store; a fresh MemorySecretStore when neither this nor `keychain` is given. */
  secrets?: SecretStore;
  /** Use the real fallback store with this keychain backend (failing/hanging fakes). */
  keychain?: KeychainBackend;
  keychainTimeoutMs?: number;
  prompter?: Prompter;
  browser?: Browser;
  clock?: Clock;
  signal?: AbortSignal;
  columns?: number;
  /** Called with all of stdout so far at each write: a test can act once a line is out. */
  onStdout?: (stdout: string) => void;
  /** Pauses each profile's credential transaction at its steps (src/credentials/transaction.ts). */
  transactionSteps?: TransactionSteps;
  /** The HTTP transport (the runtime's, not closed by the command); otherwise the command opens its own. */
  http?: HttpTransport;
}

export interface RunCliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface RunCliScreen extends RunCliResult {
  /** stdout and stderr as a terminal shows them: interleaved in the order written. */
  screen: string;
}

export function tempConfigDir(): string {
  return mkdtempSync(join(tmpdir(), 'svc-test-'));
}

/** A prompter that fails the test if anything asks. */
const refusingPrompter: Prompter = {
  password: async (message) => {
    throw new Error(`unexpected prompt: ${message}`);
  },
  confirm: async (message) => {
    throw new Error(`unexpected prompt: ${message}`);
  },
};

/** runCli calls under way in this test file (a background `events tail` and the runs beside it). */

export async function runCli(argv: string[], opts: RunCliOptions = {}): Promise<RunCliScreen> {
  let stdout = '';
  let stderr = '';
  let screen = '';
  const tty = opts.tty ?? false;
  const configDir = opts.configDir ?? tempConfigDir();
  const stdinText = opts.stdin ?? '';
  const runtime: Runtime = {
    // Only what the test gives: the developer's own SVC_* variables never leak in.
    env: { HOME: configDir, SVC_CONFIG_DIR: configDir, ...(opts.env ?? {}) },
    stdout: { write: (chunk) => void ((stdout += chunk), (screen += chunk), opts.onStdout?.(stdout)), isTTY: tty, columns: opts.columns ?? 100 },
    stderr: { write: (chunk) => void ((stderr += chunk), (screen += chunk)), isTTY: tty, columns: opts.columns ?? 100 },
    stdin: {
      isTTY: tty && opts.stdin === undefined && opts.stdinChunks === undefined,
      readAll: async (maxBytes) =>
        maxBytes === undefined
          ? stdinText
          : Buffer.from(stdinText)
              .subarray(0, maxBytes + 1)
              .toString('utf8'),
      async *lines() {
        const lines = stdinText.split('\n');
        if (lines[lines.length - 1] === '') lines.pop();
        yield* lines;
      },
      ...(opts.stdinChunks ? { chunks: opts.stdinChunks } : {}),
    },
    clock: opts.clock ?? {
      now: () => Date.now(),
      sleep: (ms, signal) =>
        new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, ms);
          signal?.addEventListener(
            'abort',
            () => {
              clearTimeout(timer);
              reject(signal.reason);
            },
            { once: true },
          );
        }),
    },
    random: { bytes: (n) => new Uint8Array(randomBytes(n)) },
    browser: opts.browser ?? {
      open: async () => {
        throw new Error('no browser in tests');
      },
    },
    signal: opts.signal ?? new AbortController().signal,
    prompter: opts.prompter ?? refusingPrompter,
    ...(opts.transactionSteps ? { transactionSteps: opts.transactionSteps } : {}),
    ...(opts.http ? { http: opts.http } : {}),
  };
  if (opts.keychain) {
    runtime.keychain = opts.keychain;
    if (opts.keychainTimeoutMs !== undefined) runtime.keychainTimeoutMs = opts.keychainTimeoutMs;
  } else runtime.secrets = opts.secrets ?? new MemorySecretStore();
  const exitCode = await execute(argv, runtime);
  return { exitCode, stdout, stderr, screen };
}
