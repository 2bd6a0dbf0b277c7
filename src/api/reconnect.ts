// Following an SSE stream for as long as the user wants it: reconnect after a drop or a
// silent connection, resume with Last-Event-ID (WHATWG HTML §9.2.4), and give up only
// after `timeoutMs` without a connection, so that a supervisor can restart us.
import type { Clock } from '../shared/runtime.js';
import { readSse, type SseMessage } from './sse.js';
import { HEARTBEAT_TIMEOUT_MS, reconnectDelayMs } from './resume.js';

export interface OpenedStream {
  body: AsyncIterable<Uint8Array>;
}

/** Opens one connection; `lastEventId` goes in the Last-Event-ID header when set. */
export type OpenStream = (lastEventId: string | undefined, signal: AbortSignal) => Promise<OpenedStream>;

/** What the handler of a message asks for next. */
export type MessageVerdict = 'continue' | 'stop';

export interface FollowOptions {
  open: OpenStream;
  /** Handles one message; may return a promise (the stream waits: backpressure). */
  onMessage: (message: SseMessage) => MessageVerdict | Promise<MessageVerdict>;
  /**
   * A frame with an id and no data moved the position (api-contract.md "Events", Position
   * frame): nothing to hand on, but the next connection resumes from it; a checkpoint keeps it.
   */
  onPosition?: (id: string) => void;
  /**
   * The server gave an id that cannot be sent back in a Last-Event-ID header (a control
   * character, or a character beyond Latin-1): it is not resumed from (the last usable id
   * stays), and this says so; the stream goes on.
   */
  onUnusableId?: (id: string, resumesAfter: string | undefined) => void;
  /** True when a failed connection attempt is worth retrying (network, 5xx, 429, stream ended). */
  isRetryable: (error: unknown) => boolean;
  clock: Clock;
  /** A number in [0, 1), for the jitter of the backoff. */
  random01: () => number;
  signal: AbortSignal;
  /** Give up after this long without a connection. */
  timeoutMs: number;
  /** Reconnect when no byte (event or keepalive comment) arrives for this long. */
  heartbeatMs?: number;
  /** Sent as Last-Event-ID on the first connection (`--since`). */
  lastEventId?: string;
  /** A connection is back after `awayMs` without one (`first`: the first one, after failed attempts). */
  onReconnected?: (info: { awayMs: number; attempts: number; lastEventId: string | undefined; first: boolean }) => void;
  /** A connection (or an attempt at one) failed; `failures` counts those since the last good connection, this one included. */
  onLost?: (reason: string, failures: number, everConnected: boolean) => void;
}

export type FollowResult =
  | { outcome: 'stopped'; lastEventId: string | undefined; reconnects: number }
  | { outcome: 'aborted'; lastEventId: string | undefined; reconnects: number }
  | { outcome: 'timed-out'; lastEventId: string | undefined; reconnects: number; awayMs: number };

/** Printable Latin-1, as a header value may hold: an id a server gave that can be sent back to resume. */
const RESUMABLE_ID = /^[\x20-\x7e\xa0-\xff]+$/;

export function isResumableId(id: string): boolean {
  return RESUMABLE_ID.test(id);
}

/** Carries an error of the message handler through the stream loop untouched (it is never retried). */
class HandlerFailure {
  constructor(readonly error: unknown) {}
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

export async function follow(opts: FollowOptions): Promise<FollowResult> {
  const { clock, signal } = opts;
  const heartbeatMs = opts.heartbeatMs ?? HEARTBEAT_TIMEOUT_MS;
  let lastEventId = opts.lastEventId;
  let reconnects = 0;
  let everConnected = false;
  // Without a connection since (the start counts: a tail that never connects also times out).
  let lostAt = clock.now();
  let attempts = 0;

  while (!signal.aborted) {
    const attempt = new AbortController();
    const onAbort = () => attempt.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    let connected = false;
    let lastByteAt = clock.now();
    const attemptStartedAt = lastByteAt;
    // Set when the watchdog cuts the attempt; the abort itself is a plain AbortError, which
    // the HTTP client passes through without retrying.
    let silence: string | undefined;
    // True while the stream waits for a handler's promise.
    let handlerBusy = false;

    // The watchdog sleeps until the next deadline rather than being reset on every chunk:
    // at tens of thousands of events a second, a timer per chunk would cost more than the events.
    const watchdog = (async () => {
      while (!attempt.signal.aborted) {
        const deadline = connected ? lastByteAt + heartbeatMs : Math.min(attemptStartedAt + heartbeatMs, lostAt + opts.timeoutMs);
        const wait = deadline - clock.now();
        if (wait <= 0 && handlerBusy) {
          // We are not reading (the handler holds the stream: backpressure), so the
          // silence is ours, not the server's: look again a heartbeat after it lets go.
          lastByteAt = clock.now();
          continue;
        }
        if (wait <= 0) {
          silence = connected ? `no data for ${heartbeatMs / 1000} s` : 'connecting took too long';
          attempt.abort();
          return;
        }
        try {
          await clock.sleep(wait, attempt.signal);
        } catch {
          return;
        }
      }
    })();

    let stop = false;
    let lossReason = 'the server ended the stream';
    try {
      const stream = await opts.open(lastEventId, attempt.signal);
      connected = true;
      lastByteAt = clock.now();
      if (everConnected || attempts > 0) {
        if (everConnected) reconnects++;
        opts.onReconnected?.({ awayMs: clock.now() - lostAt, attempts, lastEventId, first: !everConnected });
      }
      everConnected = true;
      attempts = 0;
      const messages = readSse(stream.body, { onBytes: () => (lastByteAt = clock.now()) });
      for await (const message of messages) {
        // Stopped (Ctrl-C), perhaps while a handler held the stream: what was already
        // buffered is not handed on.
        if (signal.aborted) break;
        if (message.id) {
          if (isResumableId(message.id)) lastEventId = message.id;
          else opts.onUnusableId?.(message.id, lastEventId);
        }
        if (message.position) {
          if (message.id) opts.onPosition?.(message.id);
          continue;
        }
        let verdict: MessageVerdict;
        try {
          const result = opts.onMessage(message);
          if (typeof result === 'string') verdict = result;
          else {
            handlerBusy = true;
            try {
              verdict = await result;
            } finally {
              handlerBusy = false;
              lastByteAt = clock.now();
            }
          }
        } catch (error) {
          throw new HandlerFailure(error);
        }
        if (verdict === 'stop') {
          stop = true;
          break;
        }
      }
    } catch (error) {
      if (error instanceof HandlerFailure) throw error.error;
      if (signal.aborted) break;
      if (silence === undefined && !opts.isRetryable(error)) throw error;
      lossReason = silence ?? describe(error);
    } finally {
      signal.removeEventListener('abort', onAbort);
      // Ends the request (closing the socket) and the watchdog.
      attempt.abort();
      await watchdog;
    }
    if (stop) return { outcome: 'stopped', lastEventId, reconnects };
    if (signal.aborted) break;

    if (connected) lostAt = clock.now();
    opts.onLost?.(lossReason, attempts + 1, everConnected);
    const awayMs = clock.now() - lostAt;
    if (awayMs >= opts.timeoutMs) return { outcome: 'timed-out', lastEventId, reconnects, awayMs };
    attempts++;
    const delay = Math.min(reconnectDelayMs(attempts, opts.random01()), opts.timeoutMs - awayMs);
    try {
      await clock.sleep(delay, signal);
    } catch {
      break;
    }
  }
  return { outcome: 'aborted', lastEventId, reconnects };
}
