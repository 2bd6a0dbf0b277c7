// The context: every side effect a command may cause goes through it, so that
// commands are testable in-process (runCli) and only the process edge (src/main.ts,
// src/cli/process/process.ts) touches `process`. The CLI core fills in the services (config, credentials, api).
// It owns what lives for one invocation (the HTTP pool, the handed-out tokens) and
// disposes of it; services below take only the narrow pieces they use, never Context.
import type { ConfigData, ConfigStore } from './config/config.js';
import type { SecretStore } from './credentials/store.js';
import type { ResolvedCredential } from './credentials/resolve.js';
import type { ApiClient } from './api/client.js';
import type { HttpTransport } from './api/http.js';
import type { ProxySettings } from './api/proxy.js';
import type { Prompter } from './io/interactive.js';
import type { Io } from './io/io.js';
import type { Browser, Clock, Env, GlobalOptions, KeepEnding, Random, Uninterruptible } from './shared/runtime.js';
import type { AccessTokenOptions } from './auth/session.js';
import type { TransactionSteps } from './credentials/transaction.js';
import type { Mode } from './contract/constants.js';

export type { Input, Io, Output, Spinner } from './io/io.js';
export type { Browser, Clock, GlobalOptions, Random } from './shared/runtime.js';

export interface BaseContext {
  env: Env;
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
  /** Raw HTTP on the invocation's one connection pool (closed by dispose), with --debug logging and redaction (OAuth endpoints, discovery). */
  http: HttpTransport;
  /** The proxy variables of `env`, read once when the context is made: the HTTP pool, its errors and `svc doctor` decide from them. */
  proxy: ProxySettings;
  /** Runs fn holding the per-profile lock file (OAuth refresh; stale locks are taken over). */
  withProfileLock<T>(profile: string, fn: () => Promise<T>): Promise<T>;
  /** Test seam: pauses a profile's credential transaction at each step (src/credentials/transaction.ts). */
  transactionSteps?: TransactionSteps;
  /** Holds Ctrl-C back while a new token pair is stored (src/cli/process/process.ts); absent in tests that run in process. */
  uninterruptible?: Uninterruptible;
  /** A second Ctrl-C does not cut short what the command ends as it stops (svc mcp's live calls); absent in tests that run in process. */
  keepEnding?: KeepEnding;
  /**
   * Settles what logins killed before recording their tokens left (src/auth/interrupted.ts),
   * saying what was done on stderr. Cheap when config.json names none.
   */
  settleSignIns(config?: ConfigData): Promise<void>;
  /** The service's prices as a caller already read them (svc mcp, once per session): a dry run prices from them without asking again. */
  knownPrices?: ReadonlyArray<{ item: string; unit_amount: number; currency: string }>;
  /** The credential a request uses (docs/design.md "Credentials"); AuthError (exit 3) when there is none. */
  resolveCredential(): Promise<ResolvedCredential>;
  /** An API client for the resolved credential, made on first call. */
  api(): Promise<ApiClient<ResolvedCredential>>;
  /**
   * An API client for what `svc <command> --profile P --<mode>` would use (SVC_API_KEY and any
   * address override aside): the same resolution, its guards, and the same pipe as api().
   * Not cached: `svc auth status` asks each profile and mode once. `refresh: false` (doctor, which
   * changes nothing it checks): an OAuth token that would need a refresh is RefreshWithheldError.
   */
  apiFor(choice: { profile: string; mode: Mode; refresh?: false }): Promise<ApiClient<ResolvedCredential>>;
  /** The access token of a profile's OAuth connection, refreshed under its lock when needed (src/auth/session.ts). */
  accessToken(profile: string, opts: AccessTokenOptions): Promise<string>;
  /** Closes what the context opened (the HTTP pool's idle sockets), so the process can exit at once. */
  dispose(): Promise<void>;
}
