// config.json: everything that is not a secret (docs/design.md "Credentials"). Reads are
// plain; every change goes through update(), which takes a cross-process lock, re-reads
// the file, applies the change and writes atomically, so concurrent svc processes never
// lose each other's changes. A file that does not parse is reported and never overwritten.
import { promises } from 'node:fs';
import { OwnFileRefusedError, readOwnFile } from '../files/own-file.js';
import { join } from 'node:path';
import type { Mode, Scope } from '../contract/constants.js';
import { ConfigError, NewerFormatFileError } from '../errors.js';
import { diskFullWords, isDiskFull, isUnwritable } from '../files/disk.js';
import { unwritable, writeConfigFile } from './writable.js';
import { withFileLock, type LockOptions } from './lock.js';
import { CONFIG_FILE } from './paths.js';
import { formatVersion } from '../shared/format-version.js';

/** The format config.json is written in (its "version"); a file without one is this format too. */
export const CONFIG_FORMAT = 1;

/** Where a secret lives (shown by `svc auth status` and `svc keys list`). */
export type SecretStorage = 'keychain' | 'file' | 'memory';

/** An API key's metadata; the key itself is in the SecretStore under `<profile>:<name>`. */
export interface KeyMeta {
  name: string;
  /** The service's key id (`key_…`), from GET /v1/account. */
  id?: string;
  mode: Mode;
  last4: string;
  scopes: string[];
  storage: SecretStorage;
  added_at: string;
  /** Stored without the service confirming its organization (a least-privilege key without account:read). */
  unverified?: boolean;
}

/** An OAuth connection's metadata; the tokens are the SecretStore entry `<profile>:oauth`. */
export interface OAuthMeta {
  client_id: string;
  scopes: string[];
  /** Access token expiry, epoch ms. */
  expires_at: number;
  storage: SecretStorage;
  /**
   * Set when the service refused a refresh (invalid_grant/invalid_client: revoked, disconnected,
   * app deleted): the connection is dead though nothing was deleted. ISO time; login clears it.
   */
  ended_at?: string;
  ended_reason?: string;
  /**
   * Set (ISO time) just before a refresh request is sent and cleared once the new pair is
   * stored: still set later means that refresh was cut short, its refresh token possibly spent.
   */
  refresh_started_at?: string;
  /**
   * Set (ISO time) before a logout revokes the sign-in, cleared with the sign-in: still set
   * later means that logout was cut short (possibly revoked), and the next logout finishes it.
   */
  logout_started_at?: string;
}

export interface Profile {
  base_url?: string;
  org_id?: string;
  org_name?: string;
  /** The default mode when neither --test/--live nor SVC_MODE says (src/credentials/mode.ts). */
  mode?: Mode;
  /**
   * The mode was stored with the profile's first credential, not chosen with `svc mode`:
   * without a terminal, billable commands do not run in such a live mode (svc help modes).
   */
  mode_implied?: boolean;
  /** API keys by name (at most one per mode is used: the one resolution finds first). */
  keys?: Record<string, KeyMeta>;
  oauth?: OAuthMeta;
}

export interface ConfigData {
  version: 1;
  default_profile?: string;
  profiles: Record<string, Profile>;
  /**
   * Secrets being written or deleted without their metadata yet (src/credentials/journal.ts):
   * what a command killed half-way leaves behind, settled by the next command.
   */
  secrets_in_flight?: SecretInFlight[];
  /**
   * `svc login`s under way (src/auth/interrupted.ts): written before the code is exchanged, so
   * the tokens of a login killed before it recorded them are found, and revoked, by the next command.
   */
  sign_ins_in_flight?: SignInInFlight[];
}

/** A login under way: no secret, only what names what it may store. */
export interface SignInInFlight {
  profile: string;
  base_url: string;
  client_id: string;
  /** The login, so that only a dead one's entry is settled. */
  pid: number;
  host: string;
  started_at: string;
}

/** A secret entry a command is about to write (with the key metadata that will describe it) or delete. */
export interface SecretInFlight {
  profile: string;
  name: string;
  /** An add: the metadata committed once the secret is stored. Absent for a delete. */
  key?: KeyMeta;
  /** An add: what the profile records with the key (the key's organization, the address it was checked at). */
  org?: { id: string; name: string; base_url: string };
  /** The writer, so that only a dead one's entry is settled. */
  pid: number;
  host: string;
  started_at: string;
}

/** config.json is small; a bigger file is not ours (and is not read whole into memory). */
export const CONFIG_MAX_BYTES = 1024 * 1024;

export const DEFAULT_PROFILE = 'default';
/** The SecretStore name of the OAuth entry (a key may not take it). */
export const OAUTH_SECRET_NAME = 'oauth';

export function emptyConfig(): ConfigData {
  return { version: 1, profiles: noPrototype({}) };
}

/**
 * A record whose lookups see only its own entries: `profiles["constructor"]` or a
 * default_profile of `__proto__` must not find Object.prototype's members as a profile.
 */
function noPrototype<T>(record: Record<string, T>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, record);
}

export interface ConfigStore {
  readonly dir: string;
  readonly path: string;
  /** The current file (an empty config when there is none). Throws ConfigError when it does not parse. */
  read(): Promise<ConfigData>;
  /** Lock, re-read, let `change` mutate the data, write atomically, unlock. Returns what `change` returns. */
  update<T>(change: (config: ConfigData) => T | Promise<T>): Promise<T>;
  /** Removes the file when it holds nothing (no profile, no default, nothing in flight). */
  removeIfEmpty?(): Promise<void>;
}

/**
 * Parses and validates the whole shape, so that a `null` or a string where an object belongs
 * is reported naming the field (never a crash later). Unknown fields are kept: a newer svc may
 * have written them.
 */
export function parseConfig(text: string, path: string): ConfigData {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw corrupt(path, (error as Error).message);
  }
  const bad = (field: string, rule: string): never => {
    throw corrupt(path, `${field} ${rule}`);
  };
  const object = (value: unknown, field: string): Record<string, unknown> => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return bad(field, 'is not an object');
    return value as Record<string, unknown>;
  };
  const optional = (record: Record<string, unknown>, key: string, field: string, type: 'string' | 'number' | 'boolean') => {
    if (record[key] !== undefined && typeof record[key] !== type) bad(`${field}.${key}`, `is not a ${type}`);
  };
  const required = (record: Record<string, unknown>, key: string, field: string, type: 'string' | 'number') => {
    if (typeof record[key] !== type) bad(`${field}.${key}`, `is not a ${type}`);
  };
  const strings = (record: Record<string, unknown>, key: string, field: string) => {
    const value = record[key];
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) bad(`${field}.${key}`, 'is not a list of strings');
  };
  const storage = (record: Record<string, unknown>, field: string) => {
    if (!['keychain', 'file', 'memory'].includes(record.storage as string))
      bad(`${field}.storage`, `is ${JSON.stringify(record.storage)}, not keychain or file`);
  };
  const mode = (value: unknown, field: string) => {
    if (value !== 'test' && value !== 'live') bad(field, `is ${JSON.stringify(value)}, not "test" or "live"`);
  };
  const keyMeta = (value: unknown, field: string) => {
    const key = object(value, field);
    required(key, 'name', field, 'string');
    mode(key.mode, `${field}.mode`);
    required(key, 'last4', field, 'string');
    strings(key, 'scopes', field);
    storage(key, field);
    required(key, 'added_at', field, 'string');
    optional(key, 'id', field, 'string');
  };

  const config = object(data, 'the file');
  // Before any other field: a newer format may have moved them.
  const format = formatVersion(config.version, CONFIG_FORMAT, CONFIG_FORMAT);
  if (format.kind === 'newer') throw new NewerFormatFileError('the config file', path, format.version, CONFIG_FORMAT);
  if (format.kind === 'invalid') bad('"version"', `is ${JSON.stringify(config.version)}, not a format version`);
  if (config.profiles === undefined) config.profiles = {};
  const profiles = noPrototype(object(config.profiles, '"profiles"'));
  config.profiles = profiles;
  for (const [name, value] of Object.entries(profiles)) {
    const field = `profiles.${name}`;
    const profile = object(value, field);
    for (const key of ['base_url', 'org_id', 'org_name']) optional(profile, key, field, 'string');
    if (profile.mode !== undefined) mode(profile.mode, `${field}.mode`);
    optional(profile, 'mode_implied', field, 'boolean');
    if (profile.keys !== undefined) {
      profile.keys = noPrototype(object(profile.keys, `${field}.keys`));
      for (const [keyName, meta] of Object.entries(profile.keys as Record<string, unknown>)) keyMeta(meta, `${field}.keys.${keyName}`);
    }
    if (profile.oauth !== undefined) {
      const oauth = object(profile.oauth, `${field}.oauth`);
      required(oauth, 'client_id', `${field}.oauth`, 'string');
      strings(oauth, 'scopes', `${field}.oauth`);
      required(oauth, 'expires_at', `${field}.oauth`, 'number');
      storage(oauth, `${field}.oauth`);
      for (const key of ['ended_at', 'ended_reason', 'refresh_started_at', 'logout_started_at']) optional(oauth, key, `${field}.oauth`, 'string');
    }
  }
  optional(config, 'default_profile', 'the file', 'string');
  if (config.secrets_in_flight !== undefined) {
    if (!Array.isArray(config.secrets_in_flight)) bad('"secrets_in_flight"', 'is not a list');
    (config.secrets_in_flight as unknown[]).forEach((value, index) => {
      const field = `secrets_in_flight[${index}]`;
      const entry = object(value, field);
      for (const key of ['profile', 'name', 'host', 'started_at']) required(entry, key, field, 'string');
      required(entry, 'pid', field, 'number');
      if (entry.key !== undefined) keyMeta(entry.key, `${field}.key`);
    });
  }
  if (config.sign_ins_in_flight !== undefined) {
    if (!Array.isArray(config.sign_ins_in_flight)) bad('"sign_ins_in_flight"', 'is not a list');
    (config.sign_ins_in_flight as unknown[]).forEach((value, index) => {
      const field = `sign_ins_in_flight[${index}]`;
      const entry = object(value, field);
      for (const key of ['profile', 'base_url', 'client_id', 'host', 'started_at']) required(entry, key, field, 'string');
      required(entry, 'pid', field, 'number');
    });
  }
  config.version = CONFIG_FORMAT;
  return config as unknown as ConfigData;
}

function corrupt(path: string, why: string): ConfigError {
  return new ConfigError(`the config file ${path} is not valid (${why}); it was left untouched`, path, `fix or remove ${path}, then run the command again`);
}

/** The file operations of FileConfigStore: a seam, so tests can make them fail as a read-only disk would (root ignores mode bits). */
export interface ConfigFs {
  readFile(path: string): Promise<string>;
  writeFileAtomic(path: string, content: string): Promise<void>;
}

const realFs: ConfigFs = {
  readFile: async (path) => readConfigFile(path),
  writeFileAtomic: (path, content) => writeConfigFile(path, content),
};

/** Reads config.json: a regular file of at most CONFIG_MAX_BYTES (src/files/own-file.ts), a link to one allowed. */
export function readConfigFile(path: string, maxBytes = CONFIG_MAX_BYTES): string {
  try {
    const text = readOwnFile(path, { what: 'the config file', maxBytes, followLinks: true });
    if (text === null) throw Object.assign(new Error(`ENOENT: no such file, open '${path}'`), { code: 'ENOENT' });
    return text;
  } catch (error) {
    if (error instanceof OwnFileRefusedError) throw new ConfigError(error.message, path, `remove or replace ${path}, or point SVC_CONFIG_DIR elsewhere`);
    throw error;
  }
}

/** EACCES/EPERM/EROFS: name the file and the next step. */
function accessHint(error: unknown, path: string, dir: string): string | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM')
    return `fix the permissions of ${path} and ${dir} (readable and writable by you), or point SVC_CONFIG_DIR at another directory`;
  return undefined;
}

export class FileConfigStore implements ConfigStore {
  readonly path: string;
  constructor(
    readonly dir: string,
    private readonly fs: ConfigFs = realFs,
    /** Waits on another process's lock: how to say so, and Ctrl-C (src/config/lock.ts). */
    private readonly lockOptions: LockOptions = {},
  ) {
    this.path = join(dir, CONFIG_FILE);
  }

  async read(): Promise<ConfigData> {
    let text: string;
    try {
      text = await this.fs.readFile(this.path);
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return emptyConfig();
      throw new ConfigError(`cannot read the config file ${this.path}: ${(error as Error).message}`, this.path, accessHint(error, this.path, this.dir));
    }
    return parseConfig(text, this.path);
  }

  async removeIfEmpty(): Promise<void> {
    await withFileLock(this.path, async () => {
      const config = await this.read();
      if (Object.keys(config.profiles).length || config.default_profile !== undefined || config.secrets_in_flight?.length || config.sign_ins_in_flight?.length)
        return;
      await promises.rm(this.path, { force: true });
    });
  }

  async update<T>(change: (config: ConfigData) => T | Promise<T>): Promise<T> {
    return withFileLock(
      this.path,
      async () => {
        const config = await this.read();
        const result = await change(config);
        try {
          await this.fs.writeFileAtomic(this.path, JSON.stringify(config, null, 2) + '\n');
        } catch (error) {
          if (error instanceof ConfigError) throw error;
          if (isDiskFull(error)) {
            const { message, hint } = diskFullWords(this.path, this.dir);
            throw new ConfigError(message, this.path, hint);
          }
          if (isUnwritable(error)) throw unwritable(this.dir, error);
          throw new ConfigError(
            `cannot write the config file ${this.path}: ${(error as Error).message}`,
            this.path,
            accessHint(error, this.path, this.dir) ?? `make ${this.dir} writable, or point SVC_CONFIG_DIR at a writable directory`,
          );
        }
        return result;
      },
      this.lockOptions,
    );
  }
}

/** The scopes type, for metadata written from API answers. */
export type { Scope };
