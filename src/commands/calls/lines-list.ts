// `svc calls lines list [--limit N] [--all]`
import type { Context } from '../../context.js';
import { type Flags, type ListFlags, parseListFlags } from './shared.js';
import { fetchList } from '../shared/resources.js';
import { printList } from '../../io/output.js';
import { type Line, lineColumns, timeFormat } from './views.js';

export type LinesListOptions = ListFlags;

export function parse(_args: string[], flags: Flags): LinesListOptions {
  return parseListFlags(flags);
}

export async function run(opts: LinesListOptions, ctx: Context): Promise<void> {
  const lines = await fetchList<Line>(ctx, 'lines.list', opts);
  await printList(ctx, lines, lineColumns(timeFormat(ctx)));
}
