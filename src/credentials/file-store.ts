// credentials.json: the secrets' place without a keychain, a 0600 file beside config.json.
// node:fs's `promises` is read where used: fs/promises then loads only when a file is
// written or waited on, not at every start.
import { closeSync, constants, fstatSync, promises, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SecretStorage } from '../config/config.js';
import { diskFullWords, isDiskFull } from '../files/disk.js';
import { prepareConfigWrite, writeConfigFile } from '../config/writable.js';
import { acquireFileLock, withFileLock, type LockOptions } from '../config/lock.js';
import { CREDENTIALS_FILE } from '../config/paths.js';
import { openOwnFile, OwnFileRefusedError, tightenOwnFile } from '../files/own-file.js';
import { ConfigError, NewerFormatFileError } from '../errors.js';
import { formatVersion } from '../shared/format-version.js';
import type { SecretReservation, SecretStore } from './secret-store.js';
import { DiskFullError, permissionHint, secretAccount, type SecretLeft } from './store-errors.js';

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
   * link, FIFO or device: src/files/own-file.ts). Open to group or others, it is tightened to
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
          await writeConfigFile(this.path, JSON.stringify(data, null, 2) + '\n', 0o600);
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
      prepared = await prepareConfigWrite(this.path, Buffer.byteLength(JSON.stringify(padded, null, 2) + '\n'), 0o600);
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

function octal(mode: number): string {
  return (mode & 0o777).toString(8).padStart(4, '0');
}
