// `--forward-to URL`: each event's JSON POSTed to a local endpoint, in the order received
// (like `stripe listen --forward-to`). A failed delivery is retried a few times, then
// reported and skipped, so one bad event cannot stall the tail forever. The queue is
// bounded: when it is full the tail waits for room before reading the next event
// (backpressure), so a slow endpoint cannot make svc hold an ever-growing backlog.
import type { Clock } from '../../context.js';

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
  /** The `Svc-Signature` value for a body, computed at each attempt (its `t` is the attempt's time). */
  sign?: (body: string) => string;
}

/** The default bound of the forward queue. */
export const MAX_FORWARD_QUEUE = 1000;

export class Forwarder {
  private chain: Promise<void> = Promise.resolve();
  private pending = 0;
  private enqueued = 0;
  private waiters: Array<() => void> = [];
  delivered = 0;
  failed = 0;
  /** Events never attempted, or cut off mid-attempt, because the tail was stopped (Ctrl-C). */
  abandoned = 0;

  constructor(private readonly opts: ForwarderOptions) {
    opts.signal.addEventListener('abort', () => this.wake(), { once: true });
  }

  /** Queues an event for delivery after those before it; returns at once (see `room()`). */
  enqueue(eventId: string, type: string, json: string): void {
    this.enqueued++;
    this.pending++;
    this.chain = this.chain
      .then(() => this.deliver(eventId, type, json))
      .finally(() => {
        this.pending--;
        this.wake();
      });
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
  drain(): Promise<void> {
    return this.chain;
  }

  get queued(): number {
    return this.pending;
  }

  /** After a stop: the events that were not forwarded because of it (queued, in flight, abandoned). */
  get unsent(): number {
    return this.enqueued - this.delivered - this.failed;
  }

  private async deliver(eventId: string, type: string, json: string): Promise<void> {
    const { clock, signal } = this.opts;
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
      // One controller and one timer per attempt: cheaper than AbortSignal.any/timeout at
      // thousands of deliveries a second.
      const attemptController = new AbortController();
      const timeoutMs = this.opts.attemptTimeoutMs ?? 10_000;
      const timer = setTimeout(() => attemptController.abort(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
      const onStop = () => attemptController.abort(signal.reason);
      signal.addEventListener('abort', onStop, { once: true });
      const headers = this.opts.sign ? { ...fixed, 'svc-signature': this.opts.sign(json) } : fixed;
      try {
        ({ status } = await this.opts.post(this.opts.url, json, headers, attemptController.signal));
        error = undefined;
        if (status >= 200 && status < 300) {
          this.delivered++;
          this.opts.report({ eventId, type, status, attempts: attempt, ok: true });
          return;
        }
      } catch (e) {
        status = null;
        error = e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
      } finally {
        clearTimeout(timer);
        signal.removeEventListener('abort', onStop);
      }
    }
    if (signal.aborted) {
      // Stopped, not failed: the summary counts it as still queued, with no report line after it.
      this.abandoned++;
      return;
    }
    this.failed++;
    this.opts.report({ eventId, type, status, attempts: attempt, ok: false, ...(error ? { error } : {}), body: json });
  }
}

/** The line printed for a delivery: `→ 200 POST http://… evt_1 call.started`. */
export function formatDelivery(d: DeliveryReport, url: string): string {
  const outcome = d.status === null ? `failed (${d.error ?? 'no response'})` : String(d.status);
  const tries = d.attempts > 1 ? ` after ${d.attempts} attempts` : '';
  const verdict = d.ok ? '' : ' — gave up';
  return `→ ${outcome} POST ${url} ${d.eventId} ${d.type}${tries}${verdict}`;
}
