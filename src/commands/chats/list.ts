// `svc chats list [--status open|closed] [--limit N] [--all]`
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';

import { type ListFlags, parseListFlags } from '../../kit/list-flags.js';
import { fetchList, noteMore } from '../../kit/resources.js';
import { printList } from '../../io/output.js';
import { timeFormat } from '../../kit/views.js';
import { type Chat, chatColumns } from '../../kit/chats/views.js';

export interface ChatsListOptions extends ListFlags {
  status?: 'open' | 'closed';
}

export const command = defineCommand({
  name: 'list',
  mcp: 'read',
  tool: { title: 'List chats', does: 'Lists support chats, newest first.', returns: { list: true, id: 'chat_' } },
  summary: 'list chats, newest first',
  flags: {
    status: { value: '<status>', choices: ['open', 'closed'], help: 'only open or closed chats' },
    limit: { value: '<n>', kind: { type: 'integer', min: 1, max: 100 }, help: 'at most N chats (1–100, default 20)' },
    all: { help: 'every chat, following pages' },
    cursor: { value: '<cursor>', help: 'the next page: the cursor a page with more ended with', conflicts: 'all' },
  },
  examples: ['svc chats list --status open'],
  scopes: ['sessions:read'],
});

export function parse(_args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): ChatsListOptions {
  return { ...parseListFlags(flags), ...(flags.status !== undefined ? { status: flags.status } : {}) };
}

export async function run(opts: ChatsListOptions, ctx: Context): Promise<void> {
  const query: Record<string, string> = {};
  if (opts.status) query.status = opts.status;
  const chats = await fetchList<Chat>(ctx, 'chats.list', opts, { query });
  await printList(ctx, chats.items, chatColumns(timeFormat(ctx)));
  noteMore(ctx, chats);
}

export default commandModule({ command, parse, run });
