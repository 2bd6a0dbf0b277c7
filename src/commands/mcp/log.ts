// `svc mcp log`: the audit log of `svc mcp`'s tool calls (audit.ts), oldest first; with
// --verify, whether the log is as svc wrote it (each line links to the one before, the last
// to the head file): exit 1 when it was altered or cut. A log holding a line of a newer
// format (a newer svc's) is neither shown nor checked: exit 1 naming both versions.
import { defineCommand, type ArgsOf, type FlagsOf } from '../define.js';
import type { Context } from '../../context.js';
import { configDir } from '../../config/paths.js';
import { localTime, printJson, printList, printText, type Column } from '../../io/output.js';
import { readAudit, verifyAudit, type AuditEntry } from './audit.js';
import { CliError } from '../../errors.js';
import { money } from '../../contract/money.js';

export const command = defineCommand({
  name: 'log',
  summary: "the audit log of svc mcp's tool calls: time, tool, mode, price, result, ids",
  flags: {
    limit: { value: '<n>', kind: { type: 'integer', min: 1 }, help: 'only the last N calls' },
    verify: { help: 'check that the log is as svc wrote it: exit 1 if a line was changed, removed or cut' },
  },
  examples: ['svc mcp log', 'svc mcp log --limit 20', 'svc mcp log --json', 'svc mcp log --verify'],
  scopes: [],
});

export interface LogOptions {
  limit?: number;
  verify?: true;
}

export function parse(_args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): LogOptions {
  return { ...(flags.verify === true ? { verify: true as const } : {}), ...(flags.limit !== undefined ? { limit: flags.limit } : {}) };
}

// At a terminal narrower than the table: the local time, then the result and ids cut (the ids in
// the middle, where their ends stay copyable); piped, every cell whole.
const columns: Column<AuditEntry>[] = [
  { header: 'TIME', value: (e) => e.time, narrow: (e) => localTime(e.time) },
  { header: 'TOOL', value: (e) => e.tool },
  { header: 'MODE', value: (e) => e.mode },
  { header: 'PRICE', value: (e) => (e.price_asked === null ? '' : money(e.price_asked)) },
  { header: 'RESULT', value: (e) => e.result, shrink: 10 },
  { header: 'IDS', value: (e) => e.ids.join(','), shrink: 12, shorten: 'middle' },
];

export async function run(opts: LogOptions, ctx: Context): Promise<void> {
  const dir = configDir(ctx.env);
  if (opts.verify) {
    const { lines, unchained, problems } = verifyAudit(dir);
    const earlier = unchained ? ` (the first ${unchained}, written by an earlier svc before it linked its lines, are not checked)` : '';
    if (ctx.globals.json) printJson(ctx, { intact: problems.length === 0, lines, unchained, problems });
    else printText(ctx, problems.length === 0 ? `the audit log is intact: ${lines} lines, each linked to the one before${earlier}` : problems.join('\n'));
    if (problems.length) throw new CliError(`the audit log was altered or cut (${problems.length} problem${problems.length === 1 ? '' : 's'})`);
    return;
  }
  const entries = readAudit(dir);
  const shown = opts.limit === undefined ? entries : entries.slice(-opts.limit);
  await printList(ctx, shown, columns);
}
