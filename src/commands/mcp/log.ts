// `svc mcp log`: the audit log of `svc mcp`'s tool calls (audit.ts), oldest first; with
// --verify, whether the log is as svc wrote it (each line links to the one before, the first
// and last to the head file, and no session found it altered since it was last accepted):
// exit 1 when it was altered or cut. --accept-break, after --verify has been read, is the
// person's word that the log as it is now is the one to check from. --refused: the calls
// refused before they ran (an unknown tool, input a schema refuses), kept apart. A log holding
// a line of a newer format (a newer svc's) is neither shown nor checked: exit 1 naming both versions.
// --against-service (with --verify): the acts checked against the service's records too
// (against-service.ts), in each session's window or the one --since names.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';
import { configDir } from '../../config/paths.js';
import { localTime, type Column } from '../../io/output.js';
import { AuditLog, readAudit, readRefused, verifyAudit, type AuditEntry, type RefusedLine } from '../../mcp/audit.js';
import { CliError, UsageError } from '../../errors.js';
import { money } from '../../contract/money.js';
import { checkAgainstService, type AgainstService } from '../../mcp/against-service.js';
import { listResult, proseResult, type CommandResult } from '../../kit/result.js';

export const command = defineCommand({
  summary: "the audit log of svc mcp's tool calls: time, tool, mode, price, result, ids",
  flags: {
    limit: { value: '<n>', kind: { type: 'integer', min: 1 }, help: 'only the last N calls' },
    verify: { help: 'check that the log is as svc wrote it: exit 1 if a line was changed, removed or cut' },
    acceptBreak: {
      help: 'with --verify: accept the log as it is now (after reading what --verify found); later checks start from here',
    },
    refused: { help: 'the calls refused before they ran (an unknown tool, input a schema refuses): their count, size and digest' },
    againstService: {
      help: "with --verify: check the log's acts against the service's own records (what it made in each session's window, in this credential's mode): exit 1 if something made is not in the log",
    },
    since: {
      value: '<duration>',
      kind: { type: 'duration', min: '1m', max: '30d' },
      help: 'with --against-service: the window to check, e.g. 2h (for a log deleted whole)',
    },
  },
  examples: [
    'svc mcp log',
    'svc mcp log --limit 20',
    'svc mcp log --json',
    'svc mcp log --verify',
    'svc mcp log --verify --accept-break',
    'svc mcp log --refused',
    'svc mcp log --verify --against-service',
    'svc mcp log --verify --against-service --since 2h',
  ],
  scopes: [],
});

export interface LogOptions {
  limit?: number;
  verify?: true;
  acceptBreak?: true;
  refused?: true;
  againstService?: true;
  sinceMs?: number;
}

export function parse(_args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): LogOptions {
  if (flags.acceptBreak === true && flags.verify !== true)
    throw new UsageError('--accept-break goes with --verify: run `svc mcp log --verify` first, read what it found, then `svc mcp log --verify --accept-break`');
  if (flags.refused === true && flags.verify === true) throw new UsageError('--refused lists the refused calls; --verify checks the calls: give one');
  if (flags.againstService === true && flags.verify !== true)
    throw new UsageError('--against-service goes with --verify: svc mcp log --verify --against-service');
  if (flags.since !== undefined && flags.againstService !== true)
    throw new UsageError('--since names the window --against-service checks: give --verify --against-service too');
  return {
    ...(flags.againstService === true ? { againstService: true as const } : {}),
    ...(flags.since !== undefined ? { sinceMs: flags.since } : {}),
    ...(flags.verify === true ? { verify: true as const } : {}),
    ...(flags.acceptBreak === true ? { acceptBreak: true as const } : {}),
    ...(flags.refused === true ? { refused: true as const } : {}),
    ...(flags.limit !== undefined ? { limit: flags.limit } : {}),
  };
}

/** A call's result as the table says it: an unfinished billed call with what it may have cost. */
const resultCell = (e: AuditEntry) => (e.result === 'unfinished' && e.price_asked !== null ? `unfinished, up to ${money(e.price_asked)}` : e.result);

// At a terminal narrower than the table: the local time, then the result and ids cut (the ids in
// the middle, where their ends stay copyable); piped, every cell whole.
const columns: Column<AuditEntry>[] = [
  { header: 'TIME', value: (e) => e.time, narrow: (e) => localTime(e.time) },
  { header: 'TOOL', value: (e) => e.tool },
  { header: 'MODE', value: (e) => e.mode },
  { header: 'PRICE', value: (e) => (e.price_asked === null ? '' : money(e.price_asked)) },
  { header: 'RESULT', value: resultCell, shrink: 10 },
  { header: 'IDS', value: (e) => e.ids.join(','), shrink: 12, shorten: 'middle' },
];

const refusedColumns: Column<RefusedLine>[] = [
  { header: 'TIME', value: (r) => r.time, narrow: (r) => localTime(r.time) },
  { header: 'COUNT', value: (r) => String(r.count) },
  { header: 'TOOLS', value: (r) => r.tools.join(','), shrink: 12 },
  { header: 'REASONS', value: (r) => r.reasons.join(',') },
  { header: 'ARGS CHARS', value: (r) => String(r.args_chars) },
  { header: 'LAST ARGS SHA256', value: (r) => r.args_sha256 },
];

async function verify(opts: LogOptions, ctx: Context, dir: string): Promise<CommandResult> {
  // The service's records first: a window that cannot be named is refused before the log is changed.
  const service = opts.againstService ? await againstService(opts, ctx, dir) : undefined;
  const accepted = opts.acceptBreak ? await new AuditLog(dir).acceptBreak(new Date(ctx.clock.now()).toISOString()) : undefined;
  const { lines, unchained, problems } = verifyAudit(dir);
  const earlier = unchained ? ` (the first ${unchained}, written by an earlier svc before it linked its lines, are not checked)` : '';
  const text = [
    ...(accepted ? [accepted.length ? `accepted, as a line of the log:\n${accepted.join('\n')}` : 'nothing to accept.'] : []),
    problems.length === 0
      ? `the audit log is intact: ${lines} lines, each linked to the one before${earlier}`
      : `${problems.join('\n')}\nonce you have looked, \`svc mcp log --verify --accept-break\` accepts the log as it is now`,
    ...(service ? [serviceReport(service)] : []),
  ];
  const value = { intact: problems.length === 0, lines, unchained, problems, ...(accepted ? { accepted } : {}), ...(service ? { service } : {}) };
  return proseResult(value, text.join('\n'), { failure: verifyFailure(problems, service) });
}

/** What the verification found wrong, as the run's error: the log altered or cut, or acts of the service no line accounts for. */
function verifyFailure(problems: string[], service: AgainstService | undefined): Error | undefined {
  if (problems.length) return new CliError(`the audit log was altered or cut (${problems.length} problem${problems.length === 1 ? '' : 's'})`);
  if (service?.unaccounted.length)
    return new CliError(
      `the service made ${service.unaccounted.length} thing${service.unaccounted.length === 1 ? '' : 's'} in the log's window${service.windows.length === 1 ? '' : 's'} that no line of the log accounts for`,
      1,
      "a line was removed or the log replaced, or something other than svc mcp made them with this organization's credentials (the dashboard, another app): check their times",
    );
  return undefined;
}

async function againstService(opts: LogOptions, ctx: Context, dir: string): Promise<AgainstService> {
  const entries = readAudit(dir);
  const result = await checkAgainstService(ctx, entries, opts.sinceMs);
  if (result.windows.length === 0)
    throw new UsageError(`the log holds no ${result.mode}-mode session to check: with the log deleted, name the window with --since (e.g. --since 2h)`);
  return result;
}

function serviceReport(r: AgainstService): string {
  const windows = r.windows.map((w) => `${w.from} to ${w.to}`).join(', ');
  const head = `against the service (${r.mode} mode, ${windows}): ${r.records} thing${r.records === 1 ? '' : 's'} made`;
  const lines = [r.unaccounted.length ? `${head}; not in the log:` : `${head}, each accounted for by the log`, ...r.unaccounted.map((u) => `  ${u}`)];
  if (r.unseen.length) lines.push(`acts of the log the service does not show in the window (past its retention?):`, ...r.unseen.map((u) => `  ${u}`));
  return lines.join('\n');
}

export async function run(opts: LogOptions, ctx: Context): Promise<CommandResult> {
  const dir = configDir(ctx.env);
  if (opts.verify) return verify(opts, ctx, dir);
  if (opts.refused) {
    const lines = readRefused(dir);
    return listResult(opts.limit === undefined ? lines : lines.slice(-opts.limit), refusedColumns);
  }
  const entries = readAudit(dir);
  return listResult(opts.limit === undefined ? entries : entries.slice(-opts.limit), columns);
}

export default commandModule({ command, parse, run });
