// Secret storage (docs/design.md "Credentials"): the OS keychain through @napi-rs/keyring
// (service `svc`, account `<profile>:<name>`), every call time-boxed at 3 s; without a
// keychain, a 0600 credentials.json beside config.json, announced BEFORE the secret is
// written and saying why (cli/cli#8954). SVC_CREDENTIAL_STORE=keychain|file forces one.
// node:fs's `promises` is read where used: fs/promises then loads only when a file is
// written or waited on, not at every start.
import { closeSync, constants, fstatSync, promises, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SecretStorage } from '../config/config.js';
import { diskFullWords, isDiskFull, prepareAtomicWrite, writeFileAtomic } from '../config/atomic.js';
import { acquireFileLock, withFileLock, type LockOptions } from '../config/lock.js';
import { CREDENTIALS_FILE } from '../config/paths.js';
import { openOwnFile, OwnFileRefusedError, tightenOwnFile } from '../config/own-file.js';
import { ConfigError, InterruptedError, KeychainError, NewerFormatFileError, UsageError } from '../errors.js';
import { lazyRequire } from '../node-require.js';
import { kernelCopiesOf, svcKernelKeys } from './kernel-keyring.js';
import { formatVersion } from '../shared/format-version.js';
import { KeychainAddonError, KeychainProcess, type KeychainRequest } from './keychain-process.js';
import type { Env } from '../shared/runtime.js';

export const KEYCHAIN_SERVICE = 'svc';
export const KEYCHAIN_TIMEOUT_MS = 3_000;

export interface SecretStore {
  /** The secret, or null when there is none. `where` (recorded in config.json) skips looking elsewhere. */
  get(profile: string, name: string, where?: SecretStorage): Promise<string | null>;
  /**
   * Stores the secret and says where it went (to record in config.json). `where` is where
   * config.json says it is now: an entry already in the file stays there without asking the
   * keychain again (or warning again: the warning is once, when the storage changes).
   */
  set(profile: string, name: string, value: string, where?: SecretStorage): Promise<SecretStorage>;
  /**
   * Removes it from every place it may be (`where`: config.json's record, `file` skips the
   * keychain). A keychain entry that could not be deleted is returned, never swallowed: the
   * command tells the user how to remove it by hand.
   */
  delete(profile: string, name: string, where?: SecretStorage): Promise<SecretLeft | null>;
  /**
   * Makes sure a new value of this secret, up to `bytes` long, can be stored, before the caller
   * does what cannot be undone (spends a refresh token). Fails now when it cannot (a full disk,
   * a lock it cannot take); absent: set() is all there is.
   */
  reserve?(profile: string, name: string, bytes: number, where?: SecretStorage): Promise<SecretReservation>;
  /**
   * Refuses now, by name, a file svc would have to keep a new secret in but could not (its
   * credentials.json of another shape), before a sign-in issues what could then not be kept.
   */
  checkStorage?(): Promise<void>;
}

/** A place made sure for one secret's next value: store() writes it there; release() gives the place up. */
export interface SecretReservation {
  /** Where the secret is stored (config.json records it). */
  store(value: string): Promise<SecretStorage>;
  /** Always called, stored or not. */
  release(): Promise<void>;
}

/** The store's reservation, or one that only calls set() when the store has none. */
export async function reserveSecret(store: SecretStore, profile: string, name: string, bytes: number, where?: SecretStorage): Promise<SecretReservation> {
  if (store.reserve) return store.reserve(profile, name, bytes, where);
  return { store: (value) => store.set(profile, name, value, where), release: async () => {} };
}

/** Storing a secret failed because the disk is full: names the file, so the user knows where to free space. */
export class DiskFullError extends ConfigError {}

/** A keychain entry, or an entry of credentials.json (`file`), that is still there after a delete. */
export interface SecretLeft {
  service: string;
  account: string;
  reason: string;
  /** How to remove it by hand on this platform. */
  remove_with: string;
  /** The credentials file that still holds it; absent: the keychain does. */
  file?: string;
}

/**
 * A delete that threw (credentials.json's lock held past the wait, a write that failed): the
 * secret is still there. `retried`: a delete announced in config.json, which a later command does again.
 */
export function leftByError(profile: string, name: string, error: unknown, retried = false): SecretLeft {
  const account = secretAccount(profile, name);
  const reason = (error as Error).message ?? String(error);
  if (!(error instanceof ConfigError)) return { service: KEYCHAIN_SERVICE, account, reason, remove_with: manualKeychainRemoval(account) };
  const byHand = `delete the "${account}" entry of ${error.path}`;
  return { service: KEYCHAIN_SERVICE, account, reason, file: error.path, remove_with: retried ? `svc tries again at its next command, or ${byHand}` : byHand };
}

export function manualKeychainRemoval(account: string, platform: string = process.platform): string {
  if (platform === 'darwin') return `security delete-generic-password -s ${KEYCHAIN_SERVICE} -a '${account}'`;
  if (platform === 'win32') return `remove the generic credential "${account}.${KEYCHAIN_SERVICE}" in Credential Manager`;
  return `secret-tool clear service ${KEYCHAIN_SERVICE} username '${account}'`;
}

/** The warning for a SecretLeft: the entry, why, and the command that removes it. */
export function describeLeft(left: SecretLeft): string {
  if (left.file) return `the secret ${left.account} in ${left.file} could not be deleted (${left.reason}); it is still there: ${left.remove_with}`;
  return `the keychain entry ${left.account} (service ${left.service}) could not be deleted (${left.reason}); it still holds the secret. Remove it by hand: ${left.remove_with}`;
}

/** What every keychain failure suggests (docs/design.md: errors name the next step). */
export const KEYCHAIN_HINT =
  'unlock or start the OS keychain (on Linux: gnome-keyring or another Secret Service), or set SVC_CREDENTIAL_STORE=file to use credentials.json, or pass a key in SVC_API_KEY';

/** The OS keychain of this platform, as its users know it. */
export function keychainName(platform: string = process.platform): string {
  if (platform === 'darwin') return 'the macOS Keychain';
  if (platform === 'win32') return 'Windows Credential Manager';
  return 'the Secret Service (GNOME Keyring, KWallet)';
}

export function secretAccount(profile: string, name: string): string {
  return `${profile}:${name}`;
}

/** The keychain itself, as a seam: the real one is @napi-rs/keyring; tests inject failing or hanging ones. */
export interface KeychainBackend {
  /** Who a call asks, for the message when it does not answer (the D-Bus address on Linux). */
  whom?: string;
  /** Ends what the backend started (the keychain process); absent when there is nothing to end. */
  close?(): void;
  get(service: string, account: string, signal: AbortSignal): Promise<string | null>;
  set(service: string, account: string, value: string, signal: AbortSignal): Promise<void>;
  delete(service: string, account: string, signal: AbortSignal): Promise<boolean>;
  /**
   * Removes a copy an earlier svc left in the Linux kernel keyring (its addon fell back there
   * unpinned); true when there was one. Absent where there is no such place.
   */
  forgetKernelCopy?(service: string, account: string, signal: AbortSignal): Promise<boolean>;
  /** The accounts of `service` with a copy in the kernel keyring (for `svc doctor`). */
  kernelCopies?(service: string): Promise<string[]>;
  /** Reads such a copy (`svc doctor --fix` moves a secret svc has nowhere else); null when there is none. */
  readKernelCopy?(service: string, account: string, signal: AbortSignal): Promise<string | null>;
}

/**
 * On Linux the addon is pinned to the Secret Service: unpinned, it falls back silently to the
 * kernel keyutils keyring, which forgets secrets (at reboot, with the login session, after
 * days unused) and keeps copies svc would not know of. Pinned, a machine without a Secret
 * Service makes every call fail, and svc uses credentials.json, saying so.
 */
export const PINNED_STORE = { linux: { store: 'secret-service' } } as const;
const KERNEL_KEYRING = { linux: { store: 'keyutils' } } as const;

/** The addon's errors where there is no Secret Service at all: no session bus, or nothing serving the secrets API on it. */
const NO_SECRET_SERVICE = /DBUS_SESSION_BUS_ADDRESS|autolaunch|org\.freedesktop\.secrets|ServiceUnknown/;

/** A keychain failure that means there is no keychain here at all (explained()'s words, or the addon's). */
const NO_SECRET_SERVICE_HERE = new RegExp(`there is no Secret Service|${NO_SECRET_SERVICE.source}`);

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
    backend.forgetKernelCopy = async (service, account, signal) => {
      const { descriptions, listed } = kernelCopiesOf(service, account);
      let found = false;
      for (const description of descriptions) {
        if (await kernelEntry(description, service, account).deletePassword(signal)) found = true;
        // Listed in /proc/keys, yet not found from here: another login session's keyring holds it.
        else if (listed) throw new Error(`${description} is in a kernel keyring this login session cannot reach`);
      }
      return found;
    };
    backend.kernelCopies = async (service) => [...new Set(svcKernelKeys(service).map((copy) => copy.account))];
    backend.readKernelCopy = async (service, account, signal) => {
      for (const description of kernelCopiesOf(service, account).descriptions) {
        const value = await kernelEntry(description, service, account).getPassword(signal);
        if (value != null) return value;
      }
      return null;
    };
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
  };
  if (platform === 'linux') {
    const kernel = (op: 'get' | 'delete', target: string, service: string, account: string, signal: AbortSignal) =>
      keychain.call({ op, service, account, target, store: 'keyutils' }, signal);
    backend.forgetKernelCopy = async (service, account, signal) => {
      const { descriptions, listed } = kernelCopiesOf(service, account);
      let found = false;
      for (const description of descriptions) {
        if (await kernel('delete', description, service, account, signal)) found = true;
        // Listed in /proc/keys, yet not found from here: another login session's keyring holds it.
        else if (listed) throw new Error(`${description} is in a kernel keyring this login session cannot reach`);
      }
      return found;
    };
    backend.kernelCopies = async (service) => [...new Set(svcKernelKeys(service).map((copy) => copy.account))];
    backend.readKernelCopy = async (service, account, signal) => {
      for (const description of kernelCopiesOf(service, account).descriptions) {
        const value = (await kernel('get', description, service, account, signal)) as string | null;
        if (value != null) return value;
      }
      return null;
    };
  }
  return backend;
}

/** What a keychain call asks, in words for a message: on Linux, the Secret Service at the session bus's address. */
function askedWhom(env: Env, platform: NodeJS.Platform): string {
  if (platform !== 'linux') return keychainName(platform);
  const bus = env.DBUS_SESSION_BUS_ADDRESS;
  return bus ? `the Secret Service on the D-Bus session bus ${JSON.stringify(bus)}` : 'the Secret Service (no D-Bus session bus is set)';
}

/** Runs one keychain call with a time limit (cli/cli#7145: keychain calls that hang forever). */
async function timeBoxed<T>(what: string, timeoutMs: number, whom: string | undefined, call: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // The backend abandons the call on this reason (and says it again to every later call).
      const error = new KeychainError(
        `the OS keychain did not answer within ${timeoutMs / 1000} s (${what}${whom ? `; ${whom}` : ''})`,
        `${whom?.includes('D-Bus') ? 'a stale DBUS_SESSION_BUS_ADDRESS (from an old SSH or tmux session) or a stopped keyring daemon does this: ' : ''}${KEYCHAIN_HINT}`,
      );
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    return await Promise.race([call(controller.signal), timeout]);
  } catch (error) {
    if (error instanceof KeychainError || error instanceof KeychainAddonError) throw error;
    throw new KeychainError(`the OS keychain failed (${what}): ${(error as Error).message}`, KEYCHAIN_HINT);
  } finally {
    clearTimeout(timer);
  }
}

export class KeychainSecretStore implements SecretStore {
  constructor(
    private readonly backend: KeychainBackend,
    private readonly timeoutMs = KEYCHAIN_TIMEOUT_MS,
  ) {}
  get(profile: string, name: string): Promise<string | null> {
    return timeBoxed('read', this.timeoutMs, this.backend.whom, (signal) => this.backend.get(KEYCHAIN_SERVICE, secretAccount(profile, name), signal));
  }
  async set(profile: string, name: string, value: string): Promise<SecretStorage> {
    await timeBoxed('write', this.timeoutMs, this.backend.whom, (signal) => this.backend.set(KEYCHAIN_SERVICE, secretAccount(profile, name), value, signal));
    return 'keychain';
  }
  async delete(profile: string, name: string): Promise<SecretLeft | null> {
    const account = secretAccount(profile, name);
    try {
      await timeBoxed('delete', this.timeoutMs, this.backend.whom, (signal) => this.backend.delete(KEYCHAIN_SERVICE, account, signal));
      return null;
    } catch (error) {
      return { service: KEYCHAIN_SERVICE, account, reason: (error as Error).message, remove_with: manualKeychainRemoval(account) };
    }
  }
  /** The accounts with a copy an earlier svc left in the Linux kernel keyring. */
  async kernelCopies(): Promise<string[]> {
    return (await this.backend.kernelCopies?.(KEYCHAIN_SERVICE)) ?? [];
  }
  /** An earlier svc's copy of this secret in the Linux kernel keyring, or null. */
  async readKernelCopy(profile: string, name: string): Promise<string | null> {
    const read = this.backend.readKernelCopy?.bind(this.backend);
    if (!read) return null;
    return timeBoxed('read from the kernel keyring', this.timeoutMs, undefined, (signal) => read(KEYCHAIN_SERVICE, secretAccount(profile, name), signal));
  }
  /** Deletes an earlier svc's copy of this secret from the Linux kernel keyring; what could not be deleted is returned. */
  async forgetKernelCopy(profile: string, name: string): Promise<SecretLeft | null> {
    const forget = this.backend.forgetKernelCopy?.bind(this.backend);
    if (!forget) return null;
    const account = secretAccount(profile, name);
    try {
      await timeBoxed('delete from the kernel keyring', this.timeoutMs, undefined, (signal) => forget(KEYCHAIN_SERVICE, account, signal));
      return null;
    } catch (error) {
      return {
        service: KEYCHAIN_SERVICE,
        account,
        reason: (error as Error).message,
        remove_with: `keyctl purge -s user 'keyring:${account}@${KEYCHAIN_SERVICE}'`,
      };
    }
  }
}

/** The format credentials.json is written in (its "version"). */
export const CREDENTIALS_FORMAT = 1;

/** credentials.json from a newer svc: refused by name, never rewritten. */
export class NewerCredentialsFileError extends NewerFormatFileError {}

interface CredentialsFile {
  version: 1;
  secrets: Record<string, string>;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * credentials.json's text as svc wrote it, else an Error naming what is wrong. A list where an
 * object belongs would take a named secret and drop it when written back (JSON has no names on
 * a list): the add would say "stored" with nothing stored.
 */
export function parseCredentialsFile(text: string): CredentialsFile {
  const data: unknown = JSON.parse(text);
  if (!isPlainObject(data)) throw new Error(`the file is ${Array.isArray(data) ? 'a list' : 'not an object'}`);
  if (formatVersion(data.version, CREDENTIALS_FORMAT, CREDENTIALS_FORMAT).kind !== 'readable')
    throw new Error(`"version" is ${JSON.stringify(data.version)}; this svc reads format ${CREDENTIALS_FORMAT}`);
  if (!isPlainObject(data.secrets)) throw new Error(`"secrets" is ${Array.isArray(data.secrets) ? 'a list' : 'not an object'}`);
  return { version: 1, secrets: data.secrets as Record<string, string> };
}

/** credentials.json, mode 0600, written atomically under a lock. */
export class FileSecretStore implements SecretStore {
  readonly path: string;
  private checked = false;
  constructor(
    readonly dir: string,
    private readonly warn: (message: string) => void = () => {},
    /** Waits on another process's lock: how to say so, and Ctrl-C (src/config/lock.ts). */
    private readonly lockOptions: LockOptions = {},
  ) {
    this.path = join(dir, CREDENTIALS_FILE);
  }
  /**
   * Once per store (one per invocation): a config dir others may write to is said with its
   * fix, since anyone who can write there can replace these files.
   */
  private async checkDirectory(): Promise<void> {
    if (this.checked || process.platform === 'win32') return;
    this.checked = true;
    const dir = await promises.stat(this.dir).catch(() => null);
    const me = process.getuid?.();
    if (dir && me !== undefined && dir.uid !== me)
      this.warn(
        `the config directory ${this.dir} belongs to another user (uid ${dir.uid}), who can read and replace the files that hold your secrets. Fix: use a folder of your own (SVC_CONFIG_DIR)`,
      );
    if (dir && (dir.mode & 0o022) !== 0)
      this.warn(
        `the config directory ${this.dir} is writable by ${dir.mode & 0o002 ? 'everyone' : 'its group'} (mode ${octal(dir.mode)}): others could replace the files that hold your secrets. Fix: chmod 700 ${this.dir}`,
      );
  }
  /**
   * credentials.json, read only when it is a regular file of at most OWN_FILE_MAX_BYTES (no
   * link, FIFO or device: src/config/own-file.ts). Open to group or others, it is tightened to
   * 0600 on the opened file itself (svc made it; something loosened it) and said.
   */
  private async read(): Promise<CredentialsFile> {
    await this.checkDirectory();
    let text: string;
    let fd: number;
    try {
      fd = openOwnFile(this.path, constants.O_RDONLY, { what: 'the credentials file' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { version: 1, secrets: {} };
      if (error instanceof OwnFileRefusedError)
        throw new ConfigError(error.message, this.path, `move ${this.path} away (svc keeps a regular file there), or set SVC_CONFIG_DIR`);
      throw new ConfigError(`cannot read the credentials file ${this.path}: ${(error as Error).message}`, this.path, permissionHint(error, this.path));
    }
    try {
      this.tighten(fd);
      // Synchronous: one small local file, read at most once a command; no thread pool, no fs/promises.
      text = readFileSync(fd, 'utf8');
    } catch (error) {
      throw new ConfigError(`cannot read the credentials file ${this.path}: ${(error as Error).message}`, this.path, permissionHint(error, this.path));
    } finally {
      closeSync(fd);
    }
    try {
      const data: unknown = JSON.parse(text);
      const format = formatVersion(isPlainObject(data) ? data.version : undefined, CREDENTIALS_FORMAT, CREDENTIALS_FORMAT);
      if (format.kind === 'newer') {
        throw new NewerCredentialsFileError('the credentials file', this.path, format.version, CREDENTIALS_FORMAT);
      }
      return parseCredentialsFile(text);
    } catch (error) {
      if (error instanceof NewerCredentialsFileError) throw error;
      throw new ConfigError(
        `the credentials file ${this.path} is not valid (${(error as Error).message}); it was left untouched`,
        this.path,
        `fix or remove ${this.path}`,
      );
    }
  }
  private tighten(fd: number): void {
    let was: number | null;
    try {
      was = tightenOwnFile(fd);
    } catch {
      const mode = fstatSync(fd).mode;
      this.warn(
        `${this.path} is open to ${mode & 0o007 ? 'others' : 'its group'} (mode ${octal(mode)}) and could not be tightened. Fix: chmod 600 ${this.path}`,
      );
      return;
    }
    if (was !== null)
      this.warn(
        `${this.path} was open to ${was & 0o007 ? 'others' : 'its group'} (mode ${octal(was)}); svc set it to 0600. Its secrets may have been read: consider replacing them`,
      );
  }
  private async change(fn: (data: CredentialsFile) => void): Promise<void> {
    await withFileLock(
      this.path,
      async () => {
        const data = await this.read();
        fn(data);
        try {
          // (The new file is made 0600; read() refused a link, so the rename replaces a regular file.)
          await writeFileAtomic(this.path, JSON.stringify(data, null, 2) + '\n', 0o600);
        } catch (error) {
          throw this.writeFailure(error);
        }
      },
      this.lockOptions,
    );
  }
  private writeFailure(error: unknown): ConfigError {
    if (error instanceof ConfigError) return error;
    if (isDiskFull(error)) {
      const { message, hint } = diskFullWords(this.path, this.dir);
      return new DiskFullError(message, this.path, hint);
    }
    return new ConfigError(`cannot write ${this.path}: ${(error as Error).message}`, this.path, 'make the config directory writable, or set SVC_CONFIG_DIR');
  }
  /**
   * Takes credentials.json's lock and writes its next version's temp file at full size now
   * (the secret's place padded to `bytes`): a full disk fails here, before anything is spent.
   * store() then rewrites that temp file, no larger, and renames it; release() lets the lock go.
   */
  async reserve(profile: string, name: string, bytes: number): Promise<SecretReservation> {
    let release: () => Promise<void>;
    try {
      await promises.mkdir(this.dir, { recursive: true, mode: 0o700 });
      release = await acquireFileLock(this.path, this.lockOptions);
    } catch (error) {
      throw this.writeFailure(error);
    }
    let prepared;
    let data: CredentialsFile;
    try {
      data = await this.read();
      const account = secretAccount(profile, name);
      const padded = { ...data, secrets: { ...data.secrets, [account]: ' '.repeat(bytes) } };
      prepared = await prepareAtomicWrite(this.path, Buffer.byteLength(JSON.stringify(padded, null, 2) + '\n'), 0o600);
    } catch (error) {
      await release();
      throw this.writeFailure(error);
    }
    const write = prepared;
    let released = false;
    return {
      store: async (value) => {
        data.secrets[secretAccount(profile, name)] = value;
        try {
          await write.commit(JSON.stringify(data, null, 2) + '\n');
        } catch (error) {
          throw this.writeFailure(error);
        }
        return 'file';
      },
      // Once: a reservation given up early (the keychain took the secret) is released again by its owner.
      release: async () => {
        if (released) return;
        released = true;
        await write.abandon();
        await release();
      },
    };
  }
  async checkStorage(): Promise<void> {
    await this.read();
  }
  /** Whether the file holds any secret of the profile (it was then told its secrets go here). */
  async holdsSecretsOf(profile: string): Promise<boolean> {
    const prefix = secretAccount(profile, '');
    return Object.keys((await this.read()).secrets).some((account) => account.startsWith(prefix));
  }
  async get(profile: string, name: string): Promise<string | null> {
    const account = secretAccount(profile, name);
    const { secrets } = await this.read();
    if (!Object.hasOwn(secrets, account)) return null;
    const value: unknown = secrets[account];
    // A hand-edited or damaged entry (a number, an object) is reported, never sent as a credential.
    if (typeof value !== 'string' || value === '')
      throw new ConfigError(
        `the "${name}" secret of profile "${profile}" in ${this.path} is damaged (${value === '' ? 'empty' : `a ${value === null ? 'null' : typeof value}, not text`}); it was not used`,
        this.path,
        name === 'oauth' ? `run \`svc login --profile ${profile}\` again` : `run \`svc keys add --profile ${profile} --name ${name}\` again`,
      );
    return value;
  }
  async set(profile: string, name: string, value: string): Promise<SecretStorage> {
    await this.change((data) => {
      data.secrets[secretAccount(profile, name)] = value;
    });
    return 'file';
  }
  async delete(profile: string, name: string): Promise<SecretLeft | null> {
    const data = await this.read();
    if (!(secretAccount(profile, name) in data.secrets)) return null;
    await this.change((d) => {
      delete d.secrets[secretAccount(profile, name)];
    });
    return null;
  }
}

/**
 * The entry `svc doctor` writes and deletes to see that the keychain takes a write. Its name
 * is one no key can have (a key's name starts with a letter or digit: keys add refuses "_"),
 * so the probe never overwrites, then deletes, a user's key.
 */
const DOCTOR_PROBE = { profile: 'svc-doctor', name: '_probe' } as const;

/**
 * A keychain failure in a few words, and its cause in a line of its own (issue 44: a cause
 * shown only with --debug left nothing to act on); the addon's full words are for --debug.
 */
export function keychainTrouble(reason: string): { short: string; cause: string } {
  const timeout = /did not answer within ([\d.]+ s) \([^;)]*(?:; ([^)]*))?\)/.exec(reason);
  if (timeout) return { short: 'the OS keychain did not answer', cause: `${timeout[2] ?? 'the OS keychain'} did not answer within ${timeout[1]}` };
  if (/no Secret Service|DBUS_SESSION_BUS_ADDRESS|org\.freedesktop\.secrets|ServiceUnknown/.test(reason))
    return {
      short: 'no OS keychain',
      cause: /DBUS_SESSION_BUS_ADDRESS|autolaunch/.test(reason)
        ? 'there is no D-Bus session bus'
        : 'nothing serves the Secret Service on the D-Bus session bus',
    };
  // D-Bus's own reply timeout (a stopped daemon, or one waiting on a prompt nobody sees).
  if (/Did not receive a reply/.test(reason))
    return {
      short: 'the OS keychain did not answer',
      cause: 'the Secret Service did not reply on the D-Bus session bus (a stopped or hung keyring daemon, or a prompt nobody sees)',
    };
  // gnome-keyring with no keyring yet: reads answer, a write finds no default collection to go in.
  if (/Secret Service: no result found/.test(reason))
    return {
      short: 'the OS keychain failed',
      cause: 'the Secret Service has no default keyring to write to (create or unlock one, e.g. in Passwords and Keys)',
    };
  const cause = reason.replace(/^the OS keychain failed \([^)]*\): /, '').split('\n')[0]!;
  return { short: 'the OS keychain failed', cause: cause.length > 160 ? `${cause.slice(0, 159)}…` : cause };
}

function octal(mode: number): string {
  return (mode & 0o777).toString(8).padStart(4, '0');
}

/** EACCES/EPERM on a config file: name it and say to fix its permissions. */
export function permissionHint(error: unknown, path: string): string | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM')
    return `fix the permissions of ${path} (it must be readable and writable by you: chmod 600 ${path}), or point SVC_CONFIG_DIR elsewhere`;
  return undefined;
}

/** In memory: tests, and nothing else. */
export class MemorySecretStore implements SecretStore {
  readonly secrets = new Map<string, string>();
  async get(profile: string, name: string): Promise<string | null> {
    return this.secrets.get(secretAccount(profile, name)) ?? null;
  }
  async set(profile: string, name: string, value: string): Promise<SecretStorage> {
    this.secrets.set(secretAccount(profile, name), value);
    return 'memory';
  }
  async delete(profile: string, name: string): Promise<SecretLeft | null> {
    this.secrets.delete(secretAccount(profile, name));
    return null;
  }
}

export type StorePreference = 'auto' | 'keychain' | 'file';

export function storePreference(value: string | undefined): StorePreference {
  if (value === undefined || value === '' || value === 'auto') return 'auto';
  if (value === 'keychain' || value === 'file') return value;
  throw new UsageError(`SVC_CREDENTIAL_STORE must be "keychain" or "file", not ${JSON.stringify(value)}`);
}

/**
 * The store commands use: keychain first, the file when the keychain fails (with a
 * warning printed before the write), or exactly one of them when SVC_CREDENTIAL_STORE says.
 */
export class FallbackSecretStore implements SecretStore {
  constructor(
    private readonly keychain: SecretStore & Partial<Pick<KeychainSecretStore, 'forgetKernelCopy'>>,
    private readonly file: FileSecretStore,
    private readonly preference: StorePreference,
    private readonly warn: (message: string) => void,
    /** --debug: the keychain's own words (D-Bus, X11) when it fails; absent, they are not shown. */
    private readonly debug?: (line: string) => void,
    /** The command's Ctrl-C: a keychain write it cut short is the interruption, never a reason to use the file. */
    private readonly stop?: AbortSignal,
  ) {}

  /** A keychain call that failed because the command was interrupted stops it (exit 130). */
  private throwIfInterrupted(): void {
    if (this.stop?.aborted) throw new InterruptedError();
  }

  async get(profile: string, name: string, where?: SecretStorage): Promise<string | null> {
    if (this.preference === 'file' || where === 'file') return this.file.get(profile, name);
    if (this.preference === 'keychain' || where === 'keychain') return this.keychain.get(profile, name);
    let failed: unknown;
    try {
      const value = await this.keychain.get(profile, name);
      if (value !== null) return value;
    } catch (error) {
      // A damaged install stops svc, and so does Ctrl-C.
      if (error instanceof KeychainAddonError) throw error;
      this.throwIfInterrupted();
      failed = error;
    }
    const fromFile = await this.file.get(profile, name);
    // No Secret Service at all: the file is the one place the secret can be. A keychain that
    // did not answer (or failed otherwise) may hold it: "none" would be a guess, and a caller
    // would make a second one (a forwarding secret) that then alternates with the keychain's.
    if (fromFile === null && failed !== undefined && !NO_SECRET_SERVICE_HERE.test((failed as Error).message ?? '')) throw failed;
    return fromFile;
  }

  async set(profile: string, name: string, value: string, where?: SecretStorage): Promise<SecretStorage> {
    const storage = await this.store(profile, name, value, where);
    // Wherever it went, an earlier svc's copy in the kernel keyring goes (issue 25).
    const left = await this.forgetKernelCopy(profile, name);
    if (left) this.warn(describeLeft(left));
    return storage;
  }

  private async store(profile: string, name: string, value: string, where?: SecretStorage): Promise<SecretStorage> {
    if (this.preference === 'file') return this.file.set(profile, name, value);
    // Already in the file (the user was warned when it went there): a rotation stays there quietly.
    if (this.preference === 'auto' && where === 'file') return this.file.set(profile, name, value);
    try {
      await this.keychain.set(profile, name, value);
    } catch (error) {
      if (error instanceof KeychainAddonError) throw error;
      this.throwIfInterrupted();
      const reason = (error as Error).message;
      if (this.preference === 'keychain')
        throw new KeychainError(
          `${reason}; SVC_CREDENTIAL_STORE=keychain forbids the file fallback`,
          'unlock or start the OS keychain, or unset SVC_CREDENTIAL_STORE',
        );
      await this.warnFallback(profile, name, reason);
      return this.file.set(profile, name, value);
    }
    // Now in the keychain: no copy may stay in the file, and one that does is said.
    await this.deleteFileCopy(profile, name);
    return 'keychain';
  }

  /** Deletes the file's copy of a secret the keychain now holds; one that stays is warned of, by name. */
  private async deleteFileCopy(profile: string, name: string): Promise<void> {
    const left = await this.file.delete(profile, name).then(
      () => null,
      (error: unknown) => leftByError(profile, name, error),
    );
    if (left) this.warn(describeLeft(left));
  }

  /** The file is read whatever the keychain does (a fallback writes it; a keychain write deletes from it). */
  checkStorage(): Promise<void> {
    return this.file.checkStorage();
  }

  /** Said before the secret touches the disk, so the user can stop here; once per profile and file (a profile with a secret there was told already), in three short lines. */
  private async warnFallback(profile: string, name: string, reason: string): Promise<void> {
    this.debug?.(`svc: keychain write of ${secretAccount(profile, name)} failed: ${reason}`);
    if (await this.file.holdsSecretsOf(profile)) return;
    const trouble = keychainTrouble(reason);
    this.warn(
      `${trouble.short}, so profile "${profile}" keeps its secrets in a file:\n  ${this.file.path} (SVC_CREDENTIAL_STORE=file chooses it on purpose)\n  why: ${trouble.cause}`,
    );
  }

  /**
   * A secret with no place yet (`where` undefined: a first sign-in) may go to the keychain or,
   * when that fails, to the file: the file's place is reserved too, and given up once the
   * keychain took it. A secret the keychain holds is rotated there: its disk is not ours to reserve.
   */
  private async reserveEither(profile: string, name: string, bytes: number): Promise<SecretReservation> {
    const fallback = await this.file.reserve(profile, name, bytes);
    return {
      store: async (value) => {
        try {
          await this.keychain.set(profile, name, value);
        } catch (error) {
          if (error instanceof KeychainAddonError) throw error;
          this.throwIfInterrupted();
          await this.warnFallback(profile, name, (error as Error).message);
          const storage = await fallback.store(value);
          const left = await this.forgetKernelCopy(profile, name);
          if (left) this.warn(describeLeft(left));
          return storage;
        }
        // In the keychain now: the file's place goes, and so does any copy left in the file.
        await fallback.release();
        await this.deleteFileCopy(profile, name);
        const left = await this.forgetKernelCopy(profile, name);
        if (left) this.warn(describeLeft(left));
        return 'keychain';
      },
      release: () => fallback.release(),
    };
  }

  /** The file's reservation when the secret goes to the file; the keychain's disk is not ours to reserve. */
  async reserve(profile: string, name: string, bytes: number, where?: SecretStorage): Promise<SecretReservation> {
    if (this.preference === 'auto' && where === undefined) return this.reserveEither(profile, name, bytes);
    if (this.preference === 'file' || (this.preference === 'auto' && where === 'file')) {
      const reservation = await this.file.reserve(profile, name, bytes);
      return {
        store: async (value) => {
          const storage = await reservation.store(value);
          const left = await this.forgetKernelCopy(profile, name);
          if (left) this.warn(describeLeft(left));
          return storage;
        },
        release: () => reservation.release(),
      };
    }
    return { store: (value) => this.set(profile, name, value, where), release: async () => {} };
  }

  async delete(profile: string, name: string, where?: SecretStorage): Promise<SecretLeft | null> {
    // Recorded as in the file: the keychain never held it (and may not exist here).
    const left = this.preference === 'file' || (this.preference === 'auto' && where === 'file') ? null : await this.keychain.delete(profile, name);
    await this.file.delete(profile, name);
    const kernelLeft = await this.forgetKernelCopy(profile, name);
    return left ?? kernelLeft;
  }

  private async forgetKernelCopy(profile: string, name: string): Promise<SecretLeft | null> {
    return (await this.keychain.forgetKernelCopy?.(profile, name)) ?? null;
  }

  /**
   * For `svc doctor`: where new secrets go here, and why. The check is what a write does: a
   * probe entry written, then deleted (issue 44: a Secret Service with no default collection
   * answers reads, while every write fails and falls back to the file). `trouble`: the cause in
   * the fallback warning's words.
   */
  async whereSecretsGo(): Promise<{ storage: 'keychain' | 'file'; path: string; reason?: string; trouble?: string; forced: boolean; probeLeft?: SecretLeft }> {
    const forced = this.preference !== 'auto';
    if (this.preference === 'file') return { storage: 'file', path: this.file.path, forced };
    try {
      await this.keychain.set(DOCTOR_PROBE.profile, DOCTOR_PROBE.name, `svc doctor's probe, deleted at once`);
    } catch (error) {
      const reason = (error as Error).message;
      const trouble = keychainTrouble(reason);
      return { storage: 'file', path: this.file.path, reason, trouble: `${trouble.short}: ${trouble.cause}`, forced };
    }
    const probeLeft = await this.keychain.delete(DOCTOR_PROBE.profile, DOCTOR_PROBE.name);
    return { storage: 'keychain', path: this.file.path, forced, ...(probeLeft ? { probeLeft } : {}) };
  }

  /** For `svc doctor`: the accounts with a copy an earlier svc left in the kernel keyring. */
  kernelCopies(): Promise<string[]> {
    return (this.keychain as Partial<KeychainSecretStore>).kernelCopies?.() ?? Promise.resolve([]);
  }

  /** For `svc doctor --fix`: an earlier svc's copy in the kernel keyring. */
  readKernelCopy(profile: string, name: string): Promise<string | null> {
    return (this.keychain as Partial<KeychainSecretStore>).readKernelCopy?.(profile, name) ?? Promise.resolve(null);
  }

  /** For `svc doctor --fix`: deletes such a copy; what stays is returned. */
  forgetKernelCopyOf(profile: string, name: string): Promise<SecretLeft | null> {
    return this.forgetKernelCopy(profile, name);
  }
}
