// `--forward-to URL`: each event's JSON POSTed to a local endpoint, in the order received
// (like `stripe listen --forward-to`). A failed delivery is retried a few times, then
// reported and skipped, so one bad event cannot stall the tail forever. The queue is
// bounded: when it is full the tail waits for room before reading the next event
// (backpressure), so a slow endpoint cannot make svc hold an ever-growing backlog.
// The Forwarder is that queue (tested alone: test/events/forward.test.ts); one event's
// attempts are delivery.ts's.
import type { Clock } from '../shared/runtime.js';
import { AttemptTimer, deliver, signAhead, type DeliveryPolicy, type DeliveryReport, type Outgoing, type PostJson } from './delivery.js';

export type { DeliveryReport, PostJson } from './delivery.js';

export interface ForwarderOptions {
  url: string;
  post: PostJson;
  clock: Clock;
  /** A number in [0, 1), for the jitter of the backoff between attempts. */
  random01: () => number;
  signal: AbortSignal;
  /**
   * An event settled (delivered, or given up): called at once, before the next delivery
   * starts, so what it records (the dead-letter file, the checkpoint) is on disk first.
   */
  settled?: (delivery: DeliveryReport) => void;
  /**
   * The progress report of a settled event, in order: called once the next delivery is on
   * its way (or at once when there is none), so printing it overlaps the handler's work.
   */
  report: (delivery: DeliveryReport) => void;
  /** Attempts per event, the first included. */
  attempts?: number;
  /** Time allowed for one attempt. */
  attemptTimeoutMs?: number;
  /** Events queued or being delivered before `room()` makes the reader wait. */
  maxQueued?: number;
  /** Extra headers on every delivery (`--forward-header`). */
  headers?: Record<string, string>;
  /**
   * The `Svc-Signature` value for a body at the clock's current second (its `t`): a function
   * of the body and that second only. Each attempt carries the value of its own second; the
   * next event's may be computed ahead, while the handler works on the one before, and is
   * used only if the attempt starts within the same second.
   */
  sign?: (body: string) => string;
}

/** The default bound of the forward queue. */
export const MAX_FORWARD_QUEUE = 1000;
/** Attempts per event by default (README: "4 attempts"). */
export const DELIVERY_ATTEMPTS = 4;
const ATTEMPT_TIMEOUT_MS = 10_000;

export class Forwarder {
  /** Events not yet started, oldest first from `head`. */
  private queue: Array<Outgoing | undefined> = [];
  private head = 0;
  /** Whether the delivery loop is running (it stops when the queue is empty). */
  private running = false;
  private pending = 0;
  private enqueued = 0;
  private waiters: Array<() => void> = [];
  private drainers: Array<() => void> = [];
  private failure: { error: unknown } | undefined;
  private readonly policy: DeliveryPolicy;
  delivered = 0;
  failed = 0;
  /** Events never attempted, or cut off mid-attempt, because the tail was stopped (Ctrl-C). */
  abandoned = 0;

  constructor(private readonly opts: ForwarderOptions) {
    const timer = new AttemptTimer(opts.attemptTimeoutMs ?? ATTEMPT_TIMEOUT_MS);
    this.policy = {
      url: opts.url,
      post: opts.post,
      clock: opts.clock,
      random01: opts.random01,
      signal: opts.signal,
      attempts: opts.attempts ?? DELIVERY_ATTEMPTS,
      headers: opts.headers,
      sign: opts.sign,
      timer,
    };
    opts.signal.addEventListener(
      'abort',
      () => {
        timer.stop(opts.signal.reason);
        this.wake();
      },
      { once: true },
    );
  }

  /** Queues an event for delivery after those before it; returns at once (see `room()`). */
  enqueue(eventId: string, type: string, json: string): void {
    this.enqueued++;
    this.pending++;
    this.queue.push({ eventId, type, json });
    if (!this.running) void this.run();
  }

  /**
   * Delivers the queue in order, one event at a time: event k+1 starts only once event k is
   * settled. Its report, and the wake-up of a reader waiting for room, come right after
   * k+1 is sent, while the handler works on it.
   */
  private async run(): Promise<void> {
    this.running = true;
    // The event delivered just before (null: cut off by a stop); undefined before the first.
    let previous: DeliveryReport | null | undefined;
    try {
      for (let next = this.next(); next; next = this.next()) {
        const delivery = deliver(next, this.policy);
        if (previous !== undefined) this.finished(previous);
        this.signNextAhead();
        previous = await delivery;
        this.settle(previous);
      }
      if (previous !== undefined) this.finished(previous);
    } catch (error) {
      // A report that could not be written (stderr gone): drain() says so.
      this.failure ??= { error };
    } finally {
      this.running = false;
      for (const resolve of this.drainers.splice(0)) resolve();
    }
  }

  /** Signs the next event while the handler works on the current one (off the round trip). */
  private signNextAhead(): void {
    const following = this.queue[this.head];
    if (this.opts.sign && following) signAhead(following, this.opts.sign, this.opts.clock);
  }

  /** Takes the oldest event off the queue (its array compacted now and then, so it does not grow). */
  private next(): Outgoing | undefined {
    if (this.head >= this.queue.length) return undefined;
    const next = this.queue[this.head]!;
    this.queue[this.head++] = undefined;
    if (this.head > 4096 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return next;
  }

  /** Counts an event's outcome and hands it to `settled` before the next delivery starts. */
  private settle(delivery: DeliveryReport | null): void {
    if (!delivery) {
      // Stopped, not failed: the summary counts it as still queued, with no report line after it.
      this.abandoned++;
      return;
    }
    if (delivery.ok) this.delivered++;
    else this.failed++;
    this.opts.settled?.(delivery);
  }

  /** One event is out of the queue: its report, and room for the reader. */
  private finished(delivery: DeliveryReport | null): void {
    this.pending--;
    this.wake();
    if (delivery) this.opts.report(delivery);
  }

  get full(): boolean {
    return this.pending >= (this.opts.maxQueued ?? MAX_FORWARD_QUEUE);
  }

  /** Resolves when the queue has room for one more event, or at once once stopped. */
  async room(): Promise<void> {
    while (this.full && !this.opts.signal.aborted) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  private wake(): void {
    for (const resolve of this.waiters.splice(0)) resolve();
  }

  /** Resolves when every queued event has been delivered or given up on. */
  async drain(): Promise<void> {
    if (this.running) await new Promise<void>((resolve) => this.drainers.push(resolve));
    if (this.failure) throw this.failure.error;
  }

  get queued(): number {
    return this.pending;
  }

  /** After a stop: the events that were not forwarded because of it (queued, in flight, abandoned). */
  get unsent(): number {
    return this.enqueued - this.delivered - this.failed;
  }
}
