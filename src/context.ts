// The context: every side effect a command may cause goes through it, so that
// commands are testable in-process (runCli) and `main.ts` is the only place that
// touches `process`. The CLI core fills in the services (config, credentials, api).
import type { Mode } from './shared/constants.js';
import type { ConfigStore } from './config/config.js';
import type { SecretStore } from './credentials/store.js';
import type { ResolvedCredential } from './credentials/resolve.js';
import type { ApiClient } from './api/client.js';
import type { HttpTransport } from './api/http.js';
import type { Prompter } from './io/interactive.js';

export interface Output {
  write(chunk: string): void;
  readonly isTTY: boolean;
  readonly columns?: number;
}

export interface Input {
  readonly isTTY: boolean;
  /** The whole of stdin as text (for `--stdin`, `--input -`, pasted redirects). */
  readAll(): Promise<string>;
  /** stdin line by line, as they arrive; ends when `signal` aborts, releasing stdin so the process can exit. */
  lines(signal?: AbortSignal): AsyncIterable<string>;
  /** The whole of stdin as bytes (`svc chats voice ID -`); absent where only text is available. */
  readAllBytes?(): Promise<Uint8Array>;
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

/** Everything a command's `run(opts, ctx)` may use. Built by src/cli/context.ts. */
export interface Context extends BaseContext {
  /** `svc/<version>`: the User-Agent and `--version`. */
  version: string;
  /** config.json in the config dir: read(), update(fn) under a cross-process lock. */
  config: ConfigStore;
  /** Secrets: keychain (service `svc`, account `<profile>:<name>`), else credentials.json. */
  secrets: SecretStore;
  /** Hidden input and yes/no questions; callers check for a TTY first (src/io/interactive.ts). */
  prompter: Prompter;
  /** Raw HTTP on the process's one dispatcher, with --debug logging and redaction (OAuth endpoints, discovery). */
  http: HttpTransport;
  /** Runs fn holding the per-profile lock file (OAuth refresh; stale locks are taken over). */
  withProfileLock<T>(profile: string, fn: () => Promise<T>): Promise<T>;
  /** The profile name the globals/env/config choose (--profile, SVC_PROFILE, default_profile, "default"). */
  profileName(): Promise<string>;
  /** The credential a request uses (design.md "Credentials"); AuthError (exit 3) when there is none. */
  resolveCredential(): Promise<ResolvedCredential>;
  /** An API client for the resolved credential (undici loaded on first call). */
  api(): Promise<ApiClient>;
}
