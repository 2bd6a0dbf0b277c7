// Server-Sent Events out of the emulator. Frames queue per stream and leave in one
// batched write per pull, so a burst of 50,000 events is a few large writes; the
// ReadableStream is only pulled when the socket drained (backpressure). Nothing queued is
// dropped while the client reads; a client that stops reading is disconnected once its
// unsent backlog passes a bound (api-contract.md "Events"), and resumes with Last-Event-ID.
import type { Mode } from '../shared/constants.js';
import type { EmulatorContext } from './http.js';
import type { EmulatorEvent, State, Subscriber } from './state.js';

export interface StreamSpec {
  org_id: string;
  mode: Mode;
  authorized(): boolean;
  /** The credential's expiry (emulator clock, ms): the stream ends when it passes, not only at the next keepalive. */
  expiresAt?: number | undefined;
  /** The frame to send for a published event, or null to skip it. */
  frame(event: EmulatorEvent): string | null;
  /** Frames to send first (a resume's retained events); taken in the same tick as subscribing, so no gap. */
  backlog: string[];
  /** Cuts the client's connection at once (a stalled client never pulls, so closing the stream would wait forever). */
  disconnect?: (() => void) | undefined;
}

/** The connection under a request, for cutting a stalled stream client (Node adapter only). */
export function disconnectOf(c: EmulatorContext): (() => void) | undefined {
  const outgoing = c.env?.outgoing;
  return outgoing ? () => outgoing.destroy() : undefined;
}

export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-store',
  'X-Accel-Buffering': 'no',
} as const;

const MAX_CHUNK_CHARS = 1 << 20;
/** A stream past its backlog bound that has not been pulled for this long is stalled. */
const STALLED_AFTER_MS = 1000;
/** Past this many times the bound a stream is cut however recently it read (a reader far too slow). */
const STALLED_HARD_FACTOR = 4;
/** Longest single expiry wait; a longer one re-arms (setTimeout overflows past 2^31 ms, and an injected clock may jump). */
const MAX_EXPIRY_WAIT_MS = 60_000;

export function openStream(state: State, spec: StreamSpec, abort?: AbortSignal): { stream: ReadableStream<Uint8Array>; subscriber: Subscriber } {
  const encoder = new TextEncoder();
  let queue: string[] = spec.backlog;
  let queuedChars = queue.reduce((sum, frame) => sum + frame.length, 0);
  let wake: (() => void) | null = null;
  let ended = false;
  const wakeUp = () => {
    const resolve = wake;
    wake = null;
    resolve?.();
  };
  const keepalive = setInterval(() => {
    if (!spec.authorized()) return subscriber.end();
    if (cutIfStalled()) return;
    queue.push(': keepalive\n\n');
    wakeUp();
  }, state.keepaliveMs);

  // A client that stopped reading never pulls: past the bound, with no pull for a while (or far past
  // it, however slowly it reads), it is cut off so memory stays flat; it resumes with Last-Event-ID.
  let lastPullAt = performance.now();
  const cutIfStalled = (): boolean => {
    const bound = state.limits.streamBacklogChars;
    // A pull waiting for frames means the client is ready for more: not stalled.
    if (queuedChars <= bound || wake !== null) return false;
    if (queuedChars <= STALLED_HARD_FACTOR * bound && performance.now() - lastPullAt < STALLED_AFTER_MS) return false;
    subscriber.end();
    spec.disconnect?.();
    return true;
  };
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
      if (wake) wakeUp();
    },
    end() {
      if (ended) return;
      ended = true;
      state.subscribers.delete(subscriber);
      clearInterval(keepalive);
      clearTimeout(expiryTimer);
      stopWatchingClock();
      queue = [];
      queuedChars = 0;
      wakeUp();
    },
  };
  state.subscribers.add(subscriber);
  armExpiry();
  abort?.addEventListener('abort', () => subscriber.end(), { once: true });

  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        lastPullAt = performance.now();
        while (queue.length === 0 && !ended) await new Promise<void>((resolve) => (wake = resolve));
        if (ended) {
          // An ended stream (revoked credential, drop, shutdown) closes at once; a client resumes with Last-Event-ID.
          queue = [];
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(takeChunk()));
      },
      cancel() {
        subscriber.end();
      },
    },
    { highWaterMark: 0 },
  );

  /** Joins queued frames into one write of at most ~1 MiB of text. */
  function takeChunk(): string {
    let size = 0;
    let count = 0;
    while (count < queue.length && size < MAX_CHUNK_CHARS) size += queue[count++]!.length;
    const chunk = count === queue.length ? queue.join('') : queue.slice(0, count).join('');
    queue = count === queue.length ? [] : queue.slice(count);
    queuedChars -= size;
    return chunk;
  }

  return { stream, subscriber };
}
