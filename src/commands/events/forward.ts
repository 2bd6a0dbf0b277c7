// `--forward-to URL`: each event's JSON POSTed to a local endpoint, in the order received
// (like `stripe listen --forward-to`). A failed delivery is retried a few times, then
// reported and skipped, so one bad event cannot stall the tail forever. The queue is
// bounded: when it is full the tail waits for room before reading the next event
// (backpressure), so a slow endpoint cannot make svc hold an ever-growing backlog.
import type { Clock } from '../../context.js';
import { SIGNATURE_HEADER } from './sign.js';

export type PostJson = (url: string, body: string, headers: Record<string, string>, signal: AbortSignal) => Promise<{ status: number }>;

export interface DeliveryReport {
  eventId: string;
  type: string;
  /** HTTP status of the last attempt, or null when it failed without a response. */
  status: number | null;
  attempts: number;
  ok: boolean;
  /** Why the last attempt failed without a status (connection refused, timeout). */
  error?: string;
  /** The event's JSON as delivered (given with a failure, for the dead-letter file). */
  body?: string;
}

export interface ForwarderOptions {
  url: string;
  post: PostJson;
  clock: Clock;
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
  /** Delay before the second attempt; doubles for each later one. */
  retryDelayMs?: number;
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

interface Queued {
  eventId: string;
  type: string;
  json: string;
  /** Signed ahead (see `sign`): the value and the second it is for. */
  signature?: string;
  signedSecond?: number;
}

export class Forwarder {
  /** Events not yet started, oldest first from `head`. */
  private queue: Array<Queued | undefined> = [];
  private head = 0;
  /** Whether the delivery loop is running (it stops when the queue is empty). */
  private running = false;
  private pending = 0;
  private enqueued = 0;
  private waiters: Array<() => void> = [];
  private drainers: Array<() => void> = [];
  private failure: { error: unknown } | undefined;
  delivered = 0;
  failed = 0;
  /** Events never attempted, or cut off mid-attempt, because the tail was stopped (Ctrl-C). */
  abandoned = 0;

  /**
   * The signal of the attempts: one controller as long as no attempt is cut off (a new one
   * after), so a delivery costs no controller, listener or timer of its own.
   */
  private attempts = new AbortController();
  /** When the attempt under way started (performance.now()), or undefined between attempts. */
  private attemptStartedAt: number | undefined;
  /** Armed at most once at a time; when it fires early (the attempt it was armed for ended), it re-arms for what is left. */
  private attemptTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly opts: ForwarderOptions) {
    opts.signal.addEventListener(
      'abort',
      () => {
        this.attempts.abort(opts.signal.reason);
        this.wake();
      },
      { once: true },
    );
  }

  private get attemptTimeoutMs(): number {
    return this.opts.attemptTimeoutMs ?? 10_000;
  }

  private armAttemptTimer(ms: number): void {
    this.attemptTimer = setTimeout(() => this.checkAttempt(), Math.max(1, Math.ceil(ms)));
    // The attempt itself (its socket) keeps the process alive, not its timer.
    this.attemptTimer.unref();
  }

  private checkAttempt(): void {
    this.attemptTimer = undefined;
    if (this.attemptStartedAt === undefined) return;
    const left = this.attemptStartedAt + this.attemptTimeoutMs - performance.now();
    if (left > 0) return this.armAttemptTimer(left);
    this.attempts.abort(new Error(`no answer within ${this.attemptTimeoutMs / 1000} s`));
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
      while (this.head < this.queue.length) {
        const next = this.queue[this.head]!;
        this.queue[this.head++] = undefined;
        if (this.head > 4096 && this.head * 2 > this.queue.length) {
          this.queue = this.queue.slice(this.head);
          this.head = 0;
        }
        const delivery = this.deliver(next);
        if (previous !== undefined) this.finished(previous);
        this.signAhead();
        previous = await delivery;
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
  private signAhead(): void {
    const { sign, clock } = this.opts;
    const next = this.queue[this.head];
    if (!sign || !next || next.signature !== undefined) return;
    const second = Math.floor(clock.now() / 1000);
    const signature = sign(next.json);
    // Kept only when the second did not turn while signing: then it is the value for `second`.
    if (Math.floor(clock.now() / 1000) !== second) return;
    next.signature = signature;
    next.signedSecond = second;
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

  /** Delivers one event with its retries; its report, or null when a stop cut it off. */
  private async deliver(event: Queued): Promise<DeliveryReport | null> {
    const { eventId, type, json } = event;
    const { clock, signal, sign } = this.opts;
    const maxAttempts = this.opts.attempts ?? 4;
    const fixed: Record<string, string> = { ...this.opts.headers, 'content-type': 'application/json', 'svc-event-id': eventId, 'svc-event-type': type };
    let status: number | null = null;
    let error: string | undefined;
    let attempt = 0;
    while (attempt < maxAttempts && !signal.aborted) {
      if (attempt > 0) {
        try {
          await clock.sleep((this.opts.retryDelayMs ?? 500) * 2 ** (attempt - 1), signal);
        } catch {
          break;
        }
      }
      attempt++;
      if (this.attempts.signal.aborted) this.attempts = new AbortController();
      const attemptSignal = this.attempts.signal;
      this.attemptStartedAt = performance.now();
      if (!this.attemptTimer) this.armAttemptTimer(this.attemptTimeoutMs);
      let headers = fixed;
      if (sign) {
        const ahead = attempt === 1 && event.signature !== undefined && event.signedSecond === Math.floor(clock.now() / 1000);
        headers = { ...fixed, [SIGNATURE_HEADER]: ahead ? event.signature! : sign(json) };
      }
      try {
        ({ status } = await this.opts.post(this.opts.url, json, headers, attemptSignal));
        error = undefined;
        if (status >= 200 && status < 300) {
          this.delivered++;
          const report: DeliveryReport = { eventId, type, status, attempts: attempt, ok: true };
          this.opts.settled?.(report);
          return report;
        }
      } catch (e) {
        status = null;
        error = e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
      } finally {
        this.attemptStartedAt = undefined;
      }
    }
    if (signal.aborted) {
      // Stopped, not failed: the summary counts it as still queued, with no report line after it.
      this.abandoned++;
      return null;
    }
    this.failed++;
    const report: DeliveryReport = { eventId, type, status, attempts: attempt, ok: false, ...(error ? { error } : {}), body: json };
    this.opts.settled?.(report);
    return report;
  }
}

/** The line printed for a delivery: `→ 200 POST http://… evt_1 call.started`. */
export function formatDelivery(d: DeliveryReport, url: string): string {
  const outcome = d.status === null ? `failed (${d.error ?? 'no response'})` : String(d.status);
  const tries = d.attempts > 1 ? ` after ${d.attempts} attempts` : '';
  const verdict = d.ok ? '' : ' — gave up';
  return `→ ${outcome} POST ${url} ${d.eventId} ${d.type}${tries}${verdict}`;
}
