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
   * A frame with an id and no data (the position frame, api-contract.md "Events"): it dispatches
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
  // The parser drops a frame without data, id and all; the scanner sees the id-only frames
  // (and bounds lines and events), each placed after the number of data frames before it.
  const scanner = new FrameScanner(opts.maxEventBytes ?? MAX_SSE_EVENT_BYTES);
  let dispatched = 0;
  function* inOrder(batch: SseMessage[]): Generator<SseMessage> {
    for (const message of batch) {
      yield* scanner.positionsThrough(dispatched);
      dispatched++;
      yield message;
    }
    yield* scanner.positionsThrough(dispatched);
  }
  for await (const chunk of body) {
    opts.onBytes?.(chunk.byteLength);
    // Before the parser buffers it: an endless line must not grow memory (leaving the loop destroys the body).
    scanner.account(chunk);
    parser.feed(decoder.decode(chunk, { stream: true }));
    if (pending.length > 0 || scanner.hasPositions) {
      const batch = pending;
      pending = [];
      yield* inOrder(batch);
    }
  }
  parser.feed(decoder.decode());
  // Whatever did not end with a blank line is an incomplete event: discarded on purpose.
  yield* inOrder(pending);
}

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;
const BOM = [0xef, 0xbb, 0xbf];
/** Enough of a line's start to tell `data` and `id` fields: "data:". */
const HEAD_BYTES = 5;
const utf8 = new TextDecoder('utf-8');

function startsField(head: number[], name: string): boolean {
  for (let i = 0; i < name.length; i++) if (head[i] !== name.charCodeAt(i)) return false;
  return head.length === name.length || head[name.length] === COLON;
}

/**
 * Counts the bytes of the current line and of the current event (its non-comment lines
 * since the last blank line), as the parser will buffer them, and throws past the bound.
 * Also notes, per frame, whether it had a data line and the id it set: a frame with an id
 * and no data is a position (WHATWG HTML §9.2.6: it sets the last event id, dispatches
 * nothing), which the parser would drop. Works on bytes: CR and LF never occur inside a
 * UTF-8 multi-byte character.
 */
class FrameScanner {
  private lineBytes = 0;
  private eventBytes = 0;
  private lineIsComment = false;
  private afterCR = false;
  /** How much of a byte order mark the stream started with so far; -1 once past it. */
  private bomMatched = 0;
  /** The current line's first bytes, and all of it while it may be an `id` line. */
  private head: number[] = [];
  private idParts: Uint8Array[] = [];
  private frameHasData = false;
  /** The bytes of the frame's last `id` line, decoded only if the frame turns out to have no data. */
  private frameIdLine: Uint8Array[] | undefined;
  private dataFrames = 0;
  private readonly positions: Array<{ after: number; id: string }> = [];

  constructor(private readonly max: number) {}

  get hasPositions(): boolean {
    return this.positions.length > 0;
  }

  /** The positions that come after `dispatched` data frames (or fewer), in order. */
  *positionsThrough(dispatched: number): Generator<SseMessage> {
    while (this.positions.length > 0 && this.positions[0]!.after <= dispatched) {
      yield { id: this.positions.shift()!.id, data: '', position: true };
    }
  }

  account(chunk: Uint8Array): void {
    let start = 0;
    // The decoder drops a byte order mark at the start of the stream (perhaps split across chunks): so do we.
    while (this.bomMatched >= 0 && start < chunk.length) {
      if (chunk[start] !== BOM[this.bomMatched]) {
        if (this.bomMatched > 0) this.noteLine(Uint8Array.from(BOM.slice(0, this.bomMatched)), 0, this.bomMatched);
        this.lineBytes += this.bomMatched;
        this.bomMatched = -1;
        break;
      }
      start++;
      if (++this.bomMatched === BOM.length) this.bomMatched = -1;
    }
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
      this.noteLine(chunk, start, end === -1 ? chunk.length : end);
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

  /** Keeps what tells the field of a line (bytes `start`..`end` of the chunk are part of it). */
  private noteLine(chunk: Uint8Array, start: number, end: number): void {
    if (this.lineIsComment) return;
    for (let i = start; i < end && this.head.length < HEAD_BYTES; i++) this.head.push(chunk[i]!);
    // Only a line that may still be `id` is kept whole (ids are short; data lines are not copied).
    if (this.head[0] === 0x69 && (this.head.length < 2 || this.head[1] === 0x64)) this.idParts.push(chunk.slice(start, end));
  }

  private endLine(length: number): void {
    if (length === 0) this.endFrame();
    else if (!this.lineIsComment) {
      this.eventBytes += length;
      if (startsField(this.head, 'data')) this.frameHasData = true;
      else if (startsField(this.head, 'id')) {
        this.frameIdLine = this.idParts;
        this.idParts = [];
      }
    }
    this.check(length, this.eventBytes);
    this.lineBytes = 0;
    this.lineIsComment = false;
    this.head.length = 0;
    this.idParts.length = 0;
  }

  /** A blank line ends the frame: a data frame dispatches, an id-only frame is a position. */
  private endFrame(): void {
    this.eventBytes = 0;
    if (this.frameHasData) this.dataFrames++;
    else if (this.frameIdLine !== undefined) {
      const line = utf8.decode(Buffer.concat(this.frameIdLine));
      const id = line.slice(line.charCodeAt(3) === SPACE ? 4 : 3);
      // As the parser: an id holding NUL is ignored.
      if (!id.includes('\0')) this.positions.push({ after: this.dataFrames, id });
    }
    this.frameHasData = false;
    this.frameIdLine = undefined;
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
