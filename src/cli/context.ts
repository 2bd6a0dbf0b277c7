// Builds the Context for one invocation from the runtime (real process or test) and
// the parsed global flags. Nothing here loads a heavy library: the keychain, undici and
// the API client are imported on first use.
import type { BaseContext, Context, GlobalOptions, Input, Output, Clock, Random, Browser } from '../context.js';
import { FileConfigStore } from '../config/config.js';
import type { ConfigStore } from '../config/config.js';
import { configDir } from '../config/paths.js';
import { withProfileLockIn } from '../config/lock.js';
import type { KeychainBackend, SecretStore } from '../credentials/store.js';
import { FallbackSecretStore, FileSecretStore, KeychainSecretStore, napiKeychain, storePreference } from '../credentials/store.js';
import { chooseProfileName, resolveCredential } from '../credentials/resolve.js';
import type { ResolvedCredential } from '../credentials/resolve.js';
import type { ApiClient } from '../api/client.js';
import { createHttp } from '../api/http.js';
import type { HttpTransport } from '../api/http.js';
import { terminalPrompter } from '../io/interactive.js';
import type { Prompter } from '../io/interactive.js';
import { redactText } from '../io/redact.js';
import { userAgent } from './version.js';

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
  prompter?: Prompter;
  http?: HttpTransport;
  config?: ConfigStore;
}

/** Colour: a TTY, no NO_COLOR (any value, no-color.org), no --no-color, not TERM=dumb. */
export function decideColor(env: Runtime['env'], stdout: Output, flag: boolean): boolean {
  return stdout.isTTY && flag && env.NO_COLOR === undefined && env.TERM !== 'dumb';
}

export function createContext(runtime: Runtime, globals: GlobalOptions, version: string): Context {
  const { env } = runtime;
  const dir = configDir(env);
  const stderr = runtime.stderr;
  const base: BaseContext = {
    env,
    io: { stdout: runtime.stdout, stderr, stdin: runtime.stdin, color: decideColor(env, runtime.stdout, globals.color) },
    clock: runtime.clock,
    random: runtime.random,
    browser: runtime.browser,
    signal: runtime.signal,
    globals,
  };
  // A lock held by another live process: say why the command is waiting, on a terminal (like a
  // 429 wait: progress, which parallel scripted runs need not hear); Ctrl-C stops the wait.
  const lockOptions = { onWait: (message: string) => void (stderr.isTTY && stderr.write(`svc: ${message}\n`)), signal: runtime.signal };
  const config = runtime.config ?? new FileConfigStore(dir, undefined, lockOptions);
  let secrets = runtime.secrets;
  if (!secrets) {
    const preference = storePreference(env.SVC_CREDENTIAL_STORE);
    secrets = new FallbackSecretStore(
      new KeychainSecretStore(runtime.keychain ?? napiKeychain(), runtime.keychainTimeoutMs),
      new FileSecretStore(dir, (message) => stderr.write(`warning: ${message}\n`), lockOptions),
      preference,
      (message) => stderr.write(`warning: ${message}\n`),
    );
  }
  const http =
    runtime.http ??
    createHttp({
      env,
      userAgent: userAgent(version),
      debug: globals.debug ? (line) => stderr.write(`${redactText(line)}\n`) : undefined,
      now: () => runtime.clock.now(),
    });

  let credential: Promise<ResolvedCredential> | undefined;
  let client: Promise<ApiClient> | undefined;
  const ctx: Context = {
    ...base,
    version,
    config,
    secrets,
    prompter: runtime.prompter ?? terminalPrompter,
    http,
    withProfileLock: (profile, fn) => withProfileLockIn(dir, profile, fn, lockOptions),
    profileName: async () => chooseProfileName(ctx, await config.read()),
    resolveCredential: () => (credential ??= resolveCredential(ctx)),
    api: () =>
      (client ??= (async () => {
        const resolving = ctx.resolveCredential();
        // The HTTP stack loads while the credential is read: a keychain read is a round trip to
        // the Secret Service (D-Bus), during which this thread would otherwise sit idle. An
        // immediate runs once the read is under way (after the microtasks that start it).
        if (http.prepare) {
          const prepare = http.prepare.bind(http);
          setImmediate(prepare);
        }
        const resolved = await resolving;
        if (globals.debug)
          stderr.write(`svc: ${resolved.source === 'env' ? 'SVC_API_KEY' : `profile "${resolved.profileName}"`}, ${resolved.mode} mode, ${resolved.kind === 'oauth' ? 'OAuth' : 'API key'}, ${resolved.baseUrl}\n`);
        const { createApiClient } = await import('../api/client.js');
        return createApiClient(ctx, resolved);
      })()),
  };
  // A failed resolution is not cached: a command may fix the config and ask again.
  const resolve = ctx.resolveCredential;
  ctx.resolveCredential = () => resolve().catch((error: unknown) => {
    credential = undefined;
    client = undefined;
    throw error;
  });
  return ctx;
}
