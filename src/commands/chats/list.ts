// `svc chats list [--status open|closed] [--limit N] [--all]`
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';

import { type ListFlags, parseListFlags } from '../../kit/list-flags.js';
import { fetchList } from '../../kit/resources.js';
import { timeFormat } from '../../kit/views.js';
import { type Chat, chatColumns } from '../../kit/chats/views.js';
import { listResult, type CommandResult } from '../../kit/result.js';

export interface ChatsListOptions extends ListFlags {
  status?: 'open' | 'closed';
}

export const command = defineCommand({
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

export async function run(opts: ChatsListOptions, ctx: Context): Promise<CommandResult> {
  const query: Record<string, string> = {};
  if (opts.status) query.status = opts.status;
  const chats = await fetchList<Chat>(ctx, 'chats.list', opts, { query });
  return listResult(chats, chatColumns(timeFormat(ctx)));
}

export default commandModule({ command, parse, run });
