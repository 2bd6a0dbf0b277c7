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

/** What lasts across connections. */
interface Session {
  lastEventId: string | undefined;
  reconnects: number;
  /** Bytes have flowed on some connection. */
  everConnected: boolean;
  /** When a byte last came from the service (the start counts): --timeout runs from here. */
  heardAt: number;
  /** When the last connection that carried bytes was lost (or the start): "away" runs from here. */
  lostAt: number;
  /** Failed attempts since bytes last flowed, and what the last one met. */
  failures: number;
  lastLoss: string | undefined;
}

/** One connection attempt. */
interface Attempt {
  controller: AbortController;
  opened: boolean;
  /** Bytes arrived on this connection. */
  receiving: boolean;
  /** The silence the heartbeat measures: since this attempt began or its last byte. */
  quietSince: number;
  /**
   * Set when the watchdog cuts the attempt; the abort itself is a plain AbortError, which the
   * HTTP client passes through without retrying.
   */
  silence: string | undefined;
  gaveUp: boolean;
  /** True while the stream waits for a handler's promise. */
  handlerBusy: boolean;
}

/** The first byte of a connection says it is back; every byte restarts the silences. */
function bytesArrived(opts: FollowOptions, s: Session, a: Attempt): void {
  const now = opts.clock.now();
  s.heardAt = now;
  a.quietSince = now;
  if (a.receiving) return;
  a.receiving = true;
  if (s.everConnected || s.failures > 0) {
    if (s.everConnected) s.reconnects++;
    opts.onReconnected?.({ awayMs: now - s.lostAt, attempts: s.failures, lastEventId: s.lastEventId, first: !s.everConnected });
  }
  s.everConnected = true;
  s.failures = 0;
  s.lastLoss = undefined;
}

/**
 * Cuts the attempt after a heartbeat of silence (or --timeout since the service was last
 * heard). It sleeps until the next deadline rather than being reset on every chunk: at tens of
 * thousands of events a second, a timer per chunk would cost more than the events.
 */
async function watch(opts: FollowOptions, heartbeatMs: number, s: Session, a: Attempt): Promise<void> {
  const { clock } = opts;
  while (!a.controller.signal.aborted) {
    const now = clock.now();
    const deadline = Math.min(a.quietSince + heartbeatMs, s.heardAt + opts.timeoutMs);
    if (deadline <= now && a.handlerBusy) {
      // We are not reading (the handler holds the stream: backpressure), so the silence is
      // ours, not the server's: look again a heartbeat after it lets go.
      a.quietSince = s.heardAt = now;
      continue;
    }
    if (deadline <= now) {
      a.gaveUp = s.heardAt + opts.timeoutMs <= now;
      const quiet = seconds(deadline - a.quietSince);
      a.silence = a.receiving
        ? `no data for ${quiet}`
        : a.opened
          ? `the stream opened but nothing arrived in ${quiet}`
          : // Cut while opening: what the attempts before met says more than this cut does.
            (s.lastLoss ?? `no answer to the stream request in ${quiet}`);
      a.controller.abort();
      return;
    }
    try {
      await clock.sleep(deadline - now, a.controller.signal);
    } catch {
      return;
    }
  }
}

/** Runs a handler of ours: what it throws (a file that cannot be written) is never retried as connection trouble. */
function handlerStep(step: () => void): void {
  try {
    step();
  } catch (error) {
    throw new HandlerFailure(error);
  }
}

/** Hands a message on; a handler's promise holds the stream (backpressure), a sync verdict does not wait. */
function handOn(opts: FollowOptions, a: Attempt, message: SseMessage): MessageVerdict | Promise<MessageVerdict> {
  let result: MessageVerdict | Promise<MessageVerdict>;
  try {
    result = opts.onMessage(message);
  } catch (error) {
    throw new HandlerFailure(error);
  }
  if (typeof result === 'string') return result;
  a.handlerBusy = true;
  return result
    .catch((error: unknown) => {
      throw new HandlerFailure(error);
    })
    .finally(() => {
      a.handlerBusy = false;
      a.quietSince = opts.clock.now();
    });
}

/** Reads one connection to its end; true when the handler asked to stop. */
async function readConnection(opts: FollowOptions, s: Session, a: Attempt): Promise<boolean> {
  const stream = await opts.open(s.lastEventId, a.controller.signal);
  a.opened = true;
  for await (const message of readSse(stream.body, { onBytes: () => bytesArrived(opts, s, a) })) {
    // Stopped (Ctrl-C), perhaps while a handler held the stream: what was already buffered is not handed on.
    if (opts.signal.aborted) break;
    const { id } = message;
    if (id) {
      const resumesAfter = s.lastEventId;
      if (isResumableId(id)) s.lastEventId = id;
      else handlerStep(() => opts.onUnusableId?.(id, resumesAfter));
    }
    if (message.position) {
      if (id) handlerStep(() => opts.onPosition?.(id));
      continue;
    }
    const verdict = handOn(opts, a, message);
    if ((typeof verdict === 'string' ? verdict : await verdict) === 'stop') return true;
  }
  return false;
}

/** After a lost connection: give up past --timeout, else how long to wait before the next. */
function afterLoss(opts: FollowOptions, s: Session, a: Attempt, lossReason: string, resumedFrom: string | undefined): FollowResult | { delay: number } {
  const { clock } = opts;
  if (a.receiving) s.lostAt = clock.now();
  s.failures++;
  s.lastLoss = lossReason;
  const silentMs = clock.now() - s.heardAt;
  if (a.gaveUp || silentMs >= opts.timeoutMs)
    return { outcome: 'timed-out', lastEventId: s.lastEventId, reconnects: s.reconnects, awayMs: silentMs, reason: lossReason };
  opts.onLost?.(lossReason, s.failures, s.everConnected);
  // A stream that moved on (a new id) resumes at once: a burst with drops must not fall
  // behind. Anything else backs off, failures in a row longer (one formula for every retry: src/api/retry.ts).
  const progressed = s.lastEventId !== resumedFrom;
  return { delay: progressed ? 0 : Math.min(backoffDelay(s.failures, opts.random01()), opts.timeoutMs - silentMs) };
}

export async function follow(opts: FollowOptions): Promise<FollowResult> {
  const { clock, signal } = opts;
  const heartbeatMs = opts.heartbeatMs ?? HEARTBEAT_TIMEOUT_MS;
  const start = clock.now();
  const s: Session = { lastEventId: opts.lastEventId, reconnects: 0, everConnected: false, heardAt: start, lostAt: start, failures: 0, lastLoss: undefined };

  while (!signal.aborted) {
    const a: Attempt = {
      controller: new AbortController(),
      opened: false,
      receiving: false,
      quietSince: clock.now(),
      silence: undefined,
      gaveUp: false,
      handlerBusy: false,
    };
    const onAbort = () => a.controller.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    const resumedFrom = s.lastEventId;
    const watchdog = watch(opts, heartbeatMs, s, a);
    let stop = false;
    let lossReason = 'the service ended the stream';
    try {
      stop = await readConnection(opts, s, a);
    } catch (error) {
      if (error instanceof HandlerFailure) throw error.error;
      if (signal.aborted) break;
      if (a.silence === undefined && !opts.isRetryable(error)) throw error;
      lossReason = a.silence ?? (a.opened && !a.receiving ? `the stream opened, then failed: ${describe(error)}` : describe(error));
    } finally {
      signal.removeEventListener('abort', onAbort);
      // Ends the request (closing the socket) and the watchdog.
      a.controller.abort();
      await watchdog;
    }
    if (stop) return { outcome: 'stopped', lastEventId: s.lastEventId, reconnects: s.reconnects };
    if (signal.aborted) break;
    const next = afterLoss(opts, s, a, lossReason, resumedFrom);
    if ('outcome' in next) return next;
    try {
      await clock.sleep(next.delay, signal);
    } catch {
      break;
    }
  }
  return { outcome: 'aborted', lastEventId: s.lastEventId, reconnects: s.reconnects };
}
