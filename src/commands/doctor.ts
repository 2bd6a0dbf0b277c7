// `svc doctor`: one run that checks the setup and explains it. Each line is ok, warning
// or failed, with the fix. A failed check is a ChecksFailedError (exit 1); warnings are advice.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../kit/define.js';
import type { Context } from '../context.js';
import type { ConfigData, Profile } from '../config/config.js';
import { DEFAULT_PROFILE, emptyConfig } from '../config/config.js';
import { ENDPOINTS, joinUrl } from '../contract/endpoints.js';
import { addressSource, chooseBaseUrl, chooseProfile, explicitBaseUrl, type ProfileChoice, type ResolvedCredential } from '../credentials/resolve.js';
import { secretChecks } from '../kit/doctor/secrets.js';
import type { Mode } from '../contract/constants.js';
import { ChecksFailedError, CliError, EXIT, RefreshWithheldError } from '../errors.js';
import { readAccount } from '../kit/account.js';
import { proxyFor, proxyVariableError, type ProxySettings } from '../api/proxy.js';
import { connectionError } from '../api/network.js';
import type { Check, Status } from '../kit/doctor/check.js';
import { configChecks } from '../kit/doctor/config-checks.js';
import { proseResult, type CommandResult } from '../kit/result.js';

export type { Check, Status } from '../kit/doctor/check.js';

export const command = defineCommand({
  summary: 'check the setup and explain each problem: config, profile, address, network, keychain, credentials, clock, Node',
  flags: { fix: { help: 'move secrets an earlier svc left in the Linux kernel keyring to where svc keeps them, and delete those copies' } },
  examples: ['svc doctor', 'svc doctor --profile work', 'svc doctor --json', 'svc doctor --fix'],
  scopes: [],
});

export interface DoctorOptions {
  /** Move secrets an earlier svc left in the Linux kernel keyring to where svc keeps them, and delete those copies. */
  fix?: boolean;
}

export function parse(_args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): DoctorOptions {
  return flags.fix === true ? { fix: true } : {};
}

/** The oldest Node.js svc supports (package.json "engines"). */
export const MIN_NODE = [20, 18] as const;
/** Clock skew past which tokens' expiry and the service's times stop making sense. */
const SKEW_WARN_MS = 30_000;
const SKEW_FAIL_MS = 5 * 60_000;

export function nodeCheck(version: string): Check {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  return ok
    ? { check: 'node', status: 'ok', message: `Node.js ${version} (supported: ${MIN_NODE.join('.')} or newer)` }
    : {
        check: 'node',
        status: 'failed',
        message: `Node.js ${version} is older than svc supports`,
        fix: `install Node.js ${MIN_NODE.join('.')} or newer (an LTS release)`,
      };
}

export function clockCheck(dateHeader: string | null, now: number): Check {
  const served = dateHeader ? Date.parse(dateHeader) : NaN;
  if (Number.isNaN(served)) return { check: 'clock', status: 'warning', message: 'the service sent no Date header: clock skew not measured' };
  const skew = now - served;
  const text = `${Math.abs(Math.round(skew / 1000))} s ${skew >= 0 ? 'ahead of' : 'behind'} the service`;
  // Date has one-second resolution: a second of difference is no skew.
  if (Math.abs(skew) < SKEW_WARN_MS)
    return { check: 'clock', status: 'ok', message: `clock within ${Math.max(1, Math.round(Math.abs(skew) / 1000))} s of the service's` };
  return {
    check: 'clock',
    status: Math.abs(skew) >= SKEW_FAIL_MS ? 'failed' : 'warning',
    message: `this machine's clock is ${text}`,
    fix: 'turn on time synchronisation (NTP, e.g. `timedatectl set-ntp true`): token expiry and event times depend on it',
  };
}

/** Which proxy applies to the address (src/api/proxy.ts decides as the HTTP layer does). */
export function proxyCheck(proxy: ProxySettings, url: URL): Check {
  const invalid = proxyVariableError(proxy);
  if (invalid) return { check: 'proxy', status: 'failed', message: invalid.message, fix: invalid.hint ?? '', exit_code: invalid.exitCode };
  const choice = proxyFor(proxy, url);
  if (choice.proxy) return { check: 'proxy', status: 'ok', message: `requests to ${url.host} go through the proxy ${choice.proxy}` };
  if (choice.bypassedBy) return { check: 'proxy', status: 'ok', message: `${url.host} bypasses the proxy (NO_PROXY=${choice.bypassedBy})` };
  return { check: 'proxy', status: 'ok', message: `no proxy for ${url.host}` };
}

export async function run(opts: DoctorOptions, ctx: Context): Promise<CommandResult> {
  const { checks: configResults, config } = await configChecks(ctx);
  const data = config ?? emptyConfig();
  const choice = chooseProfile(ctx, data);
  const { checks: addressResults, address } = addressChecks(ctx, data, choice);
  const url = address === undefined ? undefined : new URL(address);
  const request = await requestCheck(ctx);
  const checks: Check[] = [
    ...configResults,
    ...profileChecks(ctx, data, choice),
    ...addressResults,
    ...(url && address ? [proxyCheck(ctx.proxy, url), ...(await serviceChecks(ctx, address))] : []),
    ...(await secretChecks(ctx, data, opts.fix)),
    request.check,
    ...(await storedCredentialChecks(ctx, data, request.used)),
    nodeCheck(process.versions.node),
  ];
  return report(ctx, checks);
}

/** The profile every command would use here, and why (chooseProfile: the same decision, not a copy). */
function profileChecks(ctx: Context, data: ConfigData, choice: ProfileChoice): Check[] {
  const checks: Check[] = [];
  const envKey = ctx.env.SVC_API_KEY;
  // Whether the key is usable is the request check's to say (the resolution's own words).
  if (envKey) checks.push({ check: 'profile', status: 'ok', message: 'SVC_API_KEY is set: it overrides every profile' });
  const profile = Object.hasOwn(data.profiles, choice.name) ? data.profiles[choice.name] : undefined;
  if (profile)
    checks.push({ check: 'profile', status: 'ok', message: `profile "${choice.name}" from ${choice.why}${profile.org_name ? `: ${profile.org_name}` : ''}` });
  else if (!envKey)
    checks.push({
      check: 'profile',
      status: choice.explicit ? 'failed' : 'warning',
      message: `there is no profile "${choice.name}" (${choice.why})`,
      fix: `run \`svc login${choice.name === DEFAULT_PROFILE ? '' : ` --profile ${choice.name}`}\` or \`svc keys add\`, or set SVC_API_KEY`,
    });
  return checks;
}

/** The address commands would use (chooseBaseUrl), path and all; whether credentials may go there is the request check's. */
function addressChecks(ctx: Context, data: ConfigData, choice: ProfileChoice): { checks: Check[]; address: string | undefined } {
  const profile = Object.hasOwn(data.profiles, choice.name) ? data.profiles[choice.name] : undefined;
  let address: string;
  try {
    address = chooseBaseUrl(ctx, profile);
  } catch (error) {
    return {
      checks: [{ check: 'address', status: 'failed', message: (error as Error).message, fix: (error as CliError).hint ?? 'use e.g. https://api.example.com' }],
      address: undefined,
    };
  }
  const override = explicitBaseUrl(ctx) !== undefined ? addressSource(ctx) : undefined;
  const from = override ? ` (from ${override})` : profile?.base_url ? ` (profile "${choice.name}")` : ' (the default: the local emulator)';
  return { checks: [{ check: 'address', status: 'ok', message: `service address ${address}${from}` }], address };
}

/** The service at the address commands use: reachable, its RFC 8414 metadata where `svc login` reads it (§3.3: the issuer is that address); the clock against its Date. */
async function serviceChecks(ctx: Context, address: string): Promise<Check[]> {
  const checks: Check[] = [];
  const url = joinUrl(address, ENDPOINTS['oauth.metadata'].path);
  try {
    const response = await ctx.http.fetch(url, { method: 'GET', headers: { accept: 'application/json' }, signal: ctx.signal });
    const text = await response.text();
    checks.push({ check: 'service', status: 'ok', message: `${address} answers (${response.status})` });
    let metadata: { issuer?: unknown; token_endpoint?: unknown } | undefined;
    try {
      metadata = response.ok ? JSON.parse(text) : undefined;
    } catch {
      metadata = undefined;
    }
    if (!metadata || typeof metadata.token_endpoint !== 'string')
      checks.push({
        check: 'service',
        status: 'warning',
        message: `no RFC 8414 metadata at ${url.pathname} (status ${response.status})`,
        fix: "check that the address is the service's API address; `svc login` needs this document",
      });
    else if (typeof metadata.issuer === 'string' && metadata.issuer.replace(/\/+$/, '') !== address)
      checks.push({
        check: 'service',
        status: 'failed',
        message: `the metadata's issuer ${metadata.issuer} is not ${address} (RFC 8414 §3.3)`,
        fix: "use the issuer's address as the base URL",
      });
    else checks.push({ check: 'service', status: 'ok', message: `RFC 8414 metadata: issuer ${String(metadata.issuer)}` });
    checks.push(clockCheck(response.headers.get('date'), ctx.clock.now()));
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    // The words every command uses for a connection that failed (src/api/network.ts).
    const failure = error instanceof CliError ? error : await connectionError(error, { url, reached: true });
    checks.push({
      check: 'service',
      status: 'failed',
      message: failure.message,
      fix: failure.hint ?? 'check the address, the network and the proxy settings; for the local emulator run `svc emulator`',
    });
  }
  return checks;
}

/** Which credential a check used: a profile's, in a mode (SVC_API_KEY is none of them). */
interface UsedCredential {
  profileName: string;
  mode: Mode;
}

/**
 * The request `svc account` makes, through the context's own client (the same resolution of
 * profile, address, mode and credential, the same pipe), told in doctor's words: it works
 * here, or it fails with the error and exit code that command would give.
 */
async function requestCheck(ctx: Context): Promise<{ check: Check; used: UsedCredential | undefined }> {
  let used: UsedCredential | undefined;
  try {
    const api = await ctx.api();
    const c = api.credential;
    if (c.source === 'profile') used = { profileName: c.profileName, mode: c.mode };
    const { account } = await readAccount(api);
    return {
      check: { check: 'request', status: 'ok', message: `svc account works: ${credentialLabel(c)}, ${c.mode} mode, ${account.name} at ${c.baseUrl}` },
      used,
    };
  } catch (error) {
    return { check: failedRequest(ctx, 'svc account', error, 'request'), used };
  }
}

function credentialLabel(c: ResolvedCredential): string {
  if (c.source === 'env') return 'SVC_API_KEY';
  return `profile "${c.profileName}" ${c.kind === 'oauth' ? 'OAuth sign-in' : `key "${c.keyName ?? ''}"`}`;
}

/** A failed request as a check: the command's own error, its exit code and its next step. */
function failedRequest(ctx: Context, what: string, error: unknown, check: string, status: Status = 'failed'): Check {
  if (ctx.signal.aborted) throw error;
  const failure = error instanceof CliError ? error : undefined;
  const exit = failure?.exitCode ?? EXIT.failure;
  return {
    check,
    status,
    message: `${what} fails (exit ${exit}): ${failure?.message ?? (error as Error).message}`,
    ...(failure?.hint ? { fix: failure.hint } : {}),
    exit_code: exit,
  };
}

/**
 * Every other credential stored in a profile, as `svc --profile NAME --MODE account` would use
 * it at the profile's own address: the same resolution and client, each a warning when it
 * fails (the commands of this setup do not use it).
 */
async function storedCredentialChecks(ctx: Context, data: ConfigData, used: UsedCredential | undefined): Promise<Check[]> {
  const checks: Check[] = [];
  for (const [profileName, profile] of Object.entries(data.profiles)) {
    for (const mode of modesWithCredentials(profile)) {
      if (used && used.profileName === profileName && used.mode === mode) continue;
      const what = `svc --profile ${profileName} --${mode} account`;
      try {
        // Never refreshed here: a sign-in the commands of this setup do not use is not rotated by looking at it.
        const api = await ctx.apiFor({ profile: profileName, mode, refresh: false });
        const { account } = await readAccount(api);
        checks.push({ check: 'credential', status: 'ok', message: `${what} works: ${credentialLabel(api.credential)}, ${account.name}` });
      } catch (error) {
        if (error instanceof RefreshWithheldError)
          checks.push({
            check: 'credential',
            status: 'ok',
            message: `${what}: not asked, since ${error.message} (doctor changes nothing); the next command that uses it refreshes it`,
          });
        else checks.push(failedRequest(ctx, what, error, 'credential', 'warning'));
      }
    }
  }
  return checks;
}

/** The modes a profile holds a credential for (live: an OAuth sign-in or a live key). */
function modesWithCredentials(profile: Profile): Mode[] {
  const keys = Object.values(profile.keys ?? {});
  return (['test', 'live'] as const).filter((mode) => keys.some((k) => k.mode === mode) || (mode === 'live' && profile.oauth !== undefined));
}

/** The checks as the run's result; a failed one makes the run's error, printed after them (exit 1). */
function report(ctx: Context, checks: Check[]): CommandResult {
  const failed = checks.filter((c) => c.status === 'failed').length;
  const warnings = checks.filter((c) => c.status === 'warning').length;
  // One column for the status and the fix, two spaces after it: every continuation line of a
  // wrapped message or fix starts under the text (src/io/width.ts reads the column as a label).
  const column = (label: string, text: string) => `${label.padEnd(7)}  ${text}`;
  const lines = checks.map((c) => column(c.status, c.message) + (c.fix ? `\n${column('fix', c.fix)}` : ''));
  // Prose, made inert: organization names and the service's answers are its text.
  return proseResult({ ok: failed === 0, failed, warnings, checks }, lines.join('\n'), {
    after: failed || ctx.globals.json ? undefined : `No problems found${warnings ? ` (${warnings} warning(s))` : ''}.`,
    failure: failed ? new ChecksFailedError(`${failed} check(s) failed, ${warnings} warning(s)`) : undefined,
  });
}

export default commandModule({ command, parse, run });
