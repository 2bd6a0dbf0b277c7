// Which credential a request uses (docs/design.md "Credentials"), first match wins:
//   SVC_API_KEY (mode from its prefix)
//   → the profile chosen by --profile / SVC_PROFILE / default_profile / "default",
//     in the mode chosen by --test/--live / SVC_MODE / the profile's mode:
//       test → the test key; live → the OAuth connection, else the live key.
// A mode with no credential is an AuthError (exit 3) naming the command that fixes it.
// A stored credential goes only to its profile's origin (src/credentials/origin.ts): an
// address from --base-url / SVC_BASE_URL picks the one profile bound to it when no profile
// was named, else it is refused (exit 2). SVC_API_KEY goes wherever the user points it.
import type { Mode } from '../contract/constants.js';
import { modeOfKey } from '../contract/constants.js';
import type { ConfigData, ConfigStore, KeyMeta, Profile } from '../config/config.js';
import { DEFAULT_PROFILE, emptyConfig } from '../config/config.js';
import type { Clock, Env, GlobalOptions } from '../shared/runtime.js';
import type { SecretStore } from './store.js';
import type { ApiCredential } from '../api/credential.js';
import { AuthError, ConfigError, UsageError } from '../errors.js';
import { settleSecretsInFlight } from './journal.js';
import { hasCredentialFor, impliedMode } from './mode.js';
import { addressMismatch, canonicalBaseUrl, originOf, profileAddress, profileBaseUrl, profilesAt, sameOrigin } from './origin.js';

/** A credential resolved for a request: what the API client sends, and the profile it came from. */
export interface ResolvedCredential extends ApiCredential {
  /** The profile's stored metadata (undefined for SVC_API_KEY with no such profile). */
  profile: Profile | undefined;
  /** The mode was chosen (a flag, SVC_MODE, `svc mode`, or SVC_API_KEY's own), not implied by the profile's credentials. */
  modeChosen?: boolean;
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

/** The profile a command uses, and why: the one decision every command makes, and doctor explains. */
export interface ProfileChoice {
  name: string;
  /** Why this profile, in words (`svc doctor` prints it). */
  why: string;
  /** Named by --profile / SVC_PROFILE: a missing one is a mistake, not a setup still to do. */
  explicit: boolean;
}

/**
 * The profile chosen, without checking it exists: --profile / SVC_PROFILE, else the
 * default profile, unless --base-url / SVC_BASE_URL names another address and exactly one
 * profile is bound to it (as gh's GH_HOST picks that host's token).
 */
export function chooseProfile(ctx: Choosing, config: ConfigData, address: ExplicitAddress = explicitAddress(ctx)): ProfileChoice {
  const named = namedProfile(ctx);
  if (named) return { name: named, why: ctx.globals.profile ? '--profile' : 'SVC_PROFILE', explicit: true };
  const fallback: ProfileChoice = config.default_profile
    ? { name: config.default_profile, why: 'the default profile (svc auth switch)', explicit: false }
    : { name: DEFAULT_PROFILE, why: 'no profile chosen, so "default"', explicit: false };
  // An address that does not parse is reported by whoever uses it.
  if ('error' in address || address.value === undefined) return fallback;
  const current = Object.hasOwn(config.profiles, fallback.name) ? config.profiles[fallback.name] : undefined;
  if (current && sameOrigin(profileAddress(current), address.value)) return fallback;
  const bound = profilesAt(config.profiles, address.value);
  if (bound.length === 1) return { name: bound[0]!, why: `the only profile bound to ${originOf(address.value)} (${addressSource(ctx)})`, explicit: false };
  return fallback;
}

/** The name of chooseProfile's choice. */
export function chooseProfileName(ctx: Choosing, config: ConfigData): string {
  return chooseProfile(ctx, config).name;
}

/** --base-url / SVC_BASE_URL, canonical (undefined when neither is set), or the error it raised. */
type ExplicitAddress = { value: string | undefined } | { error: unknown };

function explicitAddress(ctx: Choosing): ExplicitAddress {
  try {
    return { value: explicitBaseUrl(ctx) };
  } catch (error) {
    return { error };
  }
}

/** What the flags and the environment chose, each looked up once. */
interface Chosen {
  profileName: string;
  /** --profile / SVC_PROFILE named it. */
  named: boolean;
  /** The address of --base-url / SVC_BASE_URL, canonical; undefined when neither is set. */
  address: () => string | undefined;
}

function choose(ctx: Choosing, config: ConfigData): Chosen {
  const address = explicitAddress(ctx);
  const choice = chooseProfile(ctx, config, address);
  return {
    profileName: choice.name,
    named: choice.explicit,
    address: () => {
      if ('error' in address) throw address.error;
      return address.value;
    },
  };
}

/** The base URL: --base-url, SVC_BASE_URL, the profile's, the default (canonical: no trailing slash). */
export function chooseBaseUrl(ctx: Choosing, profile: Profile | undefined): string {
  return explicitBaseUrl(ctx) ?? profileBaseUrl(profile);
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

/** The stored credential a mode uses: live → the OAuth connection, else the live key; test → the test key. */
export function storedFor(profile: Profile | undefined, mode: Mode): 'oauth' | KeyMeta | undefined {
  return mode === 'live' && profile?.oauth ? 'oauth' : keyForMode(profile, mode);
}

/** The mode a command uses, why, and whether the user chose it (a live mode only implied does not bill without a terminal). */
export interface ModeChoice {
  mode: Mode;
  /** In words, for `svc mode` and messages. */
  why: string;
  /** --test/--live, SVC_MODE, or the profile's mode set with `svc mode`. */
  chosen: boolean;
}

/**
 * The mode the command line or the environment asks for (--test/--live, else SVC_MODE), with how
 * to take the request back. An SVC_MODE that is neither is refused even where a flag overrides it.
 */
function askedMode(ctx: Choosing): { mode: Mode; why: string; by: string; undo: string } | undefined {
  const fromEnv = ctx.env.SVC_MODE ? parseModeValue(ctx.env.SVC_MODE, 'SVC_MODE') : undefined;
  const flag = ctx.globals.mode;
  if (flag) return { mode: flag, why: `--${flag}`, by: `--${flag}`, undo: `drop --${flag}` };
  if (fromEnv) return { mode: fromEnv, why: 'SVC_MODE', by: `SVC_MODE=${fromEnv}`, undo: 'unset SVC_MODE' };
  return undefined;
}

/** --test/--live, SVC_MODE, else the profile's stored mode (src/credentials/mode.ts), else the one its credentials imply. */
export function chooseModeOf(ctx: Choosing, profile: Profile | undefined): ModeChoice {
  const asked = askedMode(ctx);
  if (asked) return { mode: asked.mode, why: asked.why, chosen: true };
  if (profile?.mode && !profile.mode_implied) return { mode: profile.mode, why: "the profile's mode (svc mode)", chosen: true };
  if (profile?.mode) return { mode: profile.mode, why: "the profile's mode, from its first credential", chosen: false };
  return { mode: impliedMode(profile), why: 'implied by the credentials the profile has', chosen: false };
}

/** The mode used: chooseModeOf's. */
export function chooseMode(ctx: Choosing, profile: Profile | undefined): Mode {
  return chooseModeOf(ctx, profile).mode;
}

export async function resolveCredential(
  ctx: Choosing & {
    config: ConfigStore;
    secrets: SecretStore;
    clock: Pick<Clock, 'now'>;
    /** Settles the entries of logins killed before they recorded their tokens (src/auth/interrupted.ts). */
    settleSignIns?(config: ConfigData): Promise<void>;
  },
): Promise<ResolvedCredential> {
  // A mistyped SVC_MODE is said first, whatever else is set: a script meant a mode.
  askedMode(ctx);
  const envKey = ctx.env.SVC_API_KEY;
  let config: ConfigData;
  try {
    config = await ctx.config.read();
  } catch (error) {
    // SVC_API_KEY needs nothing from config.json: a damaged file must not stop it.
    if (!(envKey && error instanceof ConfigError)) throw error;
    config = emptyConfig();
  }
  if (config.secrets_in_flight && !envKey) {
    // A key write killed half-way: settle it before choosing a key (src/credentials/journal.ts).
    await settleSecretsInFlight(ctx, config, ctx.clock.now());
    config = await ctx.config.read();
  }
  if (config.sign_ins_in_flight && !envKey && ctx.settleSignIns) {
    await ctx.settleSignIns(config);
    config = await ctx.config.read();
  }
  // The profile, and the address asked for, looked up once for everything below.
  const chosen = choose(ctx, config);
  const { profileName } = chosen;
  const profile = config.profiles[profileName];
  const baseUrlOf = (p: Profile | undefined) => chosen.address() ?? profileBaseUrl(p);

  if (envKey) {
    const mode = modeOfKey(envKey);
    if (!mode) throw new UsageError('SVC_API_KEY is not an svc key (it must start with svc_live_ or svc_test_)');
    // The mode asked for holds whichever way it is asked (--test or SVC_MODE=test): a live key is never used in its place.
    const wanted = askedMode(ctx);
    if (wanted && wanted.mode !== mode)
      throw new UsageError(`SVC_API_KEY is a ${mode} key but ${wanted.by} asks for ${wanted.mode} mode`, `unset SVC_API_KEY or ${wanted.undo}`);
    return { kind: 'api_key', source: 'env', mode, modeChosen: true, profileName, profile, baseUrl: baseUrlOf(profile), apiKey: envKey };
  }

  if (!profile) {
    if (chosen.named) requireProfile(config, profileName);
    throw new AuthError('not signed in: no credential is configured', 'run `svc login` (live, OAuth) or `svc keys add` (an API key), or set SVC_API_KEY');
  }
  const { mode, chosen: modeChosen } = chooseModeOf(ctx, profile);
  const baseUrl = baseUrlOf(profile);
  // Before any secret is read: a stored credential never goes to another origin.
  if (chosen.address() !== undefined) checkAddress(ctx, config, profileName, profile, baseUrl);
  const where = `profile "${profileName}"${profile.org_name ? ` (${profile.org_name})` : ''}`;

  const stored = storedFor(profile, mode);
  const otherMode: Mode = mode === 'test' ? 'live' : 'test';
  const other = hasCredentialFor(profile, otherMode) ? { otherMode } : {};
  if (stored === 'oauth') {
    const cut = profile.oauth?.logout_started_at;
    if (cut !== undefined)
      throw new AuthError(
        `the logout of ${where} started at ${cut} was cut short (its connection may already be revoked)`,
        `run \`svc logout${profileName === DEFAULT_PROFILE ? '' : ` --profile ${profileName}`}\` to finish it, then \`svc login\` to sign in again`,
      );
    return { kind: 'oauth', source: 'profile', mode, modeChosen, profileName, profile, baseUrl, ...other };
  }
  const key = stored;
  if (!key) {
    // Said and stopped: never another mode than the one chosen or stored.
    const other = mode === 'test' ? 'live' : 'test';
    const switchTo = hasCredentialFor(profile, other) ? `, or use --${other} (\`svc mode ${other}\` for good)` : '';
    throw new AuthError(
      `${where} is in ${mode} mode (${chooseModeOf(ctx, profile).why}) and has no ${mode} credential`,
      (mode === 'test'
        ? `run \`svc keys add --profile ${profileName}\` with a svc_test_ key`
        : `run \`svc login --profile ${profileName}\`, or \`svc keys add --profile ${profileName}\` with a svc_live_ key`) + switchTo,
    );
  }
  const apiKey = await ctx.secrets.get(profileName, key.name, key.storage);
  if (!apiKey) {
    throw new AuthError(
      `the ${mode} key "${key.name}" of ${where} is missing from its store (${key.storage})`,
      `run \`svc keys add --profile ${profileName} --name ${key.name}\` again`,
    );
  }
  // A key whose text is not an svc key of its mode (a damaged or hand-edited store) is never sent.
  if (modeOfKey(apiKey) !== mode) {
    throw new AuthError(
      `the stored ${mode} key "${key.name}" of ${where} is damaged (not a svc_${mode}_ key); it was not sent`,
      `run \`svc keys add --profile ${profileName} --name ${key.name}\` again`,
    );
  }
  return { kind: 'api_key', source: 'profile', mode, modeChosen, profileName, profile, baseUrl, apiKey, keyName: key.name, ...other };
}
