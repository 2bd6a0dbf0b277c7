// Chats and their messages (docs/contract.md "Resources"), for lists and single objects.
import { type Column } from '../../io/output.js';
import { type TimeFormat, timeColumn } from '../views.js';

export interface Chat {
  id: string;
  object: 'chat';
  livemode: boolean;
  created_at: string;
  status: 'open' | 'closed' | string;
  language: string;
  subject?: string | null;
}

export interface Message {
  id: string;
  object: 'message';
  livemode: boolean;
  created_at: string;
  chat_id: string;
  kind: 'text' | 'voice' | string;
  text?: string | null;
  language?: string | null;
  translation?: { language: string; text: string } | null;
  transcript?: string | null;
}

export function chatColumns(time: TimeFormat): Column<Chat>[] {
  return [
    { header: 'ID', value: (c) => c.id },
    { header: 'STATUS', value: (c) => c.status },
    { header: 'LANGUAGE', value: (c) => c.language },
    { header: 'SUBJECT', value: (c) => c.subject, shrink: 10 },
    timeColumn('CREATED', time, (c) => c.created_at),
  ];
}

export function chatFields(chat: Chat, time: TimeFormat): Array<readonly [string, unknown]> {
  return [
    ['id', chat.id],
    ['status', chat.status],
    ['language', chat.language],
    ['subject', chat.subject],
    ['mode', chat.livemode ? 'live' : 'test'],
    ['created', time(chat.created_at)],
  ];
}

/** What a message says: its text, or a voice message's transcript. */
export function messageText(m: Message): string {
  return (m.kind === 'voice' ? (m.transcript ?? m.text) : m.text) ?? '';
}

/**
 * A translation as svc shows it: `[fr] bonjour`. Test mode's translation already reads
 * `[fr] hello` (docs/contract.md, POST /v1/translate): it is shown as it is, not `[fr] [fr] hello`.
 */
export function translationText(t: { language: string; text: string }): string {
  const tag = `[${t.language}] `;
  return t.text.startsWith(tag) ? t.text : tag + t.text;
}

export function messageColumns(time: TimeFormat): Column<Message>[] {
  return [
    { header: 'ID', value: (m) => m.id },
    // The text and its translation are what a reader wants; the kind goes first when room is short.
    { header: 'KIND', value: (m) => m.kind, drop: 1 },
    { header: 'LANGUAGE', value: (m) => m.language },
    { header: 'TEXT', value: (m) => messageText(m), shrink: 12 },
    { header: 'TRANSLATION', value: (m) => (m.translation ? translationText(m.translation) : ''), shrink: 12 },
    timeColumn('CREATED', time, (m) => m.created_at),
  ];
}

export function messageFields(m: Message, time: TimeFormat): Array<readonly [string, unknown]> {
  const fields: Array<readonly [string, unknown]> = [
    ['id', m.id],
    ['chat', m.chat_id],
    ['kind', m.kind],
    ['language', m.language],
    ['text', m.text],
  ];
  if (m.kind === 'voice') fields.push(['transcript', m.transcript]);
  if (m.translation) fields.push(['translation', translationText(m.translation)]);
  fields.push(['mode', m.livemode ? 'live' : 'test'], ['created', time(m.created_at)]);
  return fields;
}
