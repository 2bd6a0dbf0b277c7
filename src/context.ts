// The context: every side effect a command may cause goes through it, so that
// commands are testable in-process (runCli) and `main.ts` is the only place that
// touches `process`. The CLI core fills in the services (config, credentials, api).
import type { Mode } from './shared/constants.js';

export interface Output {
  write(chunk: string): void;
  readonly isTTY: boolean;
  readonly columns?: number;
}

export interface Input {
  readonly isTTY: boolean;
  /** The whole of stdin as text (for `--stdin`, `--input -`, pasted redirects). */
  readAll(): Promise<string>;
  /** stdin line by line, as they arrive. */
  lines(): AsyncIterable<string>;
}

export interface Io {
  stdout: Output;
  stderr: Output;
  stdin: Input;
  /** Colour decided once: a TTY, no NO_COLOR, no --no-color. */
  readonly color: boolean;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface Random {
  bytes(n: number): Uint8Array;
}

export interface Browser {
  /** Opens the URL in the user's browser; rejects when no browser can be opened. */
  open(url: string): Promise<void>;
}

export interface GlobalOptions {
  profile?: string;
  mode?: Mode;
  json: boolean;
  baseUrl?: string;
  debug: boolean;
  color: boolean;
  yes: boolean;
}

export interface BaseContext {
  env: Readonly<Record<string, string | undefined>>;
  io: Io;
  clock: Clock;
  random: Random;
  browser: Browser;
  /** Aborted on Ctrl-C (SIGINT); long-running commands stop and exit 130. */
  signal: AbortSignal;
  globals: GlobalOptions;
}
