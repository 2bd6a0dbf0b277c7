// Copies an earlier svc left in the Linux kernel keyring: its @napi-rs/keyring was not pinned
// and fell back there silently where there was no Secret Service (issue 25). They are found
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
