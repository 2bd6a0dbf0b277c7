// `svc keys remove NAME`: forgets a stored key (secret and metadata). The key stays valid
// at the service: revoking it is done in the organization's API settings.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';
import { chooseProfileName, requireProfile } from '../../credentials/resolve.js';
import { UsageError } from '../../errors.js';
import { warn } from '../../io/output.js';
import type { Profile } from '../../config/config.js';
import { describeLeft } from '../../credentials/store.js';
import { addEntry, finishDeletes, inFlight, settleSecretsInFlight } from '../../credentials/journal.js';
import { parseKeyName, redactedKey } from '../../kit/keys.js';
import { askBeforeDeleting } from '../../kit/ask-first.js';
import { hasCredentialFor, keepModeThroughChange } from '../../credentials/mode.js';
import { withCredentialTransaction } from '../../credentials/transaction.js';
import { jsonOnly, textResult, type CommandResult } from '../../kit/result.js';

export interface KeysRemoveOptions {
  name: string;
}

export const command = defineCommand({
  summary: 'forget a stored key (the key itself stays valid at the service)',
  args: [{ name: 'name', help: "the key's name (see svc keys list)", required: true }],
  examples: ['svc keys remove ci'],
  scopes: [],
});

export function parse(args: ArgsOf<typeof command>, _flags: FlagsOf<typeof command>): KeysRemoveOptions {
  if (!args[0]) throw new UsageError("missing NAME: the key's name, see `svc keys list`");
  return { name: parseKeyName(args[0], 'NAME') };
}

export async function run(opts: KeysRemoveOptions, ctx: Context): Promise<CommandResult> {
  const config = await ctx.config.read();
  await settleSecretsInFlight(ctx, config, ctx.clock.now());
  const profileName = chooseProfileName(ctx, config);
  const profile = requireProfile(config, profileName);
  const meta = profile.keys?.[opts.name];
  if (!meta) {
    const names = Object.keys(profile.keys ?? {});
    throw new UsageError(`profile "${profileName}" has no key named "${opts.name}"` + (names.length ? ` (keys: ${names.join(', ')})` : ' (it has no keys)'));
  }
  await askBeforeDeleting(ctx, `Remove the ${meta.mode} key "${opts.name}" (${redactedKey(meta)}) from profile "${profileName}"? Its stored secret is deleted`);
  // Kill-safe order (src/credentials/journal.ts): the metadata goes with an announced delete,
  // then the secret, then the announcement; a kill in between leaves an entry the next command settles.
  const left = await withCredentialTransaction(ctx, profileName, async (tx) => {
    // The secret's delete reads credentials.json whatever the key's storage: one from a newer
    // svc is refused here, before config.json loses the key (as profiles remove refuses).
    await ctx.secrets.checkStorage?.();
    const entry = inFlight(profileName, opts.name, ctx.clock.now());
    await tx.updateConfig((cfg) => {
      const stored = cfg.profiles[profileName];
      if (stored) keepModeThroughChange(stored);
      delete stored?.keys?.[opts.name];
      addEntry(cfg, entry);
    });
    return (await finishDeletes(ctx, [{ entry, storage: meta.storage }]))[0] ?? null;
  });
  if (left) warn(ctx, describeLeft(left));
  const value = { profile: profileName, removed: { ...meta, redacted: redactedKey(meta) }, secret_left: left };
  if (ctx.globals.json) return jsonOnly(value);
  const after = [
    "The key itself still works at the service until it is revoked in the organization's API settings.",
    ...modeLeftBare((await ctx.config.read()).profiles[profileName], profileName),
  ];
  return textResult(
    value,
    `Removed ${meta.mode} key "${opts.name}" (${redactedKey(meta)}) from profile "${profileName}"${left ? ' (its secret remains, see the warning)' : ''}.`,
    { after: after.join('\n') },
  );
}

/** The profile's mode stays what it was (src/credentials/mode.ts): said when nothing is left to use in it. */
function modeLeftBare(profile: Profile | undefined, profileName: string): string[] {
  const mode = profile?.mode;
  if (!mode || hasCredentialFor(profile, mode)) return [];
  const other = mode === 'test' ? 'live' : 'test';
  return [
    `note: profile "${profileName}" stays in ${mode} mode, which now has no credential: commands stop until you add one (svc keys add)` +
      (hasCredentialFor(profile, other) ? ` or switch with \`svc mode ${other}\`` : '') +
      '.',
  ];
}

export default commandModule({ command, parse, run });
