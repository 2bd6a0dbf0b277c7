// `svc chats messages ID [--limit N] [--all]`
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';

import { type ListFlags, parseListFlags } from '../../kit/list-flags.js';
import { fetchList } from '../../kit/resources.js';
import { timeFormat } from '../../kit/views.js';
import { type Message, messageColumns } from '../../kit/chats/views.js';
import { listResult, type CommandResult } from '../../kit/result.js';

export interface ChatsMessagesOptions extends ListFlags {
  id: string;
}

export const command = defineCommand({
  mcp: 'read',
  tool: { title: "List a chat's messages", does: 'The messages of one chat, newest first.', returns: { list: true, id: 'msg_' } },
  summary: "list a chat's messages",
  args: [{ name: 'id', help: 'chat id', required: true, kind: { type: 'id', prefix: 'chat_' } }],
  flags: {
    limit: { value: '<n>', kind: { type: 'integer', min: 1, max: 100 }, help: 'at most N messages' },
    all: { help: 'every message' },
    cursor: { value: '<cursor>', help: 'the next page: the cursor a page with more ended with', conflicts: 'all' },
  },
  examples: ['svc chats messages chat_123 --all'],
  scopes: ['sessions:read'],
});

export function parse(args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): ChatsMessagesOptions {
  return { id: args[0], ...parseListFlags(flags) };
}

export async function run(opts: ChatsMessagesOptions, ctx: Context): Promise<CommandResult> {
  const messages = await fetchList<Message>(ctx, 'chats.messages.list', opts, { params: { id: opts.id } });
  // A conversation reads top to bottom on a terminal: oldest first. Scripts keep the API's order (newest first).
  const shown = ctx.io.stdout.isTTY && !ctx.globals.json ? [...messages.items].reverse() : messages.items;
  return listResult({ ...messages, items: shown }, messageColumns(timeFormat(ctx)));
}

export default commandModule({ command, parse, run });
