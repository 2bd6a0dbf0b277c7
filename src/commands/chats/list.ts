// `svc chats list [--status open|closed] [--limit N] [--all]`
import type { Context } from '../../context.js';
import { parseChoice } from '../../validate/index.js';
import { type Flags, type ListFlags, parseListFlags, stringFlag, validated } from '../calls/shared.js';
import { fetchList } from '../shared/resources.js';
import { printList } from '../../io/output.js';
import { timeFormat } from '../calls/views.js';
import { type Chat, chatColumns } from './views.js';

export interface ChatsListOptions extends ListFlags {
  status?: 'open' | 'closed';
}

export function parse(_args: string[], flags: Flags): ChatsListOptions {
  const status = stringFlag(flags, 'status');
  const opts: ChatsListOptions = parseListFlags(flags);
  if (status !== undefined) opts.status = validated(() => parseChoice(status, ['open', 'closed'], '--status'));
  return opts;
}

export async function run(opts: ChatsListOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = {};
  if (opts.status) query.status = opts.status;
  const chats = await fetchList<Chat>(ctx, 'chats.list', opts, { query });
  await printList(ctx, chats, chatColumns(timeFormat(ctx)));
}
