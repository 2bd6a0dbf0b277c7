// Server-Sent Events reading (WHATWG HTML "Server-sent events" §9.2), shared by
// `events tail` and `chats stream`. The line protocol itself is eventsource-parser's;
// this file turns a byte stream into an async sequence of messages.
import { createParser } from 'eventsource-parser';
import type { ApiClient, ApiRequest } from './client.js';
import { CliError } from '../errors.js';

export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
}

export interface ReadSseOptions {
  /** Called for each comment line (`: keepalive`), without the leading colon. */
  onComment?: (text: string) => void;
  /** Called for every chunk of bytes, before it is parsed: a heartbeat watchdog resets on it. */
  onBytes?: (byteLength: number) => void;
  /** Called when the server sends `retry: <ms>`. */
  onRetry?: (ms: number) => void;
}

/**
 * Yields each complete message of an SSE body, in order. Bytes may arrive split anywhere
 * (inside a line, a CRLF pair or a multi-byte UTF-8 character). A message the body ends
 * in the middle of is dropped, as the standard says ("If the file ends in the middle of
 * an event, ... the pending data is discarded").
 */
export async function* readSse(
  body: AsyncIterable<Uint8Array>,
  opts: ReadSseOptions = {},
): AsyncGenerator<SseMessage> {
  // The parser calls back synchronously during feed(); collect, then yield the batch.
  let pending: SseMessage[] = [];
  const parser = createParser({
    onEvent(message) {
      const out: SseMessage = { data: message.data };
      if (message.id !== undefined) out.id = message.id;
      if (message.event !== undefined) out.event = message.event;
      pending.push(out);
    },
    onComment: opts.onComment,
    onRetry: opts.onRetry,
  });
  // stream:true keeps a multi-byte character split across chunks intact.
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of body) {
    opts.onBytes?.(chunk.byteLength);
    parser.feed(decoder.decode(chunk, { stream: true }));
    if (pending.length > 0) {
      const batch = pending;
      pending = [];
      for (const message of batch) yield message;
    }
  }
  parser.feed(decoder.decode());
  // Whatever did not end with a blank line is an incomplete event: discarded on purpose.
  for (const message of pending) yield message;
}

/**
 * Opens an authenticated event stream through the core's API client (same dispatcher,
 * bearer credential, OAuth refresh on 401, retries and error mapping), and hands back
 * its body for `readSse`. `lastEventId` resumes after that event (WHATWG HTML §9.2.4).
 * A non-2xx answer throws the client's ApiError before any byte is read.
 */
export async function openSse(
  api: Pick<ApiClient, 'stream'>,
  req: ApiRequest,
  lastEventId?: string,
): Promise<{ body: AsyncIterable<Uint8Array>; contentType: string }> {
  const headers: Record<string, string> = { accept: 'text/event-stream', 'cache-control': 'no-cache', ...(req.headers ?? {}) };
  if (lastEventId) headers['last-event-id'] = lastEventId;
  const response = await api.stream({ ...req, headers });
  const contentType = response.headers.get('content-type') ?? '';
  if (!contentType.includes('text/event-stream')) {
    await response.body?.cancel().catch(() => {});
    throw new CliError(`expected an event stream from ${response.url || 'the service'} but got ${contentType || 'no content type'}`);
  }
  const body = response.body;
  if (!body) return { body: emptyBody(), contentType };
  return { body: body as AsyncIterable<Uint8Array>, contentType };
}

async function* emptyBody(): AsyncGenerator<Uint8Array> {}
