// `svc chats get ID`
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';

import { call } from '../../kit/resources.js';
import { timeFormat } from '../../kit/views.js';
import { type Chat, chatFields } from '../../kit/chats/views.js';
import { objectResult, type CommandResult } from '../../kit/result.js';

export interface ChatsGetOptions {
  id: string;
}

export const command = defineCommand({
  mcp: 'read',
  tool: { title: 'Get a chat', does: 'One support chat by its id.', returns: { id: 'chat_' } },
  summary: 'show one chat',
  args: [{ name: 'id', help: 'chat id (chat_…)', required: true, kind: { type: 'id', prefix: 'chat_' } }],
  examples: ['svc chats get chat_123'],
  scopes: ['sessions:read'],
});

export function parse(args: ArgsOf<typeof command>, _flags: FlagsOf<typeof command>): ChatsGetOptions {
  return { id: args[0] };
}

export async function run(opts: ChatsGetOptions, ctx: Context): Promise<CommandResult> {
  const chat = await call<Chat>(ctx, 'chats.get', { params: { id: opts.id } });
  return objectResult(chat, chatFields(chat, timeFormat(ctx)));
}

export default commandModule({ command, parse, run });
