// `svc calls list [--status active|ended] [--limit N] [--all]`
import type { Context } from '../../context.js';
import { parseChoice } from '../../validate/index.js';
import { type Flags, type ListFlags, parseListFlags, stringFlag, validated } from './shared.js';
import { fetchList } from '../shared/resources.js';
import { printList } from '../../io/output.js';
import { type Call, callColumns, timeFormat } from './views.js';

export interface CallsListOptions extends ListFlags {
  status?: 'active' | 'ended';
}

export function parse(_args: string[], flags: Flags): CallsListOptions {
  const status = stringFlag(flags, 'status');
  const opts: CallsListOptions = parseListFlags(flags);
  if (status !== undefined) opts.status = validated(() => parseChoice(status, ['active', 'ended'], '--status'));
  return opts;
}

export async function run(opts: CallsListOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = {};
  if (opts.status) query.status = opts.status;
  const calls = await fetchList<Call>(ctx, 'calls.list', opts, { query });
  await printList(ctx, calls, callColumns(timeFormat(ctx)));
}
