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
 * Yields each complete message of an SSE body, in order. Bytes may arrive split anywhere
 * (inside a line, a CRLF pair or a multi-byte UTF-8 character). A message the body ends
 * in the middle of is dropped, as the standard says ("If the file ends in the middle of
 * an event, ... the pending data is discarded").
 */
export async function* readSse(body: AsyncIterable<Uint8Array>, opts: ReadSseOptions = {}): AsyncGenerator<SseMessage> {
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
  const bound = new EventBound(opts.maxEventBytes ?? MAX_SSE_EVENT_BYTES);
  for await (const chunk of body) {
    opts.onBytes?.(chunk.byteLength);
    // Before the parser buffers it: an endless line must not grow memory (leaving the loop destroys the body).
    bound.account(chunk);
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

const LF = 10;
const CR = 13;
const COLON = 58;

/**
 * Counts the bytes of the current line and of the current event (its non-comment lines
 * since the last blank line), as the parser will buffer them, and throws past the bound.
 * Works on bytes: CR and LF never occur inside a UTF-8 multi-byte character.
 */
class EventBound {
  private lineBytes = 0;
  private eventBytes = 0;
  private lineIsComment = false;
  private afterCR = false;

  constructor(private readonly max: number) {}

  account(chunk: Uint8Array): void {
    let start = 0;
    // Next LF and CR at or after `start`, each searched again only once passed: one scan per chunk.
    let lf = -2;
    let cr = -2;
    while (start < chunk.length) {
      if (this.afterCR) {
        this.afterCR = false;
        if (chunk[start] === LF) {
          start++; // the LF of a CRLF pair: not a second line end
          continue;
        }
      }
      if (this.lineBytes === 0) this.lineIsComment = chunk[start] === COLON;
      if (lf !== -1 && lf < start) lf = chunk.indexOf(LF, start);
      if (cr !== -1 && cr < start) cr = chunk.indexOf(CR, start);
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      if (end === -1) {
        this.lineBytes += chunk.length - start;
        break;
      }
      this.endLine(this.lineBytes + end - start);
      this.afterCR = chunk[end] === CR;
      start = end + 1;
    }
    this.check(this.lineBytes, this.lineIsComment ? 0 : this.eventBytes + this.lineBytes);
  }

  private endLine(length: number): void {
    if (length === 0)
      this.eventBytes = 0; // a blank line ends the event
    else if (!this.lineIsComment) this.eventBytes += length;
    this.check(length, this.eventBytes);
    this.lineBytes = 0;
    this.lineIsComment = false;
  }

  private check(lineBytes: number, eventBytes: number): void {
    if (lineBytes > this.max || eventBytes > this.max) throw new ResponseTooLargeError('a line or event of the event stream', this.max);
  }
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
