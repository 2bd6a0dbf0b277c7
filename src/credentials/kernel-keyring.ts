// Copies an earlier svc left in the Linux kernel keyring: its @napi-rs/keyring was not pinned
// and fell back there silently where there was no Secret Service. They are found
// in /proc/keys (the keys this process may view) by their description, `<account>@<service>`
// with or without the addon's `keyring:` target prefix, and deleted through the addon.
import { readFileSync } from 'node:fs';

/** One user key of /proc/keys: its description, and whether it is already invalidated (on its way out). */
export interface KernelKey {
  description: string;
  invalidated: boolean;
}

/** The user keys of /proc/keys; null where there is no such file (a kernel without it, not Linux). */
export function listKernelKeys(read: () => string = () => readFileSync('/proc/keys', 'utf8')): KernelKey[] | null {
  let text: string;
  try {
    text = read();
  } catch {
    return null;
  }
  const keys: KernelKey[] = [];
  for (const line of text.split('\n')) {
    // id flags usage timeout perm uid gid type description: summary
    const match = /^\S+\s+(\S+)\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+user\s+(.*)$/.exec(line);
    if (!match) continue;
    keys.push({ description: match[2]!.replace(/: [^:]*$/, ''), invalidated: match[1]![6] === 'i' });
  }
  return keys;
}

/** The descriptions an entry (service, account) has had in the kernel keyring. */
export function kernelDescriptions(service: string, account: string): string[] {
  return [`keyring:${account}@${service}`, `${account}@${service}`];
}

/**
 * The descriptions of the copies of (service, account) in the kernel keyring: from /proc/keys
 * when it is there (`listed`; none: nothing to do, and the keyring is left untouched), else
 * every description it may have had, to try.
 */
export function kernelCopiesOf(service: string, account: string, keys: KernelKey[] | null = listKernelKeys()): { descriptions: string[]; listed: boolean } {
  const wanted = kernelDescriptions(service, account);
  if (keys === null) return { descriptions: wanted, listed: false };
  return { descriptions: wanted.filter((description) => keys.some((key) => key.description === description && !key.invalidated)), listed: true };
}

/** Every copy of a secret of `service` in the kernel keyring, with its account (for `svc doctor`). */
export function svcKernelKeys(service: string, keys: KernelKey[] | null = listKernelKeys()): Array<{ description: string; account: string }> {
  const suffix = `@${service}`;
  return (keys ?? [])
    .filter((key) => !key.invalidated && key.description.endsWith(suffix))
    .map((key) => ({ description: key.description, account: key.description.slice(0, -suffix.length).replace(/^keyring:/, '') }));
}

/** What a keychain backend does with the kernel-keyring copies (keychain-backend.ts's KeychainBackend has them where there is such a place). */
export interface KernelCopyMethods {
  /**
   * Removes a copy an earlier svc left in the Linux kernel keyring (its addon fell back there
   * unpinned); true when there was one. Absent where there is no such place.
   */
  forgetKernelCopy(service: string, account: string, signal: AbortSignal): Promise<boolean>;
  /** The accounts of `service` with a copy in the kernel keyring (for `svc doctor`). */
  kernelCopies(service: string): Promise<string[]>;
  /** Reads such a copy (`svc doctor --fix` moves a secret svc has nowhere else); null when there is none. */
  readKernelCopy(service: string, account: string, signal: AbortSignal): Promise<string | null>;
}

/** One kernel-keyring call of a backend: read or delete the copy with this description (the addon's `target`). */
export type KernelCall = (op: 'get' | 'delete', description: string, service: string, account: string, signal: AbortSignal) => Promise<unknown>;

/** A backend's dealings with the kernel-keyring copies, whichever way it reaches the addon (in-process or its own process). */
export function kernelCopyMethods(kernel: KernelCall): KernelCopyMethods {
  return {
    async forgetKernelCopy(service, account, signal) {
      const { descriptions, listed } = kernelCopiesOf(service, account);
      let found = false;
      for (const description of descriptions) {
        if (await kernel('delete', description, service, account, signal)) found = true;
        // Listed in /proc/keys, yet not found from here: another login session's keyring holds it.
        else if (listed) throw new Error(`${description} is in a kernel keyring this login session cannot reach`);
      }
      return found;
    },
    kernelCopies: async (service) => [...new Set(svcKernelKeys(service).map((copy) => copy.account))],
    async readKernelCopy(service, account, signal) {
      for (const description of kernelCopiesOf(service, account).descriptions) {
        const value = (await kernel('get', description, service, account, signal)) as string | null;
        if (value != null) return value;
      }
      return null;
    },
  };
}
