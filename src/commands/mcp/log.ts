// `svc mcp log`: the audit log of `svc mcp`'s tool calls (audit.ts), oldest first.
import { defineCommand, type ArgsOf, type FlagsOf } from '../define.js';
import type { Context } from '../../context.js';
import { configDir } from '../../config/paths.js';
import { printList, type Column } from '../../io/output.js';
import { readAudit, type AuditEntry } from './audit.js';
import { money } from '../../contract/money.js';

export const command = defineCommand({
  name: 'log',
  summary: "the audit log of svc mcp's tool calls: time, tool, mode, price, result, ids",
  flags: {
    limit: { value: '<n>', kind: { type: 'integer', min: 1 }, help: 'only the last N calls' },
  },
  examples: ['svc mcp log', 'svc mcp log --limit 20', 'svc mcp log --json'],
  scopes: [],
});

export function parse(_args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): { limit?: number } {
  // The integer kind has read and checked it (a whole number of at least 1).
  return flags.limit === undefined ? {} : { limit: flags.limit };
}

const columns: Column<AuditEntry>[] = [
  { header: 'TIME', value: (e) => e.time },
  { header: 'TOOL', value: (e) => e.tool },
  { header: 'MODE', value: (e) => e.mode },
  { header: 'PRICE', value: (e) => (e.price_asked === null ? '' : money(e.price_asked)) },
  { header: 'RESULT', value: (e) => e.result },
  { header: 'IDS', value: (e) => e.ids.join(',') },
];

export async function run(opts: { limit?: number }, ctx: Context): Promise<void> {
  const entries = readAudit(configDir(ctx.env));
  const shown = opts.limit === undefined ? entries : entries.slice(-opts.limit);
  await printList(ctx, shown, columns);
}
