// `svc auth status`: every profile with its organization, mode, credentials, scopes and
// where each secret is stored (keychain or file), so it is never unclear which account a
// command acts on (stripe-cli#1135) or that a secret fell back to a file (cli/cli#8954).
// Unless --offline, each credential is asked what `svc account` asks, through the same
// resolution and pipe (src/credentials/check.ts), and the run fails as `svc account` would when
// the credential commands use does: exit 3 with no usable credential, the same error otherwise.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';
import type { ConfigData, Profile } from '../../config/config.js';
import { OAUTH_SECRET_NAME } from '../../config/config.js';
import { chooseMode, chooseModeOf, chooseProfileName, namedProfile, requireProfile } from '../../credentials/resolve.js';
import type { ResolvedCredential } from '../../credentials/resolve.js';
import { AuthError, CliError } from '../../errors.js';
import { relativeTime, scopeList } from '../../io/output.js';
import { redact } from '../../io/redact.js';
import { redactedKey } from '../../kit/keys.js';
import { checkProfile } from '../../credentials/check.js';
import { askAccount, type Asked, type CredentialCheck } from '../../credentials/check.js';
import { proseResult, type CommandResult } from '../../kit/result.js';

export interface AuthStatusOptions {
  /** Skip asking the service whether each credential still works. */
  offline: boolean;
}

export const command = defineCommand({
  summary:
    'every profile (or --profile NAME alone) with its organization, mode, credentials, scopes, where secrets are stored, and whether the service accepts each',
  examples: ['svc auth status', 'svc auth status --profile work', 'svc auth status --offline --json'],
  flags: {
    offline: { help: 'do not ask the service whether each credential still works' },
  },
  scopes: [],
});

export function parse(_args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): AuthStatusOptions {
  return { offline: flags.offline === true };
}

/** A credential's online verdict as a suffix of its line. */
function verdictText(check: Pick<CredentialCheck, 'verdict' | 'detail'> | undefined): string {
  if (!check) return '';
  return check.verdict === 'valid' ? ' — valid' : check.verdict === 'refused' ? ` — REFUSED: ${check.detail}` : ` — not checked: ${check.detail}`;
}

function describeActive(c: ResolvedCredential): string {
  if (c.source === 'env') return `SVC_API_KEY (${redact(c.apiKey ?? '')}, ${c.mode} mode)`;
  const what = c.kind === 'oauth' ? 'the OAuth sign-in' : `the ${c.mode} key "${c.keyName}"`;
  return `profile "${c.profileName}", ${c.mode} mode, ${what}`;
}

/** Why the chosen OAuth sign-in cannot be used, when it cannot (shown on its line). */
type OAuthTrouble = 'ended' | 'secret missing';

function profileLines(
  name: string,
  profile: Profile,
  isDefault: boolean,
  now: number,
  mode: string,
  online: Map<string, CredentialCheck>,
  trouble?: OAuthTrouble,
): string[] {
  const lines: string[] = [];
  const org = profile.org_name ? `${profile.org_name} (${profile.org_id ?? '?'})` : (profile.org_id ?? 'organization unknown');
  lines.push(`${name}${isDefault ? ' (default)' : ''}: ${org}${profile.base_url ? ` at ${profile.base_url}` : ''}`);
  lines.push(`  mode: ${mode}`);
  if (profile.oauth) {
    const o = profile.oauth;
    const expiry = o.expires_at
      ? o.expires_at > now
        ? `access token expires ${relativeTime(o.expires_at, now)}`
        : `access token expired ${relativeTime(o.expires_at, now)} (refreshed on next use)`
      : '';
    const state = o.ended_at
      ? `ended ${relativeTime(o.ended_at, now)} — run svc login`
      : trouble === 'secret missing'
        ? `secret missing — run svc login`
        : expiry;
    lines.push(
      `  OAuth sign-in (live): app ${o.client_id}, scopes ${scopeList(o.scopes)}${state ? `, ${state}` : ''}; stored in ${o.storage}${verdictText(online.get(OAUTH_SECRET_NAME))}`,
    );
  }
  for (const key of Object.values(profile.keys ?? {}).sort((a, b) => a.name.localeCompare(b.name))) {
    lines.push(
      `  ${key.mode} key "${key.name}": ${redactedKey(key)}, scopes ${key.unverified ? 'unknown (unverified)' : scopeList(key.scopes)}; stored in ${key.storage}${verdictText(online.get(key.name))}`,
    );
  }
  if (!profile.oauth && !Object.keys(profile.keys ?? {}).length) lines.push('  no credentials');
  return lines;
}

export async function run(opts: AuthStatusOptions, ctx: Context): Promise<CommandResult> {
  const config = await ctx.config.read();
  const chosen = chooseProfileName(ctx, config);
  const explicit = namedProfile(ctx) !== undefined;
  if (explicit && !ctx.env.SVC_API_KEY) requireProfile(config, chosen);
  // --profile NAME shows that profile alone; otherwise every profile.
  const shown = Object.keys(config.profiles)
    .filter((name) => !explicit || name === chosen)
    .sort();
  const { online, refused } = opts.offline ? { online: new Map() as Status['online'], refused: 0 } : await checkOnline(ctx, config, shown);
  const { active, problem, trouble } = await activeCredential(ctx);
  // SVC_API_KEY is asked as `svc account` asks it; a stored credential was asked above.
  const envCheck = active?.source === 'env' && !opts.offline ? await askAccount(ctx.signal, () => ctx.api()) : undefined;
  const status: Status = { config, chosen, shown, online, active, problem, trouble, envCheck };
  // The status is printed; what is wrong with it is the run's error (its exit code, and --json's form, the runner's).
  return proseResult(statusJson(ctx, opts, status), statusText(ctx, status), { failure: problem ?? failureOf(status, refused) });
}

/** What is wrong with the credentials seen, past the one commands would use (`problem`): the run's error, if any. */
function failureOf({ active, envCheck, online }: Status, refused: number): Error | undefined {
  // The credential commands use failed to answer: the error `svc account` would have ended with.
  const usedCheck =
    active?.source === 'env' ? envCheck : active && online.get(active.profileName)?.get(active.kind === 'oauth' ? OAUTH_SECRET_NAME : active.keyName!);
  if (usedCheck?.failure) return usedCheck.failure;
  // A credential the service refused is "not authenticated" (exit 3), whichever profile holds it:
  // `auth status` and `auth status --profile NAME` say one thing of one ended sign-in.
  if (refused) return new AuthError(`${refused} stored credential(s) were refused by the service`, 'run `svc doctor` for the fix of each');
  return undefined;
}

/** What auth status found, for either of its outputs. */
interface Status {
  config: ConfigData;
  chosen: string;
  shown: string[];
  online: Map<string, Map<string, CredentialCheck & Pick<Asked, 'failure'>>>;
  active: ResolvedCredential | undefined;
  /** SVC_API_KEY's answer, when it is the credential used. */
  envCheck: Asked | undefined;
  problem: CliError | undefined;
  trouble: OAuthTrouble | undefined;
}

/** Every credential of the shown profiles, asked of the service; how many it refused. */
async function checkOnline(ctx: Context, config: ConfigData, shown: string[]): Promise<{ online: Status['online']; refused: number }> {
  const online: Status['online'] = new Map();
  let refused = 0;
  for (const name of shown) {
    const checks = new Map<string, CredentialCheck & Pick<Asked, 'failure'>>();
    online.set(name, checks);
    for (const check of await checkProfile(ctx, name, config.profiles[name]!)) {
      if (check.verdict === 'refused') refused++;
      checks.set(check.credential, check);
    }
  }
  return { online, refused };
}

/** The credential commands would use now, or what keeps them from one (its OAuth entry read too). */
async function activeCredential(ctx: Context): Promise<Pick<Status, 'active' | 'problem' | 'trouble'>> {
  let active: ResolvedCredential | undefined;
  let problem: CliError | undefined;
  try {
    active = await ctx.resolveCredential();
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    problem = error;
  }
  // Resolution does not read the OAuth entry (requests do, per call): check it is there and alive.
  let trouble: OAuthTrouble | undefined;
  if (active?.source === 'profile' && active.kind === 'oauth') {
    const meta = active.profile?.oauth;
    const where = `profile "${active.profileName}"${active.profile?.org_name ? ` (${active.profile.org_name})` : ''}`;
    if (meta?.ended_at) {
      trouble = 'ended';
      problem = new AuthError(
        `the OAuth connection of ${where} has ended (the service refused its refresh${meta.ended_reason ? `: ${meta.ended_reason}` : ''})`,
        `run \`svc login --profile ${active.profileName}\``,
      );
    } else {
      try {
        // Through the store: time-boxed like every keychain call.
        if ((await ctx.secrets.get(active.profileName, OAUTH_SECRET_NAME, meta?.storage)) === null) {
          trouble = 'secret missing';
          problem = new AuthError(
            `the OAuth sign-in of ${where} is missing from its store (${meta?.storage ?? 'unknown'})`,
            `run \`svc login --profile ${active.profileName}\``,
          );
        }
      } catch (error) {
        if (!(error instanceof CliError)) throw error;
        problem = error;
      }
    }
    if (problem) active = undefined;
  }
  return { active, problem, trouble };
}

function statusJson(ctx: Context, opts: AuthStatusOptions, { config, chosen, shown, online, active, problem, trouble, envCheck }: Status): unknown {
  /** The mode `svc mode` shows for the profile: flags and SVC_MODE first, then the profile's. */
  const modeOf = (profile: Profile) => chooseMode(ctx, profile);
  return {
    default_profile: config.default_profile ?? null,
    active: active
      ? {
          profile: active.source === 'env' ? null : active.profileName,
          source: active.source,
          mode: active.mode,
          type: active.kind,
          key_name: active.keyName ?? null,
          ...(envCheck ? { online: { verdict: envCheck.verdict, detail: envCheck.detail } } : {}),
        }
      : { profile: chosen, error: problem?.message ?? null, ...(trouble ? { oauth: trouble === 'ended' ? 'ended' : 'secret_missing' } : {}) },
    env_api_key: ctx.env.SVC_API_KEY ? redact(ctx.env.SVC_API_KEY) : null,
    config_file: ctx.config.path,
    profiles: shown
      .map((name) => [name, config.profiles[name]!] as const)
      .map(([name, p]) => ({
        name,
        default: name === (config.default_profile ?? 'default'),
        org_id: p.org_id ?? null,
        org_name: p.org_name ?? null,
        base_url: p.base_url ?? null,
        mode: p.mode ?? null,
        effective_mode: modeOf(p),
        oauth: p.oauth ?? null,
        keys: Object.values(p.keys ?? {}).map((k) => ({ ...k, redacted: redactedKey(k) })),
        online: opts.offline ? null : [...(online.get(name)?.values() ?? [])].map(({ failure: _failure, ...check }) => check),
      })),
  };
}

function statusText(ctx: Context, { config, chosen, shown, online, active, trouble, envCheck }: Status): string {
  const now = ctx.clock.now();
  const modeOf = (profile: Profile) => chooseMode(ctx, profile);
  const out: string[] = [];
  if (!shown.length) out.push(`No profiles yet (config: ${ctx.config.path}).`);
  for (const name of shown)
    out.push(
      ...profileLines(
        name,
        config.profiles[name]!,
        name === (config.default_profile ?? 'default'),
        now,
        modeOf(config.profiles[name]!),
        online.get(name) ?? new Map(),
        name === chosen ? trouble : undefined,
      ),
    );
  if (ctx.env.SVC_API_KEY) out.push(`SVC_API_KEY is set (${redact(ctx.env.SVC_API_KEY)}): it overrides every profile${verdictText(envCheck)}.`);
  if (active) out.push(`Commands use: ${describeActive(active)}.`);
  const chosenProfile = chosen === undefined ? undefined : config.profiles[chosen];
  if (chosenProfile && !ctx.env.SVC_API_KEY) {
    const { mode, why } = chooseModeOf(ctx, chosenProfile);
    const other = mode === 'test' ? 'live' : 'test';
    out.push(`Mode: ${mode} (${why}); switch with \`svc mode ${other}\`, or --${other} for one command.`);
  }
  // Prose, made inert: organization names and ids came from the service.
  return out.join('\n');
}

export default commandModule({ command, parse, run });
