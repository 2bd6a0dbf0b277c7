// Support chats, their messages, voice messages and the chat's live stream.
import type { Hono } from 'hono';
import { z } from 'zod';
import { ID_PREFIX } from '../../contract/constants.js';
import type { Credential } from '../auth.js';
import { charge, costOf, ensureFunds } from '../billing.js';
import { HttpError, conflict, invalidOne } from '../errors.js';
import { gapFrame, positionFrame, publish, START_POSITION } from '../events.js';
import { owned, store, visibleTo } from '../http.js';
import type { EmulatorEnv } from '../http.js';
import { route } from './wire.js';
import { openStream } from '../sse.js';
import type { ChatObject, MessageObject, ObjectBase, State, Stored } from '../state.js';
import { characterCount, standInTranslation, voicePlaceholderTranscript } from '../translate.js';
import { VOICE_BODY_LIMIT, contractBody, listQuery, noBody, noQuery, page, parseQuery, readBody } from '../validate.js';

export function chatRoutes(app: Hono<EmulatorEnv>, state: State): void {
  const openChat = (id: string, credential: Credential) => {
    const chat = owned(state.chats, id, credential).obj;
    if (chat.status === 'closed') throw conflict('the chat is closed');
    return chat;
  };

  const addMessage = (credential: Credential, chat: ChatObject, fields: Omit<MessageObject, keyof ObjectBase | 'chat_id'>, cost: number) => {
    ensureFunds(state, credential, cost);
    const message = store(state, state.messages, credential, ID_PREFIX.message, 'message', { chat_id: chat.id, ...fields });
    publish(state, credential.org_id, credential.mode, 'chat.message.created', message);
    charge(state, credential, cost);
    return message;
  };

  route(app, 'chats.list', (c, credential) => {
    const query = parseQuery(c, listQuery.extend({ status: z.enum(['open', 'closed']).optional() }));
    const visible = visibleTo(credential);
    return c.json(page(state.chats.values(), query, (s) => visible(s) && (!query.status || s.obj.status === query.status)));
  });

  route(app, 'chats.get', (c, credential) => {
    noQuery(c);
    return c.json(owned(state.chats, c.req.param('id'), credential).obj);
  });

  route(app, 'chats.create', async (c, credential) => {
    noQuery(c);
    const body = await contractBody(c, 'chats.create');
    const chat = store(state, state.chats, credential, ID_PREFIX.chat, 'chat', {
      status: 'open',
      language: body.language,
      subject: body.subject ?? null,
    });
    publish(state, credential.org_id, credential.mode, 'chat.started', chat);
    return c.json(chat, 201);
  });

  route(app, 'chats.close', async (c, credential) => {
    noQuery(c);
    await noBody(c);
    return c.json(closeChat(state, owned(state.chats, c.req.param('id'), credential)));
  });

  route(app, 'chats.messages.list', (c, credential) => {
    const chat = owned(state.chats, c.req.param('id'), credential).obj;
    const visible = visibleTo(credential);
    return c.json(page(state.messages.values(), parseQuery(c, listQuery), (s) => visible(s) && s.obj.chat_id === chat.id));
  });

  route(app, 'chats.messages.create', async (c, credential) => {
    noQuery(c);
    const body = await contractBody(c, 'chats.messages.create');
    const chat = openChat(c.req.param('id'), credential);
    const language = body.language ?? chat.language;
    const translation = language === chat.language ? null : { language: chat.language, text: standInTranslation(body.text, chat.language) };
    const cost = costOf('translation_character', characterCount(body.text));
    return c.json(addMessage(credential, chat, { kind: 'text', text: body.text, language, translation, transcript: null }, cost), 201);
  });

  route(app, 'chats.voice', async (c, credential) => {
    noQuery(c);
    const chat = openChat(c.req.param('id'), credential);
    const type = c.req.header('content-type') ?? '';
    if (!/^audio\/[\w.+-]+/i.test(type)) throw new HttpError(415, 'a voice message must be sent as audio/* (e.g. audio/ogg)');
    const audio = await readBody(c, VOICE_BODY_LIMIT);
    if (audio.length === 0) throw invalidOne(['body'], 'the voice message is empty', 'missing');
    const transcript = voicePlaceholderTranscript(audio.length);
    const fields = { kind: 'voice' as const, text: transcript, language: chat.language, translation: null, transcript };
    return c.json(addMessage(credential, chat, fields, costOf('translation_character', transcript.length)), 201);
  });

  route(app, 'chats.stream', (c, credential) => {
    noQuery(c);
    const chat = owned(state.chats, c.req.param('id'), credential).obj;
    const backlog = chatBacklog(state, chat, c.req.header('last-event-id')?.trim());
    const { response, subscriber } = openStream(c, state, {
      org_id: credential.org_id,
      mode: credential.mode,
      authorized: credential.authorized,
      expiresAt: credential.expires_at,
      frame: (event) => {
        if (event.type !== 'chat.closed' && event.type !== 'chat.message.created') return null;
        const data = event.data as { id?: string; chat_id?: string };
        if (event.type === 'chat.closed' && data.id === chat.id) queueMicrotask(() => subscriber.end());
        if (event.type !== 'chat.message.created' || data.chat_id !== chat.id) return null;
        return messageFrame(data as MessageObject);
      },
      backlog,
    });
    // A closed chat gets no new messages: answer an empty stream that ends, rather than one that waits forever.
    if (chat.status === 'closed') queueMicrotask(() => subscriber.end());
    return response;
  });
}

function messageFrame(message: MessageObject): string {
  return `id: ${message.id}\nevent: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/**
 * What a chat stream sends before its live messages. A resume by id (Last-Event-ID = the last
 * message seen): the chat's later messages, or, for an id this chat does not have, a gap frame
 * and then all of its messages (docs/contract.md "Events").
 */
function chatBacklog(state: State, chat: ChatObject, lastEventId: string | undefined): string[] {
  const backlog: string[] = [];
  const messages = [...state.messages.values()]
    .filter((stored) => stored.obj.chat_id === chat.id)
    .sort((a, b) => a.seq - b.seq)
    .map((stored) => stored.obj);
  if (!lastEventId) {
    // No position yet: the newest message's id, or `start`, before any message (Position frame).
    backlog.push(positionFrame(messages.at(-1)?.id));
  } else if (lastEventId === START_POSITION) {
    // Messages are never dropped: from `start` is every one of them, with no gap.
    for (const message of messages) backlog.push(messageFrame(message));
  } else {
    const at = messages.findIndex((message) => message.id === lastEventId);
    if (at < 0) backlog.push(gapFrame(lastEventId, messages[0]?.id ?? null));
    for (const message of messages.slice(at + 1)) backlog.push(messageFrame(message));
  }
  return backlog;
}

/** Closes a chat (the API's close, and the dashboard's Close chat). */
export function closeChat(state: State, stored: Stored<ChatObject>): ChatObject {
  const chat = stored.obj;
  if (chat.status === 'closed') throw conflict('the chat is closed');
  chat.status = 'closed';
  publish(state, stored.org_id, chat.livemode ? 'live' : 'test', 'chat.closed', chat);
  return chat;
}
