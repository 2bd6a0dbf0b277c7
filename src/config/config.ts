// config.json: everything that is not a secret (design.md "Credentials"). Reads are
// plain; every change goes through update(), which takes a cross-process lock, re-reads
// the file, applies the change and writes atomically, so concurrent svc processes never
// lose each other's changes. A file that does not parse is reported and never overwritten.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Mode, Scope } from '../shared/constants.js';
import { ConfigError } from '../errors.js';
import { writeFileAtomic } from './atomic.js';
import { withFileLock } from './lock.js';
import { CONFIG_FILE } from './paths.js';

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
}

export interface Profile {
  base_url?: string;
  org_id?: string;
  org_name?: string;
  /** The default mode when neither --test/--live nor SVC_MODE says. */
  mode?: Mode;
  /** API keys by name (at most one per mode is used: the one resolution finds first). */
  keys?: Record<string, KeyMeta>;
  oauth?: OAuthMeta;
}

export interface ConfigData {
  version: 1;
  default_profile?: string;
  profiles: Record<string, Profile>;
}

export const DEFAULT_PROFILE = 'default';
/** The SecretStore name of the OAuth entry (a key may not take it). */
export const OAUTH_SECRET_NAME = 'oauth';

export function emptyConfig(): ConfigData {
  return { version: 1, profiles: {} };
}

export interface ConfigStore {
  readonly dir: string;
  readonly path: string;
  /** The current file (an empty config when there is none). Throws ConfigError when it does not parse. */
  read(): Promise<ConfigData>;
  /** Lock, re-read, let `change` mutate the data, write atomically, unlock. Returns what `change` returns. */
  update<T>(change: (config: ConfigData) => T | Promise<T>): Promise<T>;
}

/** Validates the parsed JSON just enough that the rest of the code can trust the shape. */
export function parseConfig(text: string, path: string): ConfigData {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw corrupt(path, (error as Error).message);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw corrupt(path, 'not a JSON object');
  const config = data as Partial<ConfigData>;
  if (config.profiles === undefined) config.profiles = {};
  if (typeof config.profiles !== 'object' || config.profiles === null || Array.isArray(config.profiles))
    throw corrupt(path, '"profiles" is not an object');
  for (const [name, profile] of Object.entries(config.profiles)) {
    if (typeof profile !== 'object' || profile === null || Array.isArray(profile)) throw corrupt(path, `profile "${name}" is not an object`);
    if (profile.mode !== undefined && profile.mode !== 'test' && profile.mode !== 'live')
      throw corrupt(path, `profile "${name}" has mode ${JSON.stringify(profile.mode)}`);
  }
  if (config.default_profile !== undefined && typeof config.default_profile !== 'string')
    throw corrupt(path, '"default_profile" is not a string');
  config.version = 1;
  return config as ConfigData;
}

function corrupt(path: string, why: string): ConfigError {
  return new ConfigError(
    `the config file ${path} is not valid (${why}); it was left untouched`,
    path,
    `fix or remove ${path}, then run the command again`,
  );
}

/** The file operations of FileConfigStore: a seam, so tests can make them fail as a read-only disk would (root ignores mode bits). */
export interface ConfigFs {
  readFile(path: string): Promise<string>;
  writeFileAtomic(path: string, content: string): Promise<void>;
}

const realFs: ConfigFs = {
  // Synchronous: a small local file read once or twice a command costs microseconds this way,
  // against the thread pool and the fs/promises module (~1 ms, ~1 MiB) of an asynchronous read.
  readFile: async (path) => readFileSync(path, 'utf8'),
  writeFileAtomic: (path, content) => writeFileAtomic(path, content),
};

/** EACCES/EPERM/EROFS: name the file and the next step. */
function accessHint(error: unknown, path: string, dir: string): string | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') return `fix the permissions of ${path} and ${dir} (readable and writable by you), or point SVC_CONFIG_DIR at another directory`;
  return undefined;
}

export class FileConfigStore implements ConfigStore {
  readonly path: string;
  constructor(
    readonly dir: string,
    private readonly fs: ConfigFs = realFs,
  ) {
    this.path = join(dir, CONFIG_FILE);
  }

  async read(): Promise<ConfigData> {
    let text: string;
    try {
      text = await this.fs.readFile(this.path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return emptyConfig();
      throw new ConfigError(`cannot read the config file ${this.path}: ${(error as Error).message}`, this.path, accessHint(error, this.path, this.dir));
    }
    return parseConfig(text, this.path);
  }

  async update<T>(change: (config: ConfigData) => T | Promise<T>): Promise<T> {
    return withFileLock(this.path, async () => {
      const config = await this.read();
      const result = await change(config);
      try {
        await this.fs.writeFileAtomic(this.path, JSON.stringify(config, null, 2) + '\n');
      } catch (error) {
        throw new ConfigError(
          `cannot write the config file ${this.path}: ${(error as Error).message}`,
          this.path,
          accessHint(error, this.path, this.dir) ?? `make ${this.dir} writable, or point SVC_CONFIG_DIR at a writable directory`,
        );
      }
      return result;
    });
  }
}

/** The scopes type, for metadata written from API answers. */
export type { Scope };
