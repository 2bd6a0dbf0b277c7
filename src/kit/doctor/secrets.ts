// `svc doctor`'s secret checks: where new secrets go and why, which store holds
// each stored secret, a failure wherever a store would lose one (credentials.json on a
// tmpfs, copies an earlier svc left in the Linux kernel keyring), and with --fix those copies
// moved to where svc keeps secrets now and deleted.
import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Context } from '../../context.js';
import type { ConfigData, SecretStorage } from '../../config/config.js';
import { OAUTH_SECRET_NAME } from '../../config/config.js';
import { describeLeft, FallbackSecretStore, keychainName, secretAccount } from '../../credentials/store.js';
import { FORWARD_SECRET_NAME } from '../../events/secret.js';
import type { Check } from './check.js';

/** statfs's f_type of a tmpfs (linux/magic.h): files there are gone at reboot. */
const TMPFS_MAGIC = 0x01021994;

/** How a store is named to the user. */
function storeName(storage: SecretStorage, credentialsPath: string): string {
  if (storage === 'keychain') return keychainName();
  if (storage === 'file') return credentialsPath;
  return 'memory';
}

/** Whether `path` (or the nearest folder of it that exists) is on a tmpfs. */
async function onTmpfs(path: string): Promise<boolean> {
  for (let at = path; ; at = dirname(at)) {
    const info = await statfs(at).catch(() => null);
    if (info) return info.type === TMPFS_MAGIC;
    if (dirname(at) === at) return false;
  }
}

interface StoredSecret {
  profile: string;
  name: string;
  /** Where config.json records it; undefined for the forwarding secret (not recorded). */
  storage?: SecretStorage;
  label: string;
}

function storedSecrets(data: ConfigData): StoredSecret[] {
  const secrets: StoredSecret[] = [];
  for (const [profile, p] of Object.entries(data.profiles)) {
    if (p.oauth) secrets.push({ profile, name: OAUTH_SECRET_NAME, storage: p.oauth.storage, label: 'the OAuth sign-in' });
    for (const key of Object.values(p.keys ?? {})) secrets.push({ profile, name: key.name, storage: key.storage, label: `the ${key.mode} key "${key.name}"` });
    secrets.push({ profile, name: FORWARD_SECRET_NAME, label: 'the forwarding secret' });
  }
  return secrets;
}

export async function secretChecks(ctx: Context, data: ConfigData, fix = false): Promise<Check[]> {
  const checks: Check[] = [];
  const store = ctx.secrets instanceof FallbackSecretStore ? ctx.secrets : null;

  // Where new secrets go, and why.
  let credentialsPath = `${ctx.config.dir}/credentials.json`;
  let goTo: SecretStorage = 'memory';
  if (store) {
    const where = await store.whereSecretsGo();
    credentialsPath = where.path;
    goTo = where.storage;
    if (where.storage === 'keychain' && where.probeLeft)
      checks.push({
        check: 'keychain',
        status: 'warning',
        message: `new secrets go to ${keychainName()}, which took a test entry, but ${describeLeft(where.probeLeft)}`,
        fix: where.probeLeft.remove_with,
      });
    else if (where.storage === 'keychain')
      checks.push({ check: 'keychain', status: 'ok', message: `new secrets go to ${keychainName()}, which took a test entry (written and deleted)` });
    else if (where.forced && !where.reason)
      checks.push({ check: 'keychain', status: 'ok', message: `SVC_CREDENTIAL_STORE=file: new secrets go to ${where.path} (mode 0600), not the keychain` });
    else
      checks.push({
        check: 'keychain',
        status: where.forced ? 'failed' : 'warning',
        message: where.forced
          ? `SVC_CREDENTIAL_STORE=keychain, but ${where.reason}`
          : `${where.trouble ?? where.reason}: new secrets go to ${where.path} (mode 0600, readable only by you)`,
        fix: where.forced
          ? `start and unlock ${keychainName()}, or unset SVC_CREDENTIAL_STORE`
          : `start and unlock ${keychainName()}, or set SVC_CREDENTIAL_STORE=file to keep secrets in ${where.path} on purpose (no warning then)`,
      });
  }

  // Copies in the kernel keyring first: --fix may move a secret, and the checks below see where it went.
  const kernelChecks = process.platform === 'linux' ? await kernelKeyringChecks(ctx, data, storedSecrets(data), store, fix) : [];
  if (fix && kernelChecks.length) data = await ctx.config.read();

  // Which store holds each secret.
  const secrets = storedSecrets(data);
  for (const secret of secrets) {
    const where = `profile "${secret.profile}": ${secret.label}`;
    if (secret.storage === undefined) {
      // The forwarding secret, made on first use: said only where it is.
      for (const storage of ['file', 'keychain'] as const) {
        const value = await ctx.secrets.get(secret.profile, secret.name, storage).catch(() => null);
        if (value !== null) {
          checks.push({ check: 'keychain', status: 'ok', message: `${where} is in ${storeName(storage, credentialsPath)}` });
          break;
        }
      }
      continue;
    }
    let present: boolean;
    let reason = '';
    try {
      present = (await ctx.secrets.get(secret.profile, secret.name, secret.storage)) !== null;
    } catch (error) {
      present = false;
      reason = (error as Error).message;
    }
    const fixBy =
      secret.name === OAUTH_SECRET_NAME ? `svc login --profile ${secret.profile}` : `svc keys add --profile ${secret.profile} --name ${secret.name}`;
    checks.push(
      present
        ? { check: 'keychain', status: 'ok', message: `${where} is in ${storeName(secret.storage, credentialsPath)}` }
        : {
            check: 'keychain',
            status: 'failed',
            message: reason
              ? `${where} is in ${storeName(secret.storage, credentialsPath)}, which cannot be read: ${reason}`
              : `${where} is missing from ${storeName(secret.storage, credentialsPath)}`,
            fix: reason ? `start and unlock ${keychainName()}, or ${fixBy}` : fixBy,
          },
    );
  }

  // credentials.json on a tmpfs (/tmp, /run): its secrets are gone at reboot.
  const usesFile = goTo === 'file' || secrets.some((s) => s.storage === 'file');
  if (usesFile && process.platform === 'linux' && (await onTmpfs(credentialsPath)))
    checks.push({
      check: 'keychain',
      status: 'failed',
      message: `${credentialsPath} is on a tmpfs (kept in memory): the secrets svc keeps there are lost at reboot`,
      fix: `point SVC_CONFIG_DIR at a folder on disk, or start ${keychainName()}`,
    });

  checks.push(...kernelChecks);
  return checks;
}

/**
 * Copies an earlier svc left in the kernel keyring (its keychain addon fell back there): the
 * kernel forgets them, and svc no longer reads them. --fix moves a secret svc has nowhere
 * else to where svc keeps secrets now, then deletes every copy.
 */
async function kernelKeyringChecks(ctx: Context, data: ConfigData, secrets: StoredSecret[], store: FallbackSecretStore | null, fix: boolean): Promise<Check[]> {
  const accounts = store ? await store.kernelCopies() : [];
  if (accounts.length === 0 || !store) return [];
  if (!fix)
    return [
      {
        check: 'keychain',
        status: 'failed',
        message: `the Linux kernel keyring holds ${accounts.length} secret(s) an earlier svc left there (${accounts.join(', ')}): the kernel forgets them (at reboot, with the login session), and svc no longer reads them`,
        fix: 'svc doctor --fix (moves each one svc has nowhere else to where it keeps secrets now, then deletes them from the kernel keyring)',
      },
    ];
  const checks: Check[] = [];
  for (const account of accounts) {
    const secret = secrets.find((s) => secretAccount(s.profile, s.name) === account);
    let moved: SecretStorage | null = null;
    if (secret) {
      const value = await ctx.secrets.get(secret.profile, secret.name, secret.storage).catch(() => null);
      const copy = value === null ? await store.readKernelCopy(secret.profile, secret.name).catch(() => null) : null;
      if (copy !== null) {
        // (set() also deletes the kernel copy)
        moved = await ctx.secrets.set(secret.profile, secret.name, copy);
        if (secret.storage !== undefined) await recordStorage(ctx, secret, moved);
      }
    }
    const [profile, ...rest] = account.split(':');
    const left = moved ? null : await store.forgetKernelCopyOf(profile ?? account, rest.join(':'));
    checks.push(
      left
        ? { check: 'keychain', status: 'failed', message: describeLeft(left), fix: left.remove_with }
        : {
            check: 'keychain',
            status: 'ok',
            message: moved
              ? `moved ${account} from the kernel keyring to ${moved === 'keychain' ? keychainName() : 'credentials.json'}`
              : `deleted ${account} from the kernel keyring (svc has it elsewhere, or no longer uses it)`,
          },
    );
  }
  return checks;
}

/** config.json says where a moved secret now is. */
async function recordStorage(ctx: Context, secret: StoredSecret, storage: SecretStorage): Promise<void> {
  await ctx.config.update((config) => {
    const profile = config.profiles[secret.profile];
    if (!profile) return;
    if (secret.name === OAUTH_SECRET_NAME) {
      if (profile.oauth) profile.oauth.storage = storage;
    } else if (profile.keys?.[secret.name]) profile.keys[secret.name]!.storage = storage;
  });
}
