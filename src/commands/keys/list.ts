// `svc keys list`: the profile's keys as config.json records them (never the keys themselves).
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';
import type { KeyMeta } from '../../config/config.js';
import { chooseProfileName, namedProfile, requireProfile } from '../../credentials/resolve.js';
import { scopeList } from '../../io/output.js';
import { settleSecretsInFlight } from '../../credentials/journal.js';
import { redactedKey } from '../../kit/keys.js';
import { listResult, type CommandResult } from '../../kit/result.js';

export type KeysListOptions = Record<string, never>;

export const command = defineCommand({
  summary: "the profile's keys: name, mode, redacted key, scopes, where stored",
  examples: ['svc keys list', 'svc keys list --json'],
  scopes: [],
});

export function parse(_args: ArgsOf<typeof command>, _flags: FlagsOf<typeof command>): KeysListOptions {
  return {};
}

export async function run(_opts: KeysListOptions, ctx: Context): Promise<CommandResult> {
  let config = await ctx.config.read();
  if (config.secrets_in_flight) {
    // A key write killed half-way: list what it settles to (src/credentials/journal.ts).
    await settleSecretsInFlight(ctx, config, ctx.clock.now());
    config = await ctx.config.read();
  }
  const profileName = chooseProfileName(ctx, config);
  const explicit = namedProfile(ctx) !== undefined;
  const profile = explicit ? requireProfile(config, profileName) : config.profiles[profileName];
  const keys = Object.values(profile?.keys ?? {}).sort((a, b) => a.name.localeCompare(b.name));
  const rows = keys.map((k) => ({ ...k, redacted: redactedKey(k) }));
  return listResult<KeyMeta & { redacted: string }>(rows, [
    { header: 'NAME', value: (k) => k.name },
    { header: 'MODE', value: (k) => k.mode },
    { header: 'KEY', value: (k) => k.redacted },
    { header: 'SCOPES', value: (k) => (k.unverified ? 'unknown (unverified)' : scopeList(k.scopes)), shrink: 12 },
    { header: 'STORED', value: (k) => k.storage },
  ]);
}

export default commandModule({ command, parse, run });
