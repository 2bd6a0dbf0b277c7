// `events_wait` of `svc mcp`: the session's events as one queue that every wait draws from.
// The position is taken when the session starts (the newest retained event, or the service's
// `start` before the first; svc mcp takes it once initialize is answered, before any request
// after it is handled), so nothing that happens after it is missed, however long before the
// first wait. One stream (GET /v1/events/stream, resumed with Last-Event-ID) feeds the
// queue in the service's order; each event goes to the oldest waiting call whose types it
// matches, else it is kept for the next wait that matches it. So no event is skipped (a wait
// for other types leaves it queued), none is returned twice (not to two waits at once either),
// and waits are served in the order they came.
import type { Clock } from '../shared/runtime.js';
import { follow, type OpenStream } from '../api/reconnect.js';
import { isRetryableFailure } from '../api/retry.js';
import type { SseMessage } from '../api/sse.js';
import { LIMITS } from '../contract/constants.js';
import type { ApiEvent } from '../events/format.js';
import type { TypePattern } from '../events/filter.js';

/** How often a waiting call says it is still waiting (MCP progress), so a client's request timeout does not end it. */
export const PROGRESS_EVERY_MS = 1_000;
/** The service keeps this many events; the queue never holds more unclaimed. */
const MAX_QUEUED = LIMITS.eventsRetained;

/**
 * What `svc events tail` knows of events, handed in (events-wait-tool.ts loads it when the
 * session starts, so no command line loads the events command's modules for svc mcp's sake).
 */
export interface EventRules {
  matchesType(type: string, patterns: readonly TypePattern[]): boolean;
  parseEvent(data: string): ApiEvent | null;
  isGapFrame(event: string | undefined): boolean;
  parseGap(data: string): { last_event_id: string | null; resumed_from: string | null };
  /** The position before the first event (`Last-Event-ID: start`). */
  startPosition: string;
}

export interface FeedDeps {
  rules: EventRules;
  /** The newest retained event's id, or undefined when there is none yet. */
  newest(signal: AbortSignal): Promise<string | undefined>;
  open: OpenStream;
  clock: Clock;
  random01: () => number;
  /** Aborted when the session ends. */
  signal: AbortSignal;
}

export interface WaitRequest {
  types: TypePattern[];
  maxEvents: number;
  waitMs: number;
  signal: AbortSignal;
  /** Called while waiting, every PROGRESS_EVERY_MS: milliseconds waited so far. */
  progress?: (waitedMs: number) => void;
  /**
   * The events returned stay within this many characters of JSON (one alone may be larger):
   * those past it stay queued, in order, for the next wait, and the result says `more`.
   */
  maxChars?: number;
}

export interface WaitResult {
  events: ApiEvent[];
  timed_out: boolean;
  /**
   * Events the service no longer kept when the stream resumed: some may be missing (its gap
   * frame); or the position was taken late, at `resumed_from`, and events before it may be.
   */
  gap?: { last_event_id: string | null; resumed_from: string | null };
  /** Events no wait claimed, dropped because the queue was full. */
  dropped?: number;
  /** Events this wait matched that did not fit its size: queued for the next wait, which returns them at once. */
  more?: true;
}

interface Waiting {
  types: TypePattern[];
  room: number;
  events: ApiEvent[];
  done: () => void;
}

export class EventFeed {
  private start: Promise<string>;
  /** Settles once the position is taken, or could not be (then the first wait's error). */
  readonly positioned: Promise<void>;
  /** The position could not be taken when the session started: the wait that takes it says events before it may be missing. */
  private takenLate = false;
  private readonly queued: ApiEvent[] = [];
  private readonly waiting: Waiting[] = [];
  private streaming = false;
  private failure: unknown;
  private gap: WaitResult['gap'];
  private dropped = 0;
  /** Each event's place in the stream, to put back a cancelled wait's events where they were. */
  private readonly order = new WeakMap<ApiEvent, number>();
  private arrivals = 0;
  /** The last position the stream gave: where a stream opened again resumes. */
  private lastId: string | undefined;

  /** Takes the position now: the session's start. */
  constructor(private readonly deps: FeedDeps) {
    this.start = this.takePosition();
    // A position that could not be taken is the first wait's error, not an unhandled rejection.
    this.positioned = this.start.then(
      () => {},
      () => {},
    );
  }

  private takePosition(): Promise<string> {
    return this.deps.newest(this.deps.signal).then((id) => id ?? this.deps.rules.startPosition);
  }

  async wait(request: WaitRequest): Promise<WaitResult> {
    const start = this.start;
    let position: string;
    try {
      position = await start;
    } catch (error) {
      // Taken again for the next wait (a service that was down at the start may be up by then).
      if (this.start === start) {
        this.start = this.takePosition();
        this.start.catch(() => {});
        this.takenLate = true;
      }
      throw error;
    }
    if (this.takenLate) {
      this.takenLate = false;
      this.gap = { last_event_id: null, resumed_from: position };
    }
    // A stream that ended (lost) is opened again, from where it was.
    if (!this.streaming) this.failure = undefined;
    const me: Waiting = { types: request.types, room: request.maxEvents, events: [], done: () => {} };
    this.claimQueued(me);
    if (me.room > 0) {
      this.stream(this.lastId ?? position);
      await this.until(me, request);
    }
    // A cancelled call's answer is never read: what it had claimed goes back, in the stream's order.
    if (request.signal.aborted) {
      this.queued.push(...me.events);
      this.queued.sort((a, b) => this.order.get(a)! - this.order.get(b)!);
      throw new Error('the wait was cancelled');
    }
    if (this.failure !== undefined && me.events.length === 0) throw this.failure;
    const kept = within(me.events, request.maxChars);
    const result: WaitResult = { events: kept, timed_out: me.room > 0 && kept.length === me.events.length };
    if (kept.length < me.events.length) {
      // Past the size: back in the queue where they were, the next wait's first.
      this.queued.push(...me.events.slice(kept.length));
      this.queued.sort((a, b) => this.order.get(a)! - this.order.get(b)!);
      result.more = true;
    }
    if (this.gap) [result.gap, this.gap] = [this.gap, undefined];
    if (this.dropped) [result.dropped, this.dropped] = [this.dropped, 0];
    return result;
  }

  /** The queued events this wait matches, oldest first, up to its room. */
  private claimQueued(me: Waiting): void {
    for (let i = 0; i < this.queued.length && me.room > 0;) {
      if (this.deps.rules.matchesType(this.queued[i]!.type, me.types)) {
        me.events.push(...this.queued.splice(i, 1));
        me.room -= 1;
      } else i += 1;
    }
  }

  /** Waits in line until full, timed out, cancelled or the session ends; says progress meanwhile. */
  private async until(me: Waiting, request: WaitRequest): Promise<void> {
    const stop = new AbortController();
    const end = () => stop.abort();
    me.done = end;
    request.signal.addEventListener('abort', end, { once: true });
    this.deps.signal.addEventListener('abort', end, { once: true });
    this.waiting.push(me);
    const started = this.deps.clock.now();
    try {
      for (let waited = 0; waited < request.waitMs && !stop.signal.aborted;) {
        await this.deps.clock.sleep(Math.min(PROGRESS_EVERY_MS, request.waitMs - waited), stop.signal).catch(() => {});
        waited = this.deps.clock.now() - started;
        if (!stop.signal.aborted && waited < request.waitMs) request.progress?.(waited);
      }
    } finally {
      request.signal.removeEventListener('abort', end);
      this.deps.signal.removeEventListener('abort', end);
      const at = this.waiting.indexOf(me);
      if (at >= 0) this.waiting.splice(at, 1);
    }
  }

  /** An event from the stream: to the oldest wait that matches it, else queued. */
  private arrived(event: ApiEvent): void {
    this.order.set(event, (this.arrivals += 1));
    const taker = this.waiting.find((w) => w.room > 0 && this.deps.rules.matchesType(event.type, w.types));
    if (!taker) {
      if (this.queued.length >= MAX_QUEUED) {
        this.queued.shift();
        this.dropped += 1;
      }
      this.queued.push(event);
      return;
    }
    taker.events.push(event);
    taker.room -= 1;
    if (taker.room === 0) {
      this.waiting.splice(this.waiting.indexOf(taker), 1);
      taker.done();
    }
  }

  private onMessage(message: SseMessage): 'continue' {
    if (message.id) this.lastId = message.id;
    const { rules } = this.deps;
    if (rules.isGapFrame(message.event) && !message.id) this.gap = rules.parseGap(message.data);
    else {
      const event = rules.parseEvent(message.data);
      if (event) this.arrived(event);
    }
    return 'continue';
  }

  /** The one stream of the session, opened at the first wait and followed until the session ends. */
  private stream(position: string): void {
    if (this.streaming) return;
    this.streaming = true;
    void follow({
      open: this.deps.open,
      onMessage: (message) => this.onMessage(message),
      onPosition: (id) => void (this.lastId = id),
      isRetryable: isRetryableFailure,
      clock: this.deps.clock,
      random01: this.deps.random01,
      signal: this.deps.signal,
      timeoutMs: 5 * 60_000,
      lastEventId: position,
    })
      .then((result) => {
        if (result.outcome === 'timed-out') this.failure = new Error(`the event stream was lost: ${result.reason}`);
      })
      .catch((error: unknown) => {
        this.failure = error;
      })
      .finally(() => {
        this.streaming = false;
        for (const w of [...this.waiting]) w.done();
      });
  }
}

/** The first events whose JSON together stays within `maxChars` (the first always, however large). */
function within(events: ApiEvent[], maxChars: number | undefined): ApiEvent[] {
  if (maxChars === undefined) return events;
  let used = 0;
  let count = 0;
  for (const event of events) {
    used += JSON.stringify(event).length + 1;
    if (count > 0 && used > maxChars) break;
    count += 1;
  }
  return events.slice(0, count);
}
