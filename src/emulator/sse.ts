// Server-Sent Events out of the emulator. Frames queue per stream and leave in one
// batched write per turn of the event loop, so a burst of 50,000 events is a few large
// writes, and only when the socket drained (backpressure). Under the Node adapter the
// frames are written straight to the response (no Web stream and no TextEncoder per
// chunk); under app.request() they go through a ReadableStream. Nothing queued is dropped
// while the client reads; a client that stops reading is disconnected once its unsent
// backlog passes a bound (docs/contract.md "Events"), and resumes with Last-Event-ID.
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Mode } from '../contract/constants.js';
import type { EmulatorContext } from './http.js';
import type { EmulatorEvent, State, Subscriber } from './state.js';

export interface StreamSpec {
  org_id: string;
  mode: Mode;
  authorized(): boolean;
  /** The credential's expiry (emulator clock, ms): the stream ends when it passes, not only at the next keepalive. */
  expiresAt?: number | undefined;
  /** The frame to send for a published event (its own, EmulatorEvent.frame, shared by every stream), or null to skip it. */
  frame(event: EmulatorEvent): string | null;
  /** Frames to send first (a resume's retained events); taken in the same tick as subscribing, so no gap. */
  backlog: string[];
}

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-store',
  'X-Accel-Buffering': 'no',
} as const;

const KEEPALIVE = ': keepalive\n\n';
const MAX_CHUNK_CHARS = 1 << 20;
/** A stream past its backlog bound that has not been able to write for this long is stalled. */
const STALLED_AFTER_MS = 1000;
/** Past this many times the bound a stream is cut however recently it wrote (a reader far too slow). */
const STALLED_HARD_FACTOR = 4;
/** Longest single expiry wait; a longer one re-arms (setTimeout overflows past 2^31 ms, and an injected clock may jump). */
const MAX_EXPIRY_WAIT_MS = 60_000;

/** Where a stream's chunks go: the Node response itself, or a ReadableStream (app.request()). */
interface Sink {
  response: Response;
  /** Whether the client takes more now (no write waiting for its socket to drain). */
  ready(): boolean;
  /** Called when frames were queued: the sink writes them soon (the same tick's later frames with them). */
  wake(): void;
  /** The stream ended: close the response (a client resumes with Last-Event-ID). */
  close(): void;
  /** Cut the connection at once (a stalled client never drains, so closing would wait forever). */
  disconnect(): void;
}

/** The frame queue behind a sink: what is queued, and one chunk of it at a time. */
interface StreamSource {
  readonly ended: boolean;
  readonly empty: boolean;
  /** Joins queued frames into one write of at most ~1 MiB of text. */
  takeChunk(): string;
  /** The client took a chunk (or drained): it is reading, as of now. */
  pulled(): void;
  /** The client went away. */
  cancel(): void;
}

/**
 * Opens an event stream for this request: its response (to return from the handler) and the
 * subscriber publish() feeds (end() it to close the stream).
 */
export function openStream(c: EmulatorContext, state: State, spec: StreamSpec): { response: Response; subscriber: Subscriber } {
  let queue: string[] = spec.backlog;
  let queuedChars = queue.reduce((sum, frame) => sum + frame.length, 0);
  let ended = false;
  let lastPullAt = performance.now();

  const source: StreamSource = {
    get ended() {
      return ended;
    },
    get empty() {
      return queue.length === 0;
    },
    takeChunk() {
      let size = 0;
      let count = 0;
      while (count < queue.length && size < MAX_CHUNK_CHARS) size += queue[count++]!.length;
      const chunk = count === queue.length ? queue.join('') : queue.slice(0, count).join('');
      queue = count === queue.length ? [] : queue.slice(count);
      queuedChars -= size;
      return chunk;
    },
    pulled() {
      lastPullAt = performance.now();
    },
    cancel: () => subscriber.end(),
  };

  const outgoing = c.env?.outgoing;
  const sink = outgoing ? nodeSink(c, outgoing, source) : webSink(c, source);

  // A client that stopped reading never drains: past the bound, with no write for a while (or far past
  // it, however slowly it reads), it is cut off so memory stays flat; it resumes with Last-Event-ID.
  const cutIfStalled = (): boolean => {
    const bound = state.limits.streamBacklogChars;
    // A sink ready for more means the client keeps up: not stalled.
    if (queuedChars <= bound || sink.ready()) return false;
    if (queuedChars <= STALLED_HARD_FACTOR * bound && performance.now() - lastPullAt < STALLED_AFTER_MS) return false;
    subscriber.end();
    sink.disconnect();
    return true;
  };

  const keepalive = setInterval(() => {
    if (!spec.authorized()) return subscriber.end();
    if (cutIfStalled()) return;
    queue.push(KEEPALIVE);
    queuedChars += KEEPALIVE.length;
    sink.wake();
  }, state.keepaliveMs);
  keepalive.unref();

  // The stream ends when the credential's expiry passes on the emulator clock. The clock is an offset over
  // real time, so the wait is the time left; an advance (control plane) re-arms it at once.
  let expiryTimer: ReturnType<typeof setTimeout> | undefined;
  const armExpiry = () => {
    clearTimeout(expiryTimer);
    if (ended || spec.expiresAt === undefined) return;
    const left = spec.expiresAt - state.clock.now();
    if (left <= 0 || !spec.authorized()) return subscriber.end();
    expiryTimer = setTimeout(armExpiry, Math.min(left, MAX_EXPIRY_WAIT_MS));
    expiryTimer.unref();
  };
  const stopWatchingClock = spec.expiresAt === undefined ? () => {} : state.clock.onAdvance(armExpiry);

  const subscriber: Subscriber = {
    org_id: spec.org_id,
    mode: spec.mode,
    authorized: spec.authorized,
    onEvent(event) {
      if (ended) return;
      const frame = spec.frame(event);
      if (frame === null) return;
      queue.push(frame);
      queuedChars += frame.length;
      if (cutIfStalled()) return;
      sink.wake();
    },
    end() {
      if (ended) return;
      ended = true;
      state.subscribers.delete(subscriber);
      clearInterval(keepalive);
      clearTimeout(expiryTimer);
      stopWatchingClock();
      // An ended stream (revoked credential, drop, shutdown) closes at once; a client resumes with Last-Event-ID.
      queue = [];
      queuedChars = 0;
      sink.close();
    },
  };
  state.subscribers.add(subscriber);
  armExpiry();
  c.req.raw.signal.addEventListener('abort', () => subscriber.end(), { once: true });
  outgoing?.once('close', source.cancel);
  if (queue.length > 0) sink.wake();
  return { response: sink.response, subscriber };
}

/**
 * Writes to the Node response directly: the status and headers (the SSE ones and those the
 * middleware set, such as the rate limit's) at once, then each chunk as a string (Node encodes it
 * into the socket's write), one chunk after another while the socket takes them, the next after
 * 'drain'. Frames queued in one tick (a publish slice) leave together in the microtask after it.
 */
function nodeSink(c: EmulatorContext, outgoing: import('node:http').ServerResponse, source: StreamSource): Sink {
  const headers: Record<string, string> = {};
  for (const [name, value] of c.body(null, 200, SSE_HEADERS).headers) headers[name] = value;
  outgoing.writeHead(200, headers);
  outgoing.flushHeaders();
  let draining = false;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    while (!draining && !source.ended && !source.empty && !outgoing.destroyed) {
      source.pulled();
      if (!outgoing.write(source.takeChunk())) {
        draining = true;
        outgoing.once('drain', onDrain);
      }
    }
  };
  const onDrain = () => {
    draining = false;
    source.pulled();
    flush();
  };
  return {
    // The handler answers nothing more: @hono/node-server leaves a response so marked to what wrote it.
    response: RESPONSE_ALREADY_SENT,
    ready: () => !draining,
    wake() {
      if (scheduled || draining) return;
      scheduled = true;
      queueMicrotask(flush);
    },
    close() {
      if (!outgoing.writableEnded) outgoing.end();
    },
    disconnect: () => outgoing.destroy(),
  };
}

/** app.request() (no Node response): a ReadableStream pulled by whoever reads the Response. */
function webSink(c: EmulatorContext, source: StreamSource): Sink {
  const encoder = new TextEncoder();
  let waiting: (() => void) | null = null;
  const wake = () => {
    const resolve = waiting;
    waiting = null;
    resolve?.();
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        source.pulled();
        while (source.empty && !source.ended) await new Promise<void>((resolve) => (waiting = resolve));
        if (source.ended) return controller.close();
        controller.enqueue(encoder.encode(source.takeChunk()));
      },
      cancel: () => source.cancel(),
    },
    { highWaterMark: 0 },
  );
  return {
    response: c.body(stream, 200, SSE_HEADERS),
    // A pull waiting for frames means the client is ready for more.
    ready: () => waiting !== null,
    wake,
    close: wake,
    disconnect: () => {},
  };
}
