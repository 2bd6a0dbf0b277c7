// Following an SSE stream for as long as the user wants it: reconnect after a drop or a
// silent connection, resume with Last-Event-ID (WHATWG HTML §9.2.4), and give up only
// after `timeoutMs` without a byte from the service, so that a supervisor can restart us.
// This loop alone decides a stream's reconnects (the request's own retries are not for streams).
import type { Clock } from '../shared/runtime.js';
import { readSse, type SseMessage } from './sse.js';
import { HEARTBEAT_TIMEOUT_MS } from './resume.js';
import { backoffDelay } from './retry.js';

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
   * A frame with an id and no data moved the position (docs/contract.md "Events", Position
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
  /**
   * Give up after this long without a byte from the service (an event, a position or a
   * keep-alive comment): a connection that answered its headers and then sends nothing is
   * no connection.
   */
  timeoutMs: number;
  /** Reconnect when no byte (event or keepalive comment) arrives for this long. */
  heartbeatMs?: number;
  /** Sent as Last-Event-ID on the first connection (`--since`). */
  lastEventId?: string;
  /**
   * Bytes flow again after `awayMs` (`first`: the first ever, after failed attempts). Said
   * when the first byte of a connection arrives, not when its headers do.
   */
  onReconnected?: (info: { awayMs: number; attempts: number; lastEventId: string | undefined; first: boolean }) => void;
  /**
   * A connection (or an attempt at one) failed; `reason` says what failed (a sentence of its
   * own: nothing answered, no answer in time, nothing sent after the headers, no data, ended);
   * `failures` counts those since bytes last flowed, this one included.
   */
  onLost?: (reason: string, failures: number, everConnected: boolean) => void;
}

export type FollowResult =
  | { outcome: 'stopped'; lastEventId: string | undefined; reconnects: number }
  | { outcome: 'aborted'; lastEventId: string | undefined; reconnects: number }
  /** `reason`: what the last attempt met (nothing answered, no answer, nothing after the headers, …). */
  | { outcome: 'timed-out'; lastEventId: string | undefined; reconnects: number; awayMs: number; reason: string };

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

/** "45 s", "1.5 s": a silence's length as a reason says it. */
function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

export async function follow(opts: FollowOptions): Promise<FollowResult> {
  const { clock, signal } = opts;
  const heartbeatMs = opts.heartbeatMs ?? HEARTBEAT_TIMEOUT_MS;
  let lastEventId = opts.lastEventId;
  let reconnects = 0;
  // Bytes have flowed on some connection.
  let everConnected = false;
  // When a byte last came from the service (the start counts): --timeout runs from here.
  let heardAt = clock.now();
  // When the last connection that carried bytes was lost (or the start): "away" runs from here.
  let lostAt = heardAt;
  // Failed attempts since bytes last flowed, and what the last one met.
  let failures = 0;
  let lastLoss: string | undefined;

  while (!signal.aborted) {
    const attempt = new AbortController();
    const onAbort = () => attempt.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    const attemptStartedAt = clock.now();
    let opened = false;
    // Bytes arrived on this connection.
    let receiving = false;
    const resumedFrom = lastEventId;
    // The silence the heartbeat measures: since this attempt began or its last byte.
    let quietSince = attemptStartedAt;
    // Set when the watchdog cuts the attempt; the abort itself is a plain AbortError, which
    // the HTTP client passes through without retrying.
    let silence: string | undefined;
    let gaveUp = false;
    // True while the stream waits for a handler's promise.
    let handlerBusy = false;

    const onBytes = () => {
      const now = clock.now();
      heardAt = now;
      quietSince = now;
      if (receiving) return;
      receiving = true;
      if (everConnected || failures > 0) {
        if (everConnected) reconnects++;
        opts.onReconnected?.({ awayMs: now - lostAt, attempts: failures, lastEventId, first: !everConnected });
      }
      everConnected = true;
      failures = 0;
      lastLoss = undefined;
    };

    // The watchdog sleeps until the next deadline rather than being reset on every chunk:
    // at tens of thousands of events a second, a timer per chunk would cost more than the events.
    const watchdog = (async () => {
      while (!attempt.signal.aborted) {
        const now = clock.now();
        const deadline = Math.min(quietSince + heartbeatMs, heardAt + opts.timeoutMs);
        if (deadline <= now && handlerBusy) {
          // We are not reading (the handler holds the stream: backpressure), so the
          // silence is ours, not the server's: look again a heartbeat after it lets go.
          quietSince = heardAt = now;
          continue;
        }
        if (deadline <= now) {
          gaveUp = heardAt + opts.timeoutMs <= now;
          const quiet = seconds(deadline - quietSince);
          silence = receiving
            ? `no data for ${quiet}`
            : opened
              ? `the stream opened but nothing arrived in ${quiet}`
              : // Cut while opening: what the attempts before met says more than this cut does.
                (lastLoss ?? `no answer to the stream request in ${quiet}`);
          attempt.abort();
          return;
        }
        try {
          await clock.sleep(deadline - now, attempt.signal);
        } catch {
          return;
        }
      }
    })();

    let stop = false;
    let lossReason = 'the service ended the stream';
    try {
      const stream = await opts.open(lastEventId, attempt.signal);
      opened = true;
      const messages = readSse(stream.body, { onBytes });
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
              quietSince = clock.now();
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
      lossReason = silence ?? (opened && !receiving ? `the stream opened, then failed: ${describe(error)}` : describe(error));
    } finally {
      signal.removeEventListener('abort', onAbort);
      // Ends the request (closing the socket) and the watchdog.
      attempt.abort();
      await watchdog;
    }
    if (stop) return { outcome: 'stopped', lastEventId, reconnects };
    if (signal.aborted) break;

    if (receiving) lostAt = clock.now();
    failures++;
    lastLoss = lossReason;
    const silentMs = clock.now() - heardAt;
    if (gaveUp || silentMs >= opts.timeoutMs) return { outcome: 'timed-out', lastEventId, reconnects, awayMs: silentMs, reason: lossReason };
    opts.onLost?.(lossReason, failures, everConnected);
    // A stream that moved on (a new id) resumes at once: a burst with drops must not fall
    // behind. Anything else backs off, failures in a row longer (one formula for every retry: src/api/retry.ts).
    const progressed = lastEventId !== resumedFrom;
    const delay = progressed ? 0 : Math.min(backoffDelay(failures, opts.random01()), opts.timeoutMs - silentMs);
    try {
      await clock.sleep(delay, signal);
    } catch {
      break;
    }
  }
  return { outcome: 'aborted', lastEventId, reconnects };
}
