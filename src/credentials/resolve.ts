// Which credential a request uses (design.md "Credentials"), first match wins:
//   SVC_API_KEY (mode from its prefix)
//   → the profile chosen by --profile / SVC_PROFILE / default_profile / "default",
//     in the mode chosen by --test/--live / SVC_MODE / the profile's mode:
//       test → the test key; live → the OAuth connection, else the live key.
// A mode with no credential is an AuthError (exit 3) naming the command that fixes it.
import type { Mode } from '../shared/constants.js';
import { modeOfKey } from '../shared/constants.js';
import type { ConfigData, KeyMeta, Profile } from '../config/config.js';
import { DEFAULT_PROFILE } from '../config/config.js';
import type { Context } from '../context.js';
import { DEFAULT_BASE_URL } from '../api/endpoints.js';
import { AuthError, UsageError } from '../errors.js';

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

export type Env = Readonly<Record<string, string | undefined>>;

export function parseModeValue(value: string, from: string): Mode {
  if (value === 'test' || value === 'live') return value;
  throw new UsageError(`${from} must be "test" or "live", not ${JSON.stringify(value)}`);
}

/** The profile name chosen, without checking it exists. */
export function chooseProfileName(ctx: Pick<Context, 'globals' | 'env'>, config: ConfigData): string {
  return ctx.globals.profile || ctx.env.SVC_PROFILE || config.default_profile || DEFAULT_PROFILE;
}

/** The base URL: --base-url, SVC_BASE_URL, the profile's, the default. */
export function chooseBaseUrl(ctx: Pick<Context, 'globals' | 'env'>, profile: Profile | undefined): string {
  const url = ctx.globals.baseUrl || ctx.env.SVC_BASE_URL || profile?.base_url || DEFAULT_BASE_URL;
  checkBaseUrl(url, ctx.globals.baseUrl ? '--base-url' : ctx.env.SVC_BASE_URL ? 'SVC_BASE_URL' : 'the base URL');
  return url.replace(/\/+$/, '');
}

/** An http(s) URL, or a usage error that says how to write one (`127.0.0.1:4510` → `http://127.0.0.1:4510`). */
export function checkBaseUrl(url: string, from: string): void {
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol === 'http:' || protocol === 'https:') return;
  // `localhost:4510` parses as the scheme "localhost:": a host and port without a scheme all the same.
  const hostPort = /^(\[[0-9a-f:.]+\]|[\w.-]+):\d+(\/.*)?$/i.test(url);
  if (hostPort || protocol === undefined) {
    const loopback = /^(127\.|localhost|\[::1\])/i.test(url);
    throw new UsageError(`${from} ${JSON.stringify(url)} has no http:// or https://`, `use ${loopback ? 'http' : 'https'}://${url}`);
  }
  throw new UsageError(`${from} ${JSON.stringify(url)} must be an http:// or https:// address, not ${protocol}`, 'e.g. https://api.example.com, or http://127.0.0.1:4010 for the local emulator');
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
export function chooseMode(ctx: Pick<Context, 'globals' | 'env'>, profile: Profile | undefined): Mode {
  if (ctx.globals.mode) return ctx.globals.mode;
  if (ctx.env.SVC_MODE) return parseModeValue(ctx.env.SVC_MODE, 'SVC_MODE');
  if (profile?.mode) return profile.mode;
  if (!keyForMode(profile, 'test') && (profile?.oauth || keyForMode(profile, 'live'))) return 'live';
  return 'test';
}

export async function resolveCredential(ctx: Pick<Context, 'globals' | 'env' | 'config' | 'secrets'>): Promise<ResolvedCredential> {
  const config = await ctx.config.read();
  const profileName = chooseProfileName(ctx, config);
  const profile = config.profiles[profileName];

  const envKey = ctx.env.SVC_API_KEY;
  if (envKey) {
    const mode = modeOfKey(envKey);
    if (!mode) throw new UsageError('SVC_API_KEY is not an svc key (it must start with svc_live_ or svc_test_)');
    const wanted = ctx.globals.mode;
    if (wanted && wanted !== mode)
      throw new UsageError(`SVC_API_KEY is a ${mode} key but --${wanted} asks for ${wanted} mode`, `unset SVC_API_KEY or drop --${wanted}`);
    return { kind: 'api_key', source: 'env', mode, profileName, profile, baseUrl: chooseBaseUrl(ctx, profile), apiKey: envKey };
  }

  const explicit = Boolean(ctx.globals.profile || ctx.env.SVC_PROFILE);
  if (!profile) {
    if (explicit) requireProfile(config, profileName);
    throw new AuthError(
      'not signed in: no credential is configured',
      'run `svc login` (live, OAuth) or `svc keys add` (an API key), or set SVC_API_KEY',
    );
  }
  const mode = chooseMode(ctx, profile);
  const baseUrl = chooseBaseUrl(ctx, profile);
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
