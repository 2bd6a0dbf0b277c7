// `svc chats start --language L [--subject S]`
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

import { call } from '../../kit/resources.js';
import { timeFormat } from '../../kit/views.js';
import { type Chat, chatFields } from '../../kit/chats/views.js';
import { objectResult, type CommandResult } from '../../kit/result.js';

export interface ChatsStartOptions {
  language: string;
  subject?: string;
}

export const command = defineCommand({
  mcp: 'write',
  tool: { title: 'Start a chat', does: 'Starts a support chat in a language.', endedBy: 'chats_close', returns: { id: 'chat_' } },
  summary: 'start a support chat',
  flags: {
    language: { value: '<lang>', required: true, kind: { type: 'language' }, help: "the chat's language (BCP 47)" },
    subject: { value: '<subject>', help: 'a subject' },
  },
  examples: ['svc chats start --language en --subject "Billing"'],
  scopes: ['sessions:write'],
});

export function parse(_args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): ChatsStartOptions {
  const opts: ChatsStartOptions = { language: flags.language };
  const subject = flags.subject;
  if (subject !== undefined) {
    if (subject.trim() === '') throw new UsageError('--subject is empty: give a subject, e.g. --subject "Order 42"');
    opts.subject = subject;
  }
  return opts;
}

export async function run(opts: ChatsStartOptions, ctx: Context): Promise<CommandResult> {
  const body: Record<string, unknown> = { language: opts.language };
  if (opts.subject !== undefined) body.subject = opts.subject;
  const chat = await call<Chat>(ctx, 'chats.create', { body });
  return objectResult(chat, chatFields(chat, timeFormat(ctx)));
}

export default commandModule({ command, parse, run });
