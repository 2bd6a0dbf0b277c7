// `svc profiles list`: every profile with its organization, address, mode and what it
// holds, the default marked. Local only (`svc auth status` checks them with the service).
import { commandModule, defineCommand } from '../../kit/define.js';
import type { Context } from '../../context.js';
import type { Profile } from '../../config/config.js';
import { DEFAULT_PROFILE } from '../../config/config.js';
import { profileAddress } from '../../credentials/origin.js';
import { chooseMode } from '../../credentials/resolve.js';
import type { Column } from '../../io/output.js';
import { redactedKey } from '../../kit/keys.js';
import { listResult, type CommandResult } from '../../kit/result.js';

export const command = defineCommand({
  summary: 'every profile: organization, address, mode, credentials (the default marked *)',
  examples: ['svc profiles list', 'svc profiles list --json'],
  scopes: [],
});

export function parse(): Record<string, never> {
  return {};
}

export interface ProfileRow {
  name: string;
  default: boolean;
  org_id: string | null;
  org_name: string | null;
  base_url: string;
  mode: 'test' | 'live';
  oauth: 'active' | 'ended' | null;
  keys: Array<{ name: string; mode: string; redacted: string }>;
}

export function profileRow(name: string, profile: Profile, defaultName: string): ProfileRow {
  return {
    name,
    default: name === defaultName,
    org_id: profile.org_id ?? null,
    org_name: profile.org_name ?? null,
    base_url: profileAddress(profile),
    // The mode a command would use with no flag or SVC_MODE, as `svc mode` shows it.
    mode: chooseMode({ globals: { json: false, debug: false, color: false, yes: false }, env: {} }, profile),
    oauth: profile.oauth ? (profile.oauth.ended_at ? 'ended' : 'active') : null,
    keys: Object.values(profile.keys ?? {})
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((k) => ({ name: k.name, mode: k.mode, redacted: redactedKey(k) })),
  };
}

function credentials(row: ProfileRow): string {
  const parts = [...(row.oauth ? [`oauth${row.oauth === 'ended' ? ' (ended)' : ''}`] : []), ...row.keys.map((k) => `${k.mode} key ${k.name}`)];
  return parts.join(', ') || 'none';
}

const columns: Column<ProfileRow>[] = [
  // At a terminal the default is marked beside its name; scripts keep the DEFAULT column.
  { header: 'NAME', value: (r) => r.name, table: (r) => (r.default ? `${r.name} *` : r.name) },
  { header: 'DEFAULT', value: (r) => (r.default ? '*' : ''), pipedOnly: true },
  // On a narrow terminal the organization's name stands alone (its id is in --json and `svc account`).
  {
    header: 'ORGANIZATION',
    value: (r) => (r.org_name ? `${r.org_name} (${r.org_id ?? '?'})` : r.org_id),
    narrow: (r) => r.org_name ?? r.org_id,
    shrink: 12,
  },
  // An address is never cut (its port is what tells two apart): on a narrow terminal it goes
  // first, whole; `svc auth status` and --json show it.
  { header: 'ADDRESS', value: (r) => r.base_url, drop: 1 },
  { header: 'MODE', value: (r) => r.mode },
  { header: 'CREDENTIALS', value: (r) => credentials(r), shrink: 12 },
];

export async function run(_opts: unknown, ctx: Context): Promise<CommandResult> {
  const config = await ctx.config.read();
  const defaultName = config.default_profile ?? DEFAULT_PROFILE;
  const rows = Object.keys(config.profiles)
    .sort()
    .map((name) => profileRow(name, config.profiles[name]!, defaultName));
  if (!rows.length && !ctx.globals.json) ctx.io.stderr.write('No profiles yet: run `svc login` or `svc keys add` to create one.\n');
  return listResult(rows, columns);
}

export default commandModule({ command, parse, run });
