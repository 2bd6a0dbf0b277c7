// Server-Sent Events reading (WHATWG HTML "Server-sent events" §9.2), shared by
// `events tail` and `chats stream`. The line protocol itself is eventsource-parser's;
// this file turns a byte stream into an async sequence of messages.
import { createParser } from 'eventsource-parser';
import type { ApiClient, ApiRequest } from './client.js';
import { CliError } from '../errors.js';
import { MAX_SSE_EVENT_BYTES, ResponseTooLargeError } from './limits.js';

export interface SseMessage {
  id?: string;
  event?: string;
  data: string;
  /**
   * A frame with an id and no data (the position frame, docs/contract.md "Events"): it dispatches
   * no event but sets the last event id, so a client that drops before its first event resumes
   * from it. `id` holds the position; `data` is empty.
   */
  position?: true;
}

export interface ReadSseOptions {
  /** The most one line, or one event's lines together, may hold (default MAX_SSE_EVENT_BYTES). */
  maxEventBytes?: number;
  /** Called for each comment line (`: keepalive`), without the leading colon. */
  onComment?: (text: string) => void;
  /** Called for every chunk of bytes, before it is parsed: a heartbeat watchdog resets on it. */
  onBytes?: (byteLength: number) => void;
  /** Called when the server sends `retry: <ms>`. */
  onRetry?: (ms: number) => void;
}

/**
 * Yields each complete message of an SSE body, in order, in one pass of eventsource-parser.
 * Bytes may arrive split anywhere (inside a line, a CRLF pair, a byte order mark or a
 * multi-byte UTF-8 character). A message the body ends in the middle of is dropped, as the
 * standard says ("If the file ends in the middle of an event, ... the pending data is
 * discarded"). A frame with an id and no data comes out as a position (the parser's onId,
 * which it calls before onEvent when the frame also dispatches).
 */
export async function* readSse(body: AsyncIterable<Uint8Array>, opts: ReadSseOptions = {}): AsyncGenerator<SseMessage> {
  const max = opts.maxEventBytes ?? MAX_SSE_EVENT_BYTES;
  // The parser calls back synchronously during feed(); collect, then yield the batch.
  let pending: SseMessage[] = [];
  // The position pushed by onId for the frame being dispatched: replaced if the frame has data.
  let idOnly: SseMessage | undefined;
  const parser = createParser({
    onId(id) {
      idOnly = { id, data: '', position: true };
      pending.push(idOnly);
    },
    onEvent(message) {
      const out: SseMessage = { data: message.data };
      if (message.id !== undefined) out.id = message.id;
      if (message.event !== undefined) out.event = message.event;
      if (idOnly !== undefined && message.id !== undefined && pending.at(-1) === idOnly) pending[pending.length - 1] = out;
      else pending.push(out);
      idOnly = undefined;
    },
    onComment: opts.onComment,
    onRetry: opts.onRetry,
    // Unknown fields and a bad `retry:` are ignored, as the standard says; only the bound stops the stream.
    onError(error) {
      if (error.type === 'max-buffer-size-exceeded') throw new ResponseTooLargeError('a line or event of the event stream', max);
    },
    // Counted in UTF-16 units (never more than the UTF-8 bytes): an endless line or event stops here, not in memory.
    maxBufferSize: max,
  });
  // stream:true keeps a multi-byte character split across chunks intact; the byte order mark is the parser's to drop.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  for await (const chunk of body) {
    opts.onBytes?.(chunk.byteLength);
    parser.feed(decoder.decode(chunk, { stream: true }));
    idOnly = undefined;
    if (pending.length > 0) {
      const batch = pending;
      pending = [];
      yield* batch;
    }
  }
  parser.feed(decoder.decode());
  // Whatever did not end with a blank line is an incomplete event: discarded on purpose.
  yield* pending;
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
