// `svc chats close ID`
import type { Context } from '../../context.js';
import { parseId } from '../../validate/index.js';
import { type Flags, requiredArg, validated } from '../calls/shared.js';
import { call } from '../shared/resources.js';
import { printObject } from '../../io/output.js';
import { timeFormat } from '../calls/views.js';
import { type Chat, chatFields } from './views.js';

export interface ChatsCloseOptions {
  id: string;
}

export function parse(args: string[], _flags: Flags): ChatsCloseOptions {
  const id = requiredArg(args, 0, 'chat ID', 'svc chats close chat_8f2a1c');
  return { id: validated(() => parseId(id, 'chat')) };
}

export async function run(opts: ChatsCloseOptions, ctx: Context): Promise<void> {
  const chat = await call<Chat>(ctx, 'chats.close', { params: { id: opts.id } });
  await printObject(ctx, chatFields(chat, timeFormat(ctx)), chat);
}
