// `svc doctor`: one run that checks the setup and explains it. Each line is ok, warning
// or failed, with the fix. A failed check is a ChecksFailedError (exit 1); warnings are advice.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../kit/define.js';
import { closeSync, constants } from 'node:fs';
import { openOwnFile, tightenOwnFile } from '../config/own-file.js';
import { access, lstat, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context } from '../context.js';
import type { ConfigData, Profile } from '../config/config.js';
import { DEFAULT_PROFILE, emptyConfig } from '../config/config.js';
import { CONFIG_FILE, CREDENTIALS_FILE } from '../config/paths.js';
import { ENDPOINTS, joinUrl } from '../contract/endpoints.js';
import {
  addressSource,
  chooseBaseUrl,
  chooseProfile,
  explicitBaseUrl,
  resolveCredential,
  type ProfileChoice,
  type ResolvedCredential,
} from '../credentials/resolve.js';
import { confirmedOrg } from '../credentials/confirmed.js';
import { secretChecks } from '../kit/doctor/secrets.js';
import type { Mode } from '../contract/constants.js';
import { ChecksFailedError, CliError, EXIT, RefreshWithheldError } from '../errors.js';
import { readAccount } from '../kit/account.js';
import { proxyFor, proxyVariableError } from '../api/proxy.js';
import { connectionError } from '../api/network.js';
import { unwritable } from '../config/writable.js';
import { printJson, printText } from '../io/output.js';
import { sanitizeText } from '../io/sanitize.js';
import type { Check, Status } from '../kit/doctor/check.js';

export type { Check, Status } from '../kit/doctor/check.js';

export const command = defineCommand({
  name: 'doctor',
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

function modeString(mode: number): string {
  return (mode & 0o777).toString(8).padStart(4, '0');
}

async function configChecks(ctx: Context): Promise<{ checks: Check[]; config: ConfigData | undefined }> {
  const checks: Check[] = [];
  const dir = ctx.config.dir;
  const dirStat = await stat(dir).catch(() => undefined);
  if (!dirStat) checks.push({ check: 'config', status: 'ok', message: `config dir ${dir} does not exist yet (made on first sign-in)` });
  else {
    // Said as a write there fails (src/config/writable.ts): a read-only mount is no chmod's to fix.
    const unwritableDir = await access(dir, constants.R_OK | constants.W_OK).then(
      () => null,
      (error: unknown) => unwritable(dir, error),
    );
    // Its owner, and anyone who can write it, can replace the files that hold the secrets.
    const me = process.getuid?.();
    if (me !== undefined && dirStat.uid !== me)
      checks.push({
        check: 'config',
        status: 'warning',
        message: `config dir ${dir} belongs to another user (uid ${dirStat.uid}), who can read and replace the files that hold your secrets`,
        fix: 'point SVC_CONFIG_DIR at a folder of your own',
      });
    const openTo = dirStat.mode & 0o002 ? 'everyone' : dirStat.mode & 0o020 ? 'its group' : undefined;
    checks.push(
      unwritableDir
        ? {
            check: 'config',
            status: 'failed',
            message: unwritableDir.message,
            fix: unwritableDir.hint ?? 'point SVC_CONFIG_DIR at another directory',
          }
        : openTo
          ? {
              check: 'config',
              status: openTo === 'everyone' ? 'failed' : 'warning',
              message: `config dir ${dir} is writable by ${openTo} (mode ${modeString(dirStat.mode)}): others could replace the files that hold your secrets`,
              fix: `chmod 700 ${dir}`,
            }
          : { check: 'config', status: 'ok', message: `config dir ${dir} (mode ${modeString(dirStat.mode)})` },
    );
  }
  let config: ConfigData | undefined;
  try {
    config = await ctx.config.read();
    const fileStat = await stat(ctx.config.path).catch(() => undefined);
    if (fileStat) {
      const open = (fileStat.mode & 0o022) !== 0;
      checks.push(
        open
          ? {
              check: 'config',
              status: 'warning',
              message: `${CONFIG_FILE} is writable by others (mode ${modeString(fileStat.mode)})`,
              fix: `chmod 600 ${ctx.config.path}`,
            }
          : {
              check: 'config',
              status: 'ok',
              message: `${CONFIG_FILE} reads (${Object.keys(config.profiles).length} profile(s), mode ${modeString(fileStat.mode)})`,
            },
      );
    }
  } catch (error) {
    checks.push({
      check: 'config',
      status: 'failed',
      message: (error as Error).message,
      fix: (error as { hint?: string }).hint ?? `fix or move ${ctx.config.path}`,
    });
  }
  const credentialsPath = join(dir, CREDENTIALS_FILE);
  // lstat: a link at this path is refused by svc, never followed (src/config/own-file.ts).
  const credStat = await lstat(credentialsPath).catch(() => undefined);
  if (credStat && !credStat.isFile())
    checks.push({
      check: 'config',
      status: 'failed',
      message: `${credentialsPath} is ${credStat.isSymbolicLink() ? 'a symbolic link' : credStat.isFIFO() ? 'a FIFO' : 'not a regular file'}: svc refuses it unread`,
      fix: `move it away (svc keeps a regular file of mode 0600 there), or set SVC_CONFIG_DIR`,
    });
  else if (credStat) checks.push(credentialsFileCheck(credentialsPath, credStat.mode));
  return { checks, config };
}

/**
 * credentials.json open to others is tightened to 0600 as every command tightens it when it
 * opens the file (the same code), and said as done, not as a fix still to make.
 */
function credentialsFileCheck(path: string, mode: number): Check {
  if ((mode & 0o077) === 0) return { check: 'config', status: 'ok', message: `${CREDENTIALS_FILE} is private (mode ${modeString(mode)})` };
  const openTo = mode & 0o007 ? 'others' : 'its group';
  let fd: number | undefined;
  try {
    fd = openOwnFile(path, constants.O_RDONLY, { what: 'the credentials file' });
    tightenOwnFile(fd);
  } catch {
    return {
      check: 'config',
      status: 'failed',
      message: `${CREDENTIALS_FILE} holds secrets but is open to ${openTo} (mode ${modeString(mode)})`,
      fix: `chmod 600 ${path}`,
    };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return {
    check: 'config',
    status: 'warning',
    message: `${CREDENTIALS_FILE} was open to ${openTo} (mode ${modeString(mode)}); svc set it to 0600`,
    fix: 'its secrets may have been read: consider replacing them (svc login, svc keys add)',
  };
}

/** Which proxy applies to the address (src/api/proxy.ts decides as the HTTP layer does). */
export function proxyCheck(env: Context['env'], url: URL): Check {
  const invalid = proxyVariableError(env);
  if (invalid) return { check: 'proxy', status: 'failed', message: invalid.message, fix: invalid.hint ?? '', exit_code: invalid.exitCode };
  const choice = proxyFor(env, url);
  if (choice.proxy) return { check: 'proxy', status: 'ok', message: `requests to ${url.host} go through the proxy ${choice.proxy}` };
  if (choice.bypassedBy) return { check: 'proxy', status: 'ok', message: `${url.host} bypasses the proxy (NO_PROXY=${choice.bypassedBy})` };
  return { check: 'proxy', status: 'ok', message: `no proxy for ${url.host}` };
}

export async function run(opts: DoctorOptions, ctx: Context): Promise<void> {
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
    ...(url && address ? [proxyCheck(ctx.env, url), ...(await serviceChecks(ctx, address))] : []),
    ...(await secretChecks(ctx, data, opts.fix)),
    request.check,
    ...(await storedCredentialChecks(ctx, data, request.used)),
    nodeCheck(process.versions.node),
  ];
  report(ctx, checks);
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

/** Prints the checks (or their JSON); a failed one makes the run's error (the runner prints it, as every error, and exits 1). */
function report(ctx: Context, checks: Check[]): void {
  const failed = checks.filter((c) => c.status === 'failed').length;
  const warnings = checks.filter((c) => c.status === 'warning').length;
  if (ctx.globals.json) printJson(ctx, { ok: failed === 0, failed, warnings, checks });
  else {
    // One column for the status and the fix, two spaces after it: every continuation line of a
    // wrapped message or fix starts under the text (src/io/width.ts reads the column as a label).
    const column = (label: string, text: string) => `${label.padEnd(7)}  ${text}`;
    const lines = checks.map((c) => column(c.status, c.message) + (c.fix ? `\n${column('fix', c.fix)}` : ''));
    // Organization names and the service's answers are its text: inert before they reach the terminal.
    printText(ctx, lines.join('\n'));
    if (!failed) ctx.io.stderr.write(`No problems found${warnings ? ` (${warnings} warning(s))` : ''}.\n`);
  }
  if (failed) throw new ChecksFailedError(`${failed} check(s) failed, ${warnings} warning(s)`);
}

export default commandModule({ command, parse, run });
