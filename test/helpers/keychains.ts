// Keychain backends for tests: the one legitimate fake (a real keychain cannot be made
// to fail or hang on demand). Each records the calls made to it.
import type { KeychainBackend } from '../../src/credentials/store.js';

export interface RecordingKeychain extends KeychainBackend {
  calls: string[];
  entries: Map<string, string>;
}

export function workingKeychain(): RecordingKeychain {
  const entries = new Map<string, string>();
  const calls: string[] = [];
  return {
    calls,
    entries,
    async get(service, account) {
      calls.push(`get ${service} ${account}`);
      return entries.get(`${service}/${account}`) ?? null;
    },
    async set(service, account, value) {
      calls.push(`set ${service} ${account}`);
      entries.set(`${service}/${account}`, value);
    },
    async delete(service, account) {
      calls.push(`delete ${service} ${account}`);
      return entries.delete(`${service}/${account}`);
    },
  };
}

/** Fails every call the way a Linux box without a Secret Service does. */
export function failingKeychain(
  message = 'Platform secure storage failure: DBus error: The name org.freedesktop.secrets was not provided by any .service files',
): RecordingKeychain {
  const k = workingKeychain();
  const fail = async (what: string) => {
    k.calls.push(what);
    throw new Error(message);
  };
  return { ...k, get: () => fail('get'), set: () => fail('set'), delete: () => fail('delete') };
}

/** Never answers (a locked keychain waiting for a dialog nobody sees). */
export function hangingKeychain(): RecordingKeychain {
  const k = workingKeychain();
  const hang = (what: string) => {
    k.calls.push(what);
    return new Promise<never>(() => {});
  };
  return { ...k, get: () => hang('get'), set: () => hang('set'), delete: () => hang('delete') };
}
