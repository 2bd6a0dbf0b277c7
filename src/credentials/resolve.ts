// Which credential a request uses (design.md "Credentials"), first match wins:
//   SVC_API_KEY (mode from its prefix)
//   → the profile chosen by --profile / SVC_PROFILE / default_profile / "default",
//     in the mode chosen by --test/--live / SVC_MODE / the profile's mode:
//       test → the test key; live → the OAuth connection, else the live key.
// A mode with no credential is an AuthError (exit 3) naming the command that fixes it.
// A stored credential goes only to its profile's origin (src/credentials/origin.ts): an
// address from --base-url / SVC_BASE_URL picks the one profile bound to it when no profile
// was named, else it is refused (exit 2). SVC_API_KEY goes wherever the user points it.
import type { Mode } from '../shared/constants.js';
import { modeOfKey } from '../shared/constants.js';
import type { ConfigData, ConfigStore, KeyMeta, Profile } from '../config/config.js';
import { DEFAULT_PROFILE } from '../config/config.js';
import type { Env, GlobalOptions } from '../shared/runtime.js';
import type { SecretStore } from './store.js';
import { DEFAULT_BASE_URL } from '../api/endpoints.js';
import { AuthError, ConfigError, UsageError } from '../errors.js';
import { settleSecretsInFlight } from './journal.js';
import { addressMismatch, canonicalBaseUrl, profileAddress, profilesAt, sameOrigin } from './origin.js';

export interface ResolvedCredential {
  kind: 'api_key' | 'oauth';
  /** `env` for SVC_API_KEY; `profile` for a stored credential. */
  source: 'env' | 'profile';
  mode: Mode;
  profileName: string;
  /** The profile's stored metadata (undefined for SVC_API_KEY with no such profile). */
  profile: Profile | undefined;
  baseUrl: string;
  /** The key itself (API keys only; an OAuth token is fetched per request through src/auth/session.ts). */
  apiKey?: string;
  /** The key's metadata name (stored keys only). */
  keyName?: string;
}

/** What choosing a profile, mode and address reads: the global flags and the environment. */
export interface Choosing {
  globals: Partial<GlobalOptions>;
  env: Env;
}

export function parseModeValue(value: string, from: string): Mode {
  if (value === 'test' || value === 'live') return value;
  throw new UsageError(`${from} must be "test" or "live", not ${JSON.stringify(value)}`);
}

/** The address asked for by --base-url / SVC_BASE_URL, canonical; undefined when neither is set. */
export function explicitBaseUrl(ctx: Choosing): string | undefined {
  if (ctx.globals.baseUrl) return canonicalBaseUrl(ctx.globals.baseUrl, '--base-url');
  if (ctx.env.SVC_BASE_URL) return canonicalBaseUrl(ctx.env.SVC_BASE_URL, 'SVC_BASE_URL');
  return undefined;
}

/** Which of --base-url / SVC_BASE_URL set the address (for messages). */
export function addressSource(ctx: Choosing): string {
  return ctx.globals.baseUrl ? '--base-url' : 'SVC_BASE_URL';
}

/** The profile the user named (--profile, else SVC_PROFILE), if any: the one test of "was a profile named?". */
export function namedProfile(ctx: Choosing): string | undefined {
  return ctx.globals.profile || ctx.env.SVC_PROFILE || undefined;
}

/**
 * The profile name chosen, without checking it exists: --profile / SVC_PROFILE, else the
 * default profile, unless --base-url / SVC_BASE_URL names another address and exactly one
 * profile is bound to it (as gh's GH_HOST picks that host's token).
 */
export function chooseProfileName(ctx: Choosing, config: ConfigData): string {
  const named = namedProfile(ctx);
  if (named) return named;
  const chosen = config.default_profile || DEFAULT_PROFILE;
  let address: string | undefined;
  try {
    address = explicitBaseUrl(ctx);
  } catch {
    return chosen; // reported by whoever uses the address
  }
  if (address === undefined) return chosen;
  const current = config.profiles[chosen];
  if (current && sameOrigin(profileAddress(current), address)) return chosen;
  const bound = profilesAt(config.profiles, address);
  return bound.length === 1 ? bound[0]! : chosen;
}

/** The base URL: --base-url, SVC_BASE_URL, the profile's, the default (canonical: no trailing slash). */
export function chooseBaseUrl(ctx: Choosing, profile: Profile | undefined): string {
  return explicitBaseUrl(ctx) ?? canonicalBaseUrl(profile?.base_url || DEFAULT_BASE_URL, "the profile's base_url");
}

/** Refuses (exit 2) an address from --base-url / SVC_BASE_URL that is not the profile's own. */
export function checkAddress(ctx: Choosing, config: ConfigData, profileName: string, profile: Profile, address: string): void {
  if (sameOrigin(profileAddress(profile), address)) return;
  throw addressMismatch(profileName, profile, address, addressSource(ctx), profilesAt(config.profiles, address));
}

/** A profile that must exist (an explicit --profile/SVC_PROFILE naming nothing is a usage error). */
export function requireProfile(config: ConfigData, name: string): Profile {
  const profile = config.profiles[name];
  if (profile) return profile;
  const known = Object.keys(config.profiles);
  throw new UsageError(
    `there is no profile "${name}"` + (known.length ? ` (profiles: ${known.join(', ')})` : ' (no profile is configured yet)'),
    `run \`svc login --profile ${name}\` or \`svc keys add --profile ${name}\` to create it`,
  );
}

/** The stored key of a mode, if any (the most recently added when there are several). */
export function keyForMode(profile: Profile | undefined, mode: Mode): KeyMeta | undefined {
  const keys = Object.values(profile?.keys ?? {}).filter((k) => k.mode === mode);
  return keys.sort((a, b) => b.added_at.localeCompare(a.added_at))[0];
}

/** The mode used when no flag or env says: the profile's, else the one it has a credential for (test first). */
export function chooseMode(ctx: Choosing, profile: Profile | undefined): Mode {
  if (ctx.globals.mode) return ctx.globals.mode;
  if (ctx.env.SVC_MODE) return parseModeValue(ctx.env.SVC_MODE, 'SVC_MODE');
  if (profile?.mode) return profile.mode;
  if (!keyForMode(profile, 'test') && (profile?.oauth || keyForMode(profile, 'live'))) return 'live';
  return 'test';
}

export async function resolveCredential(ctx: Choosing & { config: ConfigStore; secrets: SecretStore }): Promise<ResolvedCredential> {
  const envKey = ctx.env.SVC_API_KEY;
  let config: ConfigData;
  try {
    config = await ctx.config.read();
  } catch (error) {
    // SVC_API_KEY needs nothing from config.json: a damaged file must not stop it.
    if (!(envKey && error instanceof ConfigError)) throw error;
    config = { version: 1, profiles: {} };
  }
  if (config.secrets_in_flight && !envKey) {
    // A key write killed half-way: settle it before choosing a key (src/credentials/journal.ts).
    await settleSecretsInFlight(ctx, config, Date.now());
    config = await ctx.config.read();
  }
  const profileName = chooseProfileName(ctx, config);
  const profile = config.profiles[profileName];

  if (envKey) {
    const mode = modeOfKey(envKey);
    if (!mode) throw new UsageError('SVC_API_KEY is not an svc key (it must start with svc_live_ or svc_test_)');
    const wanted = ctx.globals.mode;
    if (wanted && wanted !== mode)
      throw new UsageError(`SVC_API_KEY is a ${mode} key but --${wanted} asks for ${wanted} mode`, `unset SVC_API_KEY or drop --${wanted}`);
    return { kind: 'api_key', source: 'env', mode, profileName, profile, baseUrl: chooseBaseUrl(ctx, profile), apiKey: envKey };
  }

  const explicit = namedProfile(ctx) !== undefined;
  if (!profile) {
    if (explicit) requireProfile(config, profileName);
    throw new AuthError('not signed in: no credential is configured', 'run `svc login` (live, OAuth) or `svc keys add` (an API key), or set SVC_API_KEY');
  }
  const mode = chooseMode(ctx, profile);
  const baseUrl = chooseBaseUrl(ctx, profile);
  // Before any secret is read: a stored credential never goes to another origin.
  checkAddress(ctx, config, profileName, profile, baseUrl);
  const where = `profile "${profileName}"${profile.org_name ? ` (${profile.org_name})` : ''}`;

  if (mode === 'live' && profile.oauth) {
    return { kind: 'oauth', source: 'profile', mode, profileName, profile, baseUrl };
  }
  const key = keyForMode(profile, mode);
  if (!key) {
    throw new AuthError(
      `${where} has no ${mode} credential`,
      mode === 'test'
        ? `run \`svc keys add --profile ${profileName}\` with a svc_test_ key` + (profile.oauth || keyForMode(profile, 'live') ? ', or use --live' : '')
        : `run \`svc login --profile ${profileName}\`, or \`svc keys add --profile ${profileName}\` with a svc_live_ key` +
            (keyForMode(profile, 'test') ? ', or use --test' : ''),
    );
  }
  const apiKey = await ctx.secrets.get(profileName, key.name, key.storage);
  if (!apiKey) {
    throw new AuthError(
      `the ${mode} key "${key.name}" of ${where} is missing from its store (${key.storage})`,
      `run \`svc keys add --profile ${profileName} --name ${key.name}\` again`,
    );
  }
  return { kind: 'api_key', source: 'profile', mode, profileName, profile, baseUrl, apiKey, keyName: key.name };
}
