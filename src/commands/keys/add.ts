// `svc keys add [--name N] [--stdin]`: checks the key with the service (GET /v1/account
// tells its organization and scopes), then stores it for the profile and its mode.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';
import type { KeyMeta, Profile } from '../../config/config.js';
import { modeOfKey } from '../../contract/constants.js';
import type { Mode } from '../../contract/constants.js';
import { checkAddress, chooseBaseUrl, chooseProfileName } from '../../credentials/resolve.js';
import { ApiError, CliError, EXIT, UsageError } from '../../errors.js';
import { lackedScope } from '../../api/errors.js';
import { confirm, promptSecret } from '../../io/interactive.js';
import { warn } from '../../io/output.js';
import { describeLeft, type SecretLeft } from '../../credentials/store.js';
import { confirmedOrg } from '../../credentials/confirmed.js';
import { addEntry, commitKey, dropEntry, finishDeletes, inFlight, settleSecretsInFlight } from '../../credentials/journal.js';
import { withCredentialTransaction, type ProfileTransaction } from '../../credentials/transaction.js';
import { lastFour, redact } from '../../io/redact.js';
import { parseKeyName, redactedKey } from '../../kit/keys.js';
import { proseResult, type CommandResult } from '../../kit/result.js';

export interface KeysAddOptions {
  /** Undefined: the key's mode (`test` / `live`). */
  name?: string;
  /** Read the key from stdin (piped). On a terminal the key is asked with a hidden prompt all the same. */
  stdin: boolean;
  /** The key's organization, for a least-privilege key that cannot read it (no account:read). */
  org?: string;
  /** Replace the profile's key of the same mode without asking (a script's consent). */
  replace: boolean;
}

export const command = defineCommand({
  summary: 'store an API key (svc_test_… or svc_live_…) for the profile, after checking it with the service',
  flags: {
    name: { value: '<name>', help: 'a name for the key (default: its mode, test or live)' },
    stdin: { help: 'read the key from stdin (the default without a terminal)' },
    org: { value: '<id>', help: "the key's organization (org_…), for a key without account:read (stored unverified)" },
    replace: { help: "replace the profile's key of the same mode (asked at a terminal; required without one)" },
  },
  examples: ['svc keys add', 'svc keys add --name ci --stdin < key.txt', 'svc keys add --profile work --stdin < key.txt'],
  scopes: ['account:read'],
});

export function parse(_args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): KeysAddOptions {
  const opts: KeysAddOptions = { stdin: flags.stdin === true, replace: flags.replace === true };
  if (flags.name !== undefined) opts.name = parseKeyName(flags.name);
  if (flags.org !== undefined) {
    if (typeof flags.org !== 'string' || !/^org_[A-Za-z0-9_-]{1,64}$/.test(flags.org))
      throw new UsageError(`--org must be an organization id (org_…), not ${JSON.stringify(flags.org)}`);
    opts.org = flags.org;
  }
  return opts;
}

interface Account {
  id: string;
  name: string;
  livemode: boolean;
  credential: { type: string; scopes: string[]; key_id?: string };
}

/** Refuses anything that is not an svc API key, before any network call; never echoes it. */
export function checkKeyShape(key: string): Mode {
  const mode = modeOfKey(key);
  const copy = "copy the key from the organization's API settings";
  if (!mode) throw new UsageError('that is not an svc API key: it must start with svc_live_ or svc_test_ (tokens and client secrets are not keys)', copy);
  // The prefix is right: say what is wrong with the rest, not that the prefix is missing.
  if (/\s/.test(key)) throw new UsageError('that is not an svc API key: it holds a space or a line break', copy);
  if (key.length < `svc_${mode}_`.length + 8)
    throw new UsageError(`that key is too short: an svc API key is svc_${mode}_ and at least 8 more characters`, copy);
  return mode;
}

async function readKey(ctx: Context, _opts: KeysAddOptions): Promise<string> {
  // A terminal on stdin would echo the key while reading to EOF with no prompt: ask hidden instead, even with --stdin.
  if (ctx.io.stdin.isTTY) {
    if (!ctx.io.canPrompt())
      throw new UsageError(
        'stdin is a terminal, where the key would be echoed, but there is no terminal on stderr to prompt on',
        'pipe the key in: `svc keys add --stdin < key.txt`',
      );
    return (await promptSecret(ctx, 'API key (svc_test_… or svc_live_…):', '--stdin')).trim();
  }
  const text = await ctx.io.stdin.readAll();
  const key = text.trim().split(/\r?\n/)[0]?.trim() ?? '';
  if (!key) throw new UsageError('no key on stdin', 'pipe the key in: `svc keys add --stdin < key.txt`');
  return key;
}

/**
 * The profile's key of this mode that the new one would replace (its secret is deleted, and
 * was shown once): at a terminal asked, naming both; without one refused unless --replace.
 * Re-adding the same key (same id) loses nothing.
 */
async function confirmReplacement(
  ctx: Context,
  opts: KeysAddOptions,
  keys: Record<string, KeyMeta> | undefined,
  meta: KeyMeta,
  profileName: string,
): Promise<void> {
  // The same key again (same id), under its name or another, loses no secret: not asked.
  const old = Object.values(keys ?? {}).filter((k) => k.mode === meta.mode && !(k.id !== undefined && k.id === meta.id));
  if (!old.length || opts.replace) return;
  const olds = old.map((k) => `"${k.name}" (${redactedKey(k)})`).join(', ');
  const what = `profile "${profileName}" already has a ${meta.mode} key, ${olds}; the new key (${redactedKey(meta)}) would replace it and its stored secret would be deleted`;
  if (!ctx.io.canPrompt())
    throw new UsageError(
      `${what}; nothing was stored`,
      'run it again with --replace to replace it, or add the new key to another profile: `svc keys add --profile <name>`',
    );
  const question = `Profile "${profileName}" already has a ${meta.mode} key; its stored secret would be deleted. Replace ${olds} with ${redactedKey(meta)}?`;
  if (!ctx.globals.yes && !(await confirm(ctx, question))) throw new CliError('nothing was stored', EXIT.failure);
}

/** A name already held by a key of the other mode would silently replace that key (and its secret). */
function checkNameFree(current: KeyMeta | undefined, name: string, mode: Mode, profileName: string): void {
  if (!current || current.mode === mode) return;
  throw new UsageError(
    `a ${current.mode} key named ${name} exists in profile "${profileName}"; choose another --name or svc keys remove ${name} first (nothing was stored)`,
  );
}

export async function run(opts: KeysAddOptions, ctx: Context): Promise<CommandResult> {
  const key = await readKey(ctx, opts);
  const mode = modeAsked(ctx, key);
  const name = opts.name ?? mode;
  const target = await chooseTarget(ctx, opts, name, mode);
  const { account, unverified } = await askOrganization(ctx, opts, key, mode, target);
  checkOrganization(opts, account, target);
  const meta = await keyMeta(ctx, key, name, mode, account, unverified, target);
  await confirmReplacement(ctx, opts, (await ctx.config.read()).profiles[target.profileName]?.keys, meta, target.profileName);
  // One credential transaction: a login, logout or refresh of the profile elsewhere waits for it.
  const stored = await withCredentialTransaction(ctx, target.profileName, (tx) => storeKey(ctx, tx, key, meta, account, target));
  // A key added never switches the profile's mode (src/credentials/mode.ts): said when it is not the key's.
  const profileMode = (await ctx.config.read()).profiles[target.profileName]?.mode;
  const modeNote =
    profileMode && profileMode !== mode
      ? `note: profile "${target.profileName}" stays in ${profileMode} mode: use --${mode} for one command, or \`svc mode ${mode}\` to switch`
      : undefined;
  return report(ctx, { meta, account, unverified, target, stored, modeNote });
}

/** The key's mode, from its shape; a --test/--live that names the other mode is refused. */
function modeAsked(ctx: Context, key: string): Mode {
  const mode = checkKeyShape(key);
  if (ctx.globals.mode && ctx.globals.mode !== mode)
    throw new UsageError(
      `this is a ${mode} key (svc_${mode}_…), but --${ctx.globals.mode} was given: it asks for a svc_${ctx.globals.mode}_ key; nothing was stored`,
      `drop --${ctx.globals.mode} (or pass --${mode}) to store this ${mode} key, or paste a svc_${ctx.globals.mode}_ key`,
    );
  return mode;
}

/** Where the key goes: the profile every command would choose, and its address. */
interface Target {
  profileName: string;
  /** The profile as it was, when it exists. */
  existing: Profile | undefined;
  baseUrl: string;
}

/**
 * The profile and address the key is for (the choice every command makes), refused when the
 * name is another mode's key's, the address is not the profile's, or --org is not its organization.
 */
async function chooseTarget(ctx: Context, opts: KeysAddOptions, name: string, mode: Mode): Promise<Target> {
  const config = await ctx.config.read();
  await settleSecretsInFlight(ctx, config, ctx.clock.now());
  const profileName = chooseProfileName(ctx, config);
  const existing = config.profiles[profileName];
  checkNameFree(existing?.keys?.[name], name, mode, profileName);
  const baseUrl = chooseBaseUrl(ctx, existing);
  // A profile keeps its address: a key for another service goes into a profile of that service.
  if (existing) checkAddress(ctx, config, profileName, existing, baseUrl);
  if (opts.org && existing?.org_id && existing.org_id !== opts.org)
    throw new UsageError(
      `--org ${opts.org} is not the organization of profile "${profileName}" (${existing.org_id}); nothing was stored`,
      'store it in a profile of its own: `svc keys add --profile NAME --org …`',
    );
  return { profileName, existing, baseUrl };
}

/**
 * Asks the service which organization and scopes the key has. A key that may not read its
 * organization (403, not 401: the service accepted it) is stored unverified when the
 * organization is known (the profile's, or --org).
 */
async function askOrganization(
  ctx: Context,
  opts: KeysAddOptions,
  key: string,
  mode: Mode,
  { profileName, existing, baseUrl }: Target,
): Promise<{ account: Account; unverified: boolean }> {
  const { createApiClient } = await import('../../api/client.js');
  const client = createApiClient(
    ctx,
    { kind: 'api_key', source: 'profile', mode, profileName, baseUrl, apiKey: key },
    confirmedOrg({ source: 'profile', profile: existing }),
  );
  try {
    return { account: await client.request<Account>({ endpoint: 'account.get' }), unverified: false };
  } catch (error) {
    const knownOrg = opts.org ?? existing?.org_id;
    // Only the service's own scope refusal says the key was accepted; a proxy's HTML 403 says nothing of it.
    const lacksAccountRead = lackedScope(error) === 'account:read';
    if (lacksAccountRead && knownOrg) {
      const name = existing?.org_id === knownOrg ? (existing.org_name ?? knownOrg) : knownOrg;
      return { account: { id: knownOrg, name, livemode: mode === 'live', credential: { type: 'api_key', scopes: [] } }, unverified: true };
    }
    if (error instanceof ApiError && error.status === 401)
      throw new ApiError(
        `the service refused the key ${redact(key)}: it is unknown or revoked (at ${baseUrl})`,
        401,
        EXIT.unauthenticated,
        error.body,
        'check that you copied the whole key, and that --base-url / SVC_BASE_URL points at the right service',
      );
    if (lacksAccountRead && error instanceof ApiError)
      throw new ApiError(
        `the key ${redact(key)} lacks the account:read scope, which svc needs to learn its organization`,
        403,
        EXIT.forbidden,
        error.body,
        'give its organization with --org org_…, or add it to a profile whose organization is known, or use a key with account:read',
      );
    throw error;
  }
}

/** The key's organization must be the one --org names, and the profile's. */
function checkOrganization(opts: KeysAddOptions, account: Account, { profileName, existing }: Target): void {
  if (opts.org && account.id !== opts.org)
    throw new UsageError(`the key belongs to ${account.name} (${account.id}), not --org ${opts.org}; nothing was stored`);
  if (existing?.org_id && existing.org_id !== account.id) {
    throw new UsageError(
      `the key belongs to ${account.name} (${account.id}), but profile "${profileName}" is for ${existing.org_name ?? existing.org_id} (${existing.org_id}); nothing was stored`,
      `store it in a profile of its own: \`svc keys add --profile NAME\``,
    );
  }
}

/** What config.json keeps of the key (never the key itself). */
async function keyMeta(ctx: Context, key: string, name: string, mode: Mode, account: Account, unverified: boolean, { profileName }: Target): Promise<KeyMeta> {
  // The secret entry `<profile>:<name>` is shared by any key of that name: never overwrite the other mode's.
  checkNameFree((await ctx.config.read()).profiles[profileName]?.keys?.[name], name, mode, profileName);
  const meta: KeyMeta = {
    name,
    mode,
    last4: lastFour(key),
    scopes: account.credential.scopes ?? [],
    storage: 'keychain',
    added_at: new Date(ctx.clock.now()).toISOString(),
  };
  if (account.credential.key_id) meta.id = account.credential.key_id;
  if (unverified) meta.unverified = true;
  return meta;
}

interface Stored {
  storage: KeyMeta['storage'];
  /** The profile's keys of this mode the new one replaced. */
  replaced: KeyMeta[];
  /** Their secrets that could not be deleted, said as warnings. */
  left: SecretLeft[];
}

/**
 * Kill-safe order (src/credentials/journal.ts): announce the secret, write it, then commit its
 * metadata. A kill anywhere leaves the old key, or the new one, never a secret nobody describes.
 */
async function storeKey(ctx: Context, tx: ProfileTransaction, key: string, meta: KeyMeta, account: Account, { profileName, baseUrl }: Target): Promise<Stored> {
  const { name, mode } = meta;
  const org = { id: account.id, name: account.name, base_url: baseUrl };
  const entry = inFlight(profileName, name, ctx.clock.now(), meta, org);
  const hadConfig = await tx.config().then((cfg) => Object.keys(cfg.profiles).length > 0 || cfg.default_profile !== undefined);
  await tx.updateConfig((cfg) => {
    checkNameFree(cfg.profiles[profileName]?.keys?.[name], name, mode, profileName);
    addEntry(cfg, entry);
  });
  let storage: KeyMeta['storage'];
  try {
    storage = await tx.setSecret(name, key);
  } catch (error) {
    // Nothing was stored: withdraw the announcement (best effort; the next command would settle it).
    await tx.updateConfig((cfg) => dropEntry(cfg, entry)).catch(() => {});
    // A first add that stored nothing leaves no config.json behind either.
    if (!hadConfig) await ctx.config.removeIfEmpty?.().catch(() => {});
    throw error;
  }
  meta.storage = storage;
  const replaced = await tx.updateConfig((cfg) => {
    dropEntry(cfg, entry);
    return commitKey(cfg, profileName, meta, ctx.clock.now(), org);
  });
  return { storage, replaced, left: await deleteReplaced(ctx, profileName, replaced) };
}

/** Deletes the secrets of the keys replaced (announced as in flight by commitKey); those left are returned. */
async function deleteReplaced(ctx: Context, profileName: string, replaced: KeyMeta[]): Promise<SecretLeft[]> {
  const pending = (await ctx.config.read()).secrets_in_flight ?? [];
  return finishDeletes(
    ctx,
    replaced
      .map((old) => ({
        entry: pending.find((e) => e.profile === profileName && e.name === old.name && e.pid === process.pid && !e.key)!,
        storage: old.storage,
      }))
      .filter((d) => d.entry),
  );
}

/** What was stored, where, and what it replaced; the secrets left behind as warnings. */
function report(
  ctx: Context,
  {
    meta,
    account,
    unverified,
    target,
    stored,
    modeNote,
  }: { meta: KeyMeta; account: Account; unverified: boolean; target: Target; stored: Stored; modeNote: string | undefined },
): CommandResult {
  const { profileName } = target;
  const { storage, replaced, left } = stored;
  for (const entry of left) warn(ctx, describeLeft(entry));
  if (unverified)
    ctx.io.stderr.write(
      `note: the key cannot read its organization (no account:read), so it is stored unverified for ${account.id}; its scopes are not known here.\n`,
    );
  const value = {
    profile: profileName,
    org_id: account.id,
    org_name: account.name,
    key: { ...meta, redacted: redactedKey(meta) },
    ...(left.length ? { secrets_left: left } : {}),
  };
  const replacedNote =
    replaced.length && !ctx.globals.json ? `It replaces the profile's previous ${meta.mode} key ${replaced.map((k) => `"${k.name}"`).join(', ')}.` : undefined;
  const after = [replacedNote, modeNote].filter((line) => line !== undefined);
  // The organization's name is the server's text: inert before it reaches the terminal.
  // An unverified key's organization is known by its id alone: said once, not as "org_… (org_…)".
  const org = account.name && account.name !== account.id ? `${account.name} (${account.id})` : account.id;
  // Prose, wrapped at a terminal: a long organization name or path must not be cut mid-word.
  return proseResult(
    value,
    `Added ${meta.mode} key "${meta.name}" (${redactedKey(meta)}) for ${org} to profile "${profileName}", stored in ${storage === 'file' ? 'the credentials file' : storage}.`,
    { after: after.length ? after.join('\n') : undefined },
  );
}

export default commandModule({ command, parse, run });
