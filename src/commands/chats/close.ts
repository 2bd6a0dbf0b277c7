// `svc chats close ID`
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';

import { call } from '../../kit/resources.js';
import { timeFormat } from '../../kit/views.js';
import { type Chat, chatFields } from '../../kit/chats/views.js';
import { objectResult, type CommandResult } from '../../kit/result.js';

export interface ChatsCloseOptions {
  id: string;
}

export const command = defineCommand({
  mcp: 'write',
  tool: {
    title: 'Close a chat',
    does: 'Closes a chat for good: no more messages can be sent to it.',
    destructive: true,
    idempotent: true,
    returns: { id: 'chat_' },
  },
  summary: 'close a chat',
  args: [{ name: 'id', help: 'chat id', required: true, kind: { type: 'id', prefix: 'chat_' } }],
  examples: ['svc chats close chat_123'],
  scopes: ['sessions:write'],
});

export function parse(args: ArgsOf<typeof command>, _flags: FlagsOf<typeof command>): ChatsCloseOptions {
  return { id: args[0] };
}

export async function run(opts: ChatsCloseOptions, ctx: Context): Promise<CommandResult> {
  const chat = await call<Chat>(ctx, 'chats.close', { params: { id: opts.id } });
  return objectResult(chat, chatFields(chat, timeFormat(ctx)));
}

export default commandModule({ command, parse, run });
