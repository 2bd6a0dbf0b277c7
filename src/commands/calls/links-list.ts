// `svc calls links list [--limit N] [--all]`
import type { Context } from '../../context.js';
import { type Flags, type ListFlags, parseListFlags } from './shared.js';
import { fetchList } from '../shared/resources.js';
import { printList } from '../../io/output.js';
import { type Link, linkColumns, timeFormat } from './views.js';

export type LinksListOptions = ListFlags;

export function parse(_args: string[], flags: Flags): LinksListOptions {
  return parseListFlags(flags);
}

export async function run(opts: LinksListOptions, ctx: Context): Promise<void> {
  const links = await fetchList<Link>(ctx, 'links.list', opts);
  await printList(ctx, links, linkColumns(timeFormat(ctx)));
}
