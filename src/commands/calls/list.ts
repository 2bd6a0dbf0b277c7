// `svc calls list [--status active|ended] [--limit N] [--all]`
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';

import { type ListFlags, parseListFlags } from '../../kit/list-flags.js';
import { fetchList } from '../../kit/resources.js';
import { type Call, callColumns, timeFormat } from '../../kit/views.js';
import { listResult, type CommandResult } from '../../kit/result.js';

export interface CallsListOptions extends ListFlags {
  status?: 'active' | 'ended';
}

export const command = defineCommand({
  mcp: 'read',
  tool: { title: 'List calls', does: 'Lists interpreted calls, newest first.', returns: { list: true, id: 'call_' } },
  summary: 'list calls, newest first',
  flags: {
    status: { value: '<status>', choices: ['active', 'ended'], help: 'only active or ended calls' },
    limit: { value: '<n>', kind: { type: 'integer', min: 1, max: 100 }, help: 'at most N calls (1–100, default 20)' },
    all: { help: 'every call, following pages' },
    cursor: { value: '<cursor>', help: 'the next page: the cursor a page with more ended with', conflicts: 'all' },
  },
  examples: ['svc calls list', 'svc calls list --status active --json', 'svc calls list --all | cut -f1'],
  scopes: ['calls:read'],
});

export function parse(_args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): CallsListOptions {
  return { ...parseListFlags(flags), ...(flags.status !== undefined ? { status: flags.status } : {}) };
}

export async function run(opts: CallsListOptions, ctx: Context): Promise<CommandResult> {
  const query: Record<string, string> = {};
  if (opts.status) query.status = opts.status;
  const calls = await fetchList<Call>(ctx, 'calls.list', opts, { query });
  return listResult(calls, callColumns(timeFormat(ctx)));
}

export default commandModule({ command, parse, run });
