// Builds the Context for one invocation from the runtime (real process or test) and
// the parsed global flags. Nothing here loads a heavy library: the keychain, undici and
// the API client are imported on first use. What the context opens for the invocation
// (the HTTP pool, the OAuth session's handed-out tokens) is its own, closed by dispose().
import type { BaseContext, Context, GlobalOptions, Input, Output, Clock, Random, Browser } from '../context.js';
import type { Io, Spinner, SpinnerFactory } from '../io/io.js';
import { FileConfigStore } from '../config/config.js';
import type { ConfigData, ConfigStore } from '../config/config.js';
import { configDir } from '../config/paths.js';
import { withProfileLockIn } from '../config/lock.js';
import type { TransactionSteps } from '../credentials/transaction.js';
import type { KeepEnding, Uninterruptible } from '../shared/runtime.js';
import type { KeychainBackend, SecretStore } from '../credentials/store.js';
import { FallbackSecretStore, FileSecretStore, KeychainSecretStore, osKeychain, storePreference } from '../credentials/store.js';
import { resolveCredential } from '../credentials/resolve.js';
import type { ResolvedCredential } from '../credentials/resolve.js';
import { confirmedOrg } from '../credentials/confirmed.js';
import type { ApiClient } from '../api/client.js';
import type { AccessTokenOptions, OAuthSession } from '../auth/session.js';
import { createHttp, type OwnedHttpTransport } from '../api/http.js';
import { proxySettings, type ProxySettings } from '../api/proxy.js';
import type { HttpTransport } from '../api/http.js';
import type { Prompter } from '../io/interactive.js';
import { AuthError, RefreshWithheldError, UsageError } from '../errors.js';
import { redactText } from '../io/redact.js';
import { watchRequest } from '../io/waiting.js';
import { userAgent } from '../shared/version.js';
import { setMaxListeners } from 'node:events';

/** What the process (main.ts) or a test (runCli) provides. */
export interface Runtime {
  env: Readonly<Record<string, string | undefined>>;
  stdout: Output;
  stderr: Output;
  stdin: Input;
  clock: Clock;
  random: Random;
  browser: Browser;
  signal: AbortSignal;
  /** Test seams; the defaults are the real ones. */
  secrets?: SecretStore;
  keychain?: KeychainBackend;
  keychainTimeoutMs?: number;
  /** The person at the terminal (src/io/interactive.ts terminalPrompter); without one, nothing can be asked. */
  prompter?: Prompter;
  /** Spinners on the real stderr (src/io/interactive.ts oraSpinners); without one, none are shown. */
  spinner?: SpinnerFactory;
  /** A transport the runtime owns (not closed by dispose); otherwise the context opens its own. */
  http?: HttpTransport;
  config?: ConfigStore;
  /** Pauses each profile's credential transaction at its steps (src/credentials/transaction.ts). */
  transactionSteps?: TransactionSteps;
  /** Holds Ctrl-C back while a new token pair is stored (src/cli/process/process.ts). */
  uninterruptible?: Uninterruptible;
  /** Keeps a second Ctrl-C from ending the process while the command ends what it started (src/cli/process/signals.ts). */
  keepEnding?: KeepEnding;
  /** The Idempotency-Key of the run's first create (src/api/client.ts), when its caller may send it again (svc mcp). */
  idempotencyKey?: string;
  /** The service's prices as the caller read them (Context.knownPrices). */
  knownPrices?: Context['knownPrices'];
}

const noSpinner: Spinner = { stop() {} };

/** Settles what killed logins left (src/auth/interrupted.ts), each thing done said on stderr. */
async function settleSignInsSaying(ctx: Context, stderr: Output, known?: ConfigData): Promise<void> {
  const config = known ?? (await ctx.config.read());
  if (!config.sign_ins_in_flight) return;
  const { settleSignIns } = await import('../auth/interrupted.js');
  for (const line of await settleSignIns(ctx, config)) stderr.write(`warning: ${redactText(line)}\n`);
}

const noPrompter: Prompter = {
  password: async () => {
    throw new UsageError('cannot ask: this runtime has no terminal');
  },
  confirm: async () => {
    throw new UsageError('cannot ask: this runtime has no terminal');
  },
};

/** Colour: a TTY, no NO_COLOR (any non-empty value; set but empty leaves colour on, no-color.org), no --no-color, not TERM=dumb. */
export function decideColor(env: Runtime['env'], stdout: Output, flag: boolean): boolean {
  return stdout.isTTY && flag && !env.NO_COLOR && env.TERM !== 'dumb';
}

/** The terminal side of the context: streams, colour, and whether anyone can be asked. */
function ioOf(runtime: Runtime, color: boolean): Io {
  const { stderr } = runtime;
  return {
    stdout: runtime.stdout,
    stderr,
    stdin: runtime.stdin,
    color,
    canPrompt: () => runtime.stdin.isTTY && stderr.isTTY,
    progress: (message) => void (stderr.isTTY && stderr.write(`${message}\n`)),
    spinner: async (text) => (stderr.isTTY && runtime.spinner ? runtime.spinner(text, color) : noSpinner),
  };
}

/** The keychain, with credentials.json as its fallback (SVC_CREDENTIAL_STORE forces one), warning on stderr. */
function secretStoreOf(
  runtime: Runtime,
  dir: string,
  debug: boolean,
  lockOptions: ConstructorParameters<typeof FileSecretStore>[2],
  keychain: KeychainBackend,
): SecretStore {
  const warn = (message: string) => runtime.stderr.write(`warning: ${message}\n`);
  return new FallbackSecretStore(
    new KeychainSecretStore(keychain, runtime.keychainTimeoutMs),
    new FileSecretStore(dir, warn, lockOptions),
    storePreference(runtime.env.SVC_CREDENTIAL_STORE),
    warn,
    debug ? (line) => runtime.stderr.write(`${redactText(line)}\n`) : undefined,
    runtime.signal,
  );
}

export function createContext(runtime: Runtime, globals: GlobalOptions, version: string): Context {
  const { env } = runtime;
  const dir = configDir(env);
  const stderr = runtime.stderr;
  const base = baseOf(runtime, globals);
  // A lock held by another live process for over a second: say why the command is waiting, on
  // stderr also in a script (a stall with no word is what a lock left by a killed process used
  // to look like); Ctrl-C stops the wait.
  const lockOptions = { onWait: (message: string) => base.io.stderr.write(`svc: ${message}\n`), signal: runtime.signal };
  const { config, secrets, keychain } = storesOf(runtime, dir, globals.debug, lockOptions);
  // The proxy variables, read once: this pool's choice (never another invocation's), its errors' and doctor's.
  const proxy = proxySettings(env);
  const { http, ownHttp } = httpOf(runtime, base, version, proxy);
  let credential: Promise<ResolvedCredential> | undefined;
  let client: Promise<ApiClient<ResolvedCredential>> | undefined;
  let session: Promise<OAuthSession> | undefined;
  const clientFor = clientMaker(() => ctx, runtime, globals.debug);
  const ctx: Context = {
    ...base,
    version,
    config,
    secrets,
    prompter: runtime.prompter ?? noPrompter,
    http,
    proxy,
    withProfileLock: (profile, fn) => withProfileLockIn(dir, profile, fn, lockOptions),
    ...(runtime.transactionSteps ? { transactionSteps: runtime.transactionSteps } : {}),
    ...(runtime.uninterruptible ? { uninterruptible: runtime.uninterruptible } : {}),
    ...(runtime.keepEnding ? { keepEnding: runtime.keepEnding } : {}),
    settleSignIns: (known) => settleSignInsSaying(ctx, stderr, known),
    ...(runtime.knownPrices ? { knownPrices: runtime.knownPrices } : {}),
    // A failed resolution is not cached: a command may fix the config and ask again.
    resolveCredential: () =>
      (credential ??= resolveCredential(ctx)).catch((error: unknown) => {
        credential = undefined;
        client = undefined;
        throw error;
      }),
    api: () => (client ??= clientFor(ctx.resolveCredential())),
    apiFor: ({ profile, mode, refresh }) => {
      // The choice is the caller's: SVC_API_KEY, SVC_PROFILE, SVC_MODE and an address override are set aside.
      const env = { ...ctx.env, SVC_API_KEY: undefined, SVC_PROFILE: undefined, SVC_MODE: undefined, SVC_BASE_URL: undefined };
      return clientFor(resolveCredential({ ...ctx, env, globals: { ...ctx.globals, profile, mode, baseUrl: undefined } }), refresh !== false);
    },
    async accessToken(profile, opts) {
      session ??= import('../auth/session.js').then(({ createOAuthSession }) =>
        createOAuthSession({ ...ctx, warn: (message) => stderr.write(`warning: ${message}\n`) }),
      );
      return (await session).accessToken(profile, opts);
    },
    async dispose() {
      await closeSession(session);
      keychain?.close?.();
      await ownHttp?.close();
    },
  };
  return ctx;
}

/** What every context has of the runtime: its streams as the terminal side (io), clock, random, browser, signal and flags. */
function baseOf(runtime: Runtime, globals: GlobalOptions): BaseContext {
  // Each request in flight listens to the command's signal (its transport and its waiting line),
  // and a command may have many in flight (translate --lines): not a leak, so no warning for it.
  setMaxListeners(0, runtime.signal);
  return {
    env: runtime.env,
    io: ioOf(runtime, decideColor(runtime.env, runtime.stdout, globals.color)),
    clock: runtime.clock,
    random: runtime.random,
    browser: runtime.browser,
    signal: runtime.signal,
    globals,
  };
}

/** config.json and the secret stores: the runtime's own (tests), else the files in `dir` and the OS keychain (closed by dispose). */
function storesOf(
  runtime: Runtime,
  dir: string,
  debug: boolean,
  lockOptions: ConstructorParameters<typeof FileSecretStore>[2],
): { config: ConfigStore; secrets: SecretStore; keychain: KeychainBackend | undefined } {
  const config = runtime.config ?? new FileConfigStore(dir, undefined, lockOptions);
  if (runtime.secrets) return { config, secrets: runtime.secrets, keychain: undefined };
  const keychain = runtime.keychain ?? osKeychain(runtime.env, undefined, runtime.signal);
  return { config, secrets: secretStoreOf(runtime, dir, debug, lockOptions, keychain), keychain };
}

/** The context's HTTP: the runtime's transport, or a pool of its own (`ownHttp`, closed by dispose); each request watched. */
function httpOf(runtime: Runtime, base: BaseContext, version: string, proxy: ProxySettings): { http: HttpTransport; ownHttp: OwnedHttpTransport | undefined } {
  const { globals, io } = base;
  const ownHttp = runtime.http
    ? undefined
    : createHttp({
        env: runtime.env,
        proxy,
        userAgent: userAgent(version),
        debug: globals.debug ? (line) => runtime.stderr.write(`${redactText(line)}\n`) : undefined,
        now: () => runtime.clock.now(),
      });
  const transport = runtime.http ?? ownHttp!;
  return { http: watched(transport, { io, clock: runtime.clock, signal: runtime.signal, json: globals.json }), ownHttp };
}

/** The one pipe every request goes out through: the resolved credential's client on the context's HTTP pool. */
function clientMaker(
  contextOf: () => Context,
  runtime: Runtime,
  debug: boolean,
): (resolving: Promise<ResolvedCredential>, refresh?: boolean) => Promise<ApiClient<ResolvedCredential>> {
  return async (resolving, refresh = true) => {
    const ctx = contextOf();
    // The HTTP stack loads while the credential is read: a keychain read is a round trip to
    // the Secret Service (D-Bus), during which this thread would otherwise sit idle. An
    // immediate runs once the read is under way (after the microtasks that start it).
    if (ctx.http.prepare) {
      const prepare = ctx.http.prepare.bind(ctx.http);
      setImmediate(prepare);
    }
    const resolved = await resolving;
    if (debug)
      runtime.stderr.write(
        `svc: ${resolved.source === 'env' ? 'SVC_API_KEY' : `profile "${resolved.profileName}"`}, ${resolved.mode} mode, ${resolved.kind === 'oauth' ? 'OAuth' : 'API key'}, ${resolved.baseUrl}\n`,
      );
    const { createApiClient } = await import('../api/client.js');
    const keyed = { ...ctx, idempotencyKey: runtime.idempotencyKey };
    const currentToken = (profile: string, opts: AccessTokenOptions) => currentAccessToken(ctx, runtime.clock, profile, opts);
    return createApiClient(refresh ? keyed : { ...keyed, accessToken: currentToken }, resolved, confirmedOrg(resolved));
  };
}

/** The stored access token as it is: one that needs a refresh is not refreshed (a check must not rotate what it checks). */
async function currentAccessToken(ctx: Context, clock: Clock, profile: string, opts: AccessTokenOptions): Promise<string> {
  const { readStored, storageOf, REFRESH_AHEAD_MS } = await import('../auth/stored.js');
  const stored = await readStored(ctx, profile, storageOf(await ctx.config.read(), profile));
  if (stored === null) throw new AuthError(`profile "${profile}" has no OAuth sign-in stored`, `run \`svc login --profile ${profile}\``);
  if (opts.forceRefresh || stored.expires_at - REFRESH_AHEAD_MS <= clock.now()) throw new RefreshWithheldError(profile);
  return stored.access_token;
}

/** Before the pool closes: a refreshed pair that could not be stored is revoked through it. */
async function closeSession(session: Promise<OAuthSession> | undefined): Promise<void> {
  await (await session)?.close();
}

/** Each request watched (src/io/waiting.ts): a spinner when it goes unanswered at a terminal, and what Ctrl-C stopped. */
function watched(transport: HttpTransport, watch: Parameters<typeof watchRequest>[0]): HttpTransport {
  return {
    fetch: (url, init) => watchRequest(watch, init?.method ?? 'GET', new URL(url), transport.fetch(url, init)),
    ...(transport.deadline ? { deadline: (bytes: number) => transport.deadline!(bytes) } : {}),
    ...(transport.prepare ? { prepare: () => transport.prepare!() } : {}),
  };
}
