// `svc keys add [--name N] [--stdin]`: checks the key with the service (GET /v1/account
// tells its organization and scopes), then stores it for the profile and its mode.
import { defineCommand, type ArgsOf, type FlagsOf } from '../../cli/define.js';
import type { Context } from '../../context.js';
import type { KeyMeta } from '../../config/config.js';
import { modeOfKey } from '../../shared/constants.js';
import type { Mode } from '../../shared/constants.js';
import { chooseBaseUrl, chooseProfileName } from '../../credentials/resolve.js';
import { ApiError, EXIT, UsageError } from '../../errors.js';
import { promptSecret } from '../../io/interactive.js';
import { printJson, warn } from '../../io/output.js';
import { describeLeft, type SecretLeft } from '../../credentials/store.js';
import { lastFour, redact } from '../../io/redact.js';
import { parseKeyName, redactedKey } from './shared.js';

export interface KeysAddOptions {
  /** Undefined: the key's mode (`test` / `live`). */
  name?: string;
  /** Read the key from stdin (piped). On a terminal the key is asked with a hidden prompt all the same. */
  stdin: boolean;
}

export const command = defineCommand({
  name: 'add',
  summary: 'store an API key (svc_test_… or svc_live_…) for the profile, after checking it with the service',
  flags: {
    name: { value: '<name>', help: 'a name for the key (default: its mode, test or live)' },
    stdin: { help: 'read the key from stdin (the default without a terminal)' },
  },
  examples: ['svc keys add', 'svc keys add --name ci --stdin < key.txt', 'echo "$KEY" | svc keys add --profile work'],
  scopes: ['account:read'],
});

export function parse(_args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): KeysAddOptions {
  const opts: KeysAddOptions = { stdin: flags.stdin === true };
  if (flags.name !== undefined) opts.name = parseKeyName(flags.name);
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
  if (!mode || /\s/.test(key) || key.length < 'svc_test_'.length + 8)
    throw new UsageError('that is not an svc API key: it must start with svc_live_ or svc_test_ (tokens and client secrets are not keys)', 'copy the key from the organization\'s API settings');
  return mode;
}

async function readKey(ctx: Context, _opts: KeysAddOptions): Promise<string> {
  // A terminal on stdin would echo the key while reading to EOF with no prompt: ask hidden instead, even with --stdin.
  if (ctx.io.stdin.isTTY) {
    if (!ctx.io.stderr.isTTY)
      throw new UsageError('stdin is a terminal, where the key would be echoed, but there is no terminal on stderr to prompt on', 'pipe the key in: `svc keys add --stdin < key.txt`');
    return (await promptSecret(ctx, 'API key (svc_test_… or svc_live_…):', '--stdin')).trim();
  }
  const text = await ctx.io.stdin.readAll();
  const key = text.trim().split(/\r?\n/)[0]?.trim() ?? '';
  if (!key) throw new UsageError('no key on stdin', 'pipe the key in: `svc keys add --stdin < key.txt`');
  return key;
}

/** A name already held by a key of the other mode would silently replace that key (and its secret). */
function checkNameFree(current: KeyMeta | undefined, name: string, mode: Mode, profileName: string): void {
  if (!current || current.mode === mode) return;
  throw new UsageError(
    `a ${current.mode} key named ${name} exists in profile "${profileName}"; choose another --name or svc keys remove ${name} first (nothing was stored)`,
  );
}

export async function run(opts: KeysAddOptions, ctx: Context): Promise<void> {
  const key = await readKey(ctx, opts);
  const mode = checkKeyShape(key);
  if (ctx.globals.mode && ctx.globals.mode !== mode)
    throw new UsageError(
      `this is a ${mode} key (svc_${mode}_…), but --${ctx.globals.mode} was given: it asks for a svc_${ctx.globals.mode}_ key; nothing was stored`,
      `drop --${ctx.globals.mode} (or pass --${mode}) to store this ${mode} key, or paste a svc_${ctx.globals.mode}_ key`,
    );
  const name = opts.name ?? mode;

  const config = await ctx.config.read();
  const profileName = chooseProfileName(ctx, config);
  const existing = config.profiles[profileName];
  checkNameFree(existing?.keys?.[name], name, mode, profileName);
  const baseUrl = chooseBaseUrl(ctx, existing);

  // Ask the service which organization and scopes the key has.
  const { createApiClient } = await import('../../api/client.js');
  const client = createApiClient(ctx, { kind: 'api_key', source: 'profile', mode, profileName, profile: existing, baseUrl, apiKey: key });
  let account: Account;
  try {
    account = await client.request<Account>({ endpoint: 'account.get' });
  } catch (error) {
    if (error instanceof ApiError && error.status === 401)
      throw new ApiError(`the service refused the key ${redact(key)}: it is unknown or revoked (at ${baseUrl})`, 401, EXIT.unauthenticated, error.body,
        'check that you copied the whole key, and that --base-url / SVC_BASE_URL points at the right service');
    if (error instanceof ApiError && error.status === 403)
      throw new ApiError(`the key ${redact(key)} lacks the account:read scope, which svc needs to learn its organization`, 403, EXIT.forbidden, error.body,
        'use a key with account:read, or pass this one per command in SVC_API_KEY');
    throw error;
  }
  if (existing?.org_id && existing.org_id !== account.id) {
    throw new UsageError(
      `the key belongs to ${account.name} (${account.id}), but profile "${profileName}" is for ${existing.org_name ?? existing.org_id} (${existing.org_id}); nothing was stored`,
      `store it in a profile of its own: \`svc keys add --profile <name>\``,
    );
  }

  // The secret entry `<profile>:<name>` is shared by any key of that name: never overwrite the other mode's.
  checkNameFree((await ctx.config.read()).profiles[profileName]?.keys?.[name], name, mode, profileName);
  // The secret first: metadata must never point at a secret that was not stored.
  const storage = await ctx.secrets.set(profileName, name, key);
  const meta: KeyMeta = {
    name,
    mode,
    last4: lastFour(key),
    scopes: account.credential.scopes ?? [],
    storage,
    added_at: new Date(ctx.clock.now()).toISOString(),
  };
  if (account.credential.key_id) meta.id = account.credential.key_id;

  const replaced = await ctx.config.update((cfg) => {
    const profile = (cfg.profiles[profileName] ??= {});
    profile.org_id = account.id;
    profile.org_name = account.name;
    if (ctx.globals.baseUrl || ctx.env.SVC_BASE_URL || !profile.base_url) profile.base_url = baseUrl;
    const keys = (profile.keys ??= {});
    // One key per mode: an older key of this mode is replaced.
    const old = Object.values(keys).filter((k) => k.mode === mode && k.name !== name);
    for (const k of old) delete keys[k.name];
    keys[name] = meta;
    cfg.default_profile ??= profileName;
    return old;
  });
  const left: SecretLeft[] = [];
  for (const old of replaced) {
    const entry = await ctx.secrets.delete(profileName, old.name, old.storage).catch(() => null);
    if (entry) left.push(entry);
  }
  for (const entry of left) warn(ctx, describeLeft(entry));

  if (ctx.globals.json)
    return printJson(ctx, { profile: profileName, org_id: account.id, org_name: account.name, key: { ...meta, redacted: redactedKey(meta) }, ...(left.length ? { secrets_left: left } : {}) });
  ctx.io.stdout.write(
    `Added ${mode} key "${name}" (${redactedKey(meta)}) for ${account.name} (${account.id}) to profile "${profileName}", stored in ${storage === 'file' ? 'the credentials file' : storage}.\n`,
  );
  if (replaced.length) ctx.io.stderr.write(`It replaces the profile's previous ${mode} key ${replaced.map((k) => `"${k.name}"`).join(', ')}.\n`);
}
