// The OS keychain as svc reaches it: @napi-rs/keyring pinned to the Secret Service on Linux,
// asked from a process of its own (keychain-process.ts), and the kernel-keyring copies an
// earlier svc left behind.
import { lazyRequire } from '../node-require.js';
import { kernelCopyMethods, type KernelCopyMethods } from './kernel-keyring.js';
import { KeychainProcess, type KeychainRequest } from './keychain-process.js';
import { keychainName, NO_SECRET_SERVICE } from './store-errors.js';
import type { Env } from '../shared/runtime.js';

/** The keychain itself, as a seam: the real one is @napi-rs/keyring; tests inject failing or hanging ones. */
export interface KeychainBackend extends Partial<KernelCopyMethods> {
  /** Who a call asks, for the message when it does not answer (the D-Bus address on Linux). */
  whom?: string;
  /** Ends what the backend started (the keychain process); absent when there is nothing to end. */
  close?(): void;
  /** Makes ready what a write needs (the keychain process started), before a write that must not fail late. */
  prepare?(signal: AbortSignal): Promise<void>;
  get(service: string, account: string, signal: AbortSignal): Promise<string | null>;
  set(service: string, account: string, value: string, signal: AbortSignal): Promise<void>;
  delete(service: string, account: string, signal: AbortSignal): Promise<boolean>;
}

/**
 * On Linux the addon is pinned to the Secret Service: unpinned, it falls back silently to the
 * kernel keyutils keyring, which forgets secrets (at reboot, with the login session, after
 * days unused) and keeps copies svc would not know of. Pinned, a machine without a Secret
 * Service makes every call fail, and svc uses credentials.json, saying so.
 */
export const PINNED_STORE = { linux: { store: 'secret-service' } } as const;
const KERNEL_KEYRING = { linux: { store: 'keyutils' } } as const;

/** Says "no Secret Service" in words before the addon's own message, which speaks of D-Bus and X11. */
async function explained<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const message = (error as Error).message ?? String(error);
    if (process.platform === 'linux' && NO_SECRET_SERVICE.test(message)) throw new Error(`there is no Secret Service on this machine (${message})`);
    throw error;
  }
}

/** @napi-rs/keyring, loaded on first use (a native addon: never at start-up, never fatal to install). */
export function napiKeychain(platform: NodeJS.Platform = process.platform): KeychainBackend {
  // (The constructor throws when the pinned store is not there: inside the async call, a rejection.)
  const entry = async (service: string, account: string) => {
    const { AsyncEntry } = lazyRequire('@napi-rs/keyring');
    return new AsyncEntry(service, account, PINNED_STORE);
  };
  const backend: KeychainBackend = {
    async get(service, account, signal) {
      return (await explained(async () => (await entry(service, account)).getPassword(signal))) ?? null;
    },
    async set(service, account, value, signal) {
      await explained(async () => (await entry(service, account)).setPassword(value, signal));
    },
    async delete(service, account, signal) {
      return explained(async () => (await entry(service, account)).deletePassword(signal));
    },
  };
  if (platform === 'linux') {
    // A copy is addressed by its exact description (in the keyutils store, the target names it).
    const kernelEntry = (description: string, service: string, account: string) =>
      lazyRequire('@napi-rs/keyring').AsyncEntry.withTarget(description, service, account, KERNEL_KEYRING);
    Object.assign(
      backend,
      kernelCopyMethods((op, description, service, account, signal) =>
        op === 'get' ? kernelEntry(description, service, account).getPassword(signal) : kernelEntry(description, service, account).deletePassword(signal),
      ),
    );
  }
  return backend;
}

/**
 * The OS keychain svc uses: the addon, pinned (see PINNED_STORE), asked from a process of its
 * own (src/credentials/keychain-process.ts), so a call that never returns is left behind.
 */
export function osKeychain(env: Env, platform: NodeJS.Platform = process.platform, stop?: AbortSignal): KeychainBackend {
  const keychain = new KeychainProcess(env, undefined, stop);
  const call = (request: KeychainRequest, signal: AbortSignal) => explained(() => keychain.call(request, signal));
  const backend: KeychainBackend = {
    whom: askedWhom(env, platform),
    get: async (service, account, signal) => ((await call({ op: 'get', service, account, store: 'secret-service' }, signal)) as string | null) ?? null,
    set: async (service, account, value, signal) => void (await call({ op: 'set', service, account, value, store: 'secret-service' }, signal)),
    delete: async (service, account, signal) => Boolean(await call({ op: 'delete', service, account, store: 'secret-service' }, signal)),
    close: () => keychain.close(),
    prepare: (signal) => explained(() => keychain.prepare(signal)),
  };
  if (platform === 'linux')
    Object.assign(
      backend,
      kernelCopyMethods((op, target, service, account, signal) => keychain.call({ op, service, account, target, store: 'keyutils' }, signal)),
    );
  return backend;
}

/** What a keychain call asks, in words for a message: on Linux, the Secret Service at the session bus's address. */
function askedWhom(env: Env, platform: NodeJS.Platform): string {
  if (platform !== 'linux') return keychainName(platform);
  const bus = env.DBUS_SESSION_BUS_ADDRESS;
  return bus ? `the Secret Service on the D-Bus session bus ${JSON.stringify(bus)}` : 'the Secret Service (no D-Bus session bus is set)';
}
