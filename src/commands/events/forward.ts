// `--forward-to URL`: each event's JSON POSTed to a local endpoint, in the order received
// (like `stripe listen --forward-to`). A failed delivery is retried a few times, then
// reported and skipped, so one bad event cannot stall the tail forever.
import type { Clock } from '../../context.js';

export type PostJson = (
  url: string,
  body: string,
  headers: Record<string, string>,
  signal: AbortSignal,
) => Promise<{ status: number }>;

export interface DeliveryReport {
  eventId: string;
  type: string;
  /** HTTP status of the last attempt, or null when it failed without a response. */
  status: number | null;
  attempts: number;
  ok: boolean;
  /** Why the last attempt failed without a status (connection refused, timeout). */
  error?: string;
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
}

export class Forwarder {
  private chain: Promise<void> = Promise.resolve();
  private pending = 0;
  delivered = 0;
  failed = 0;

  constructor(private readonly opts: ForwarderOptions) {}

  /** Queues an event for delivery after those before it; returns at once. */
  enqueue(eventId: string, type: string, json: string): void {
    this.pending++;
    this.chain = this.chain.then(() => this.deliver(eventId, type, json)).finally(() => this.pending--);
  }

  /** Resolves when every queued event has been delivered or given up on. */
  drain(): Promise<void> {
    return this.chain;
  }

  get queued(): number {
    return this.pending;
  }

  private async deliver(eventId: string, type: string, json: string): Promise<void> {
    const { clock, signal } = this.opts;
    const maxAttempts = this.opts.attempts ?? 4;
    const headers = { 'content-type': 'application/json', 'svc-event-id': eventId };
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
      const timeout = AbortSignal.any([signal, AbortSignal.timeout(this.opts.attemptTimeoutMs ?? 10_000)]);
      try {
        ({ status } = await this.opts.post(this.opts.url, json, headers, timeout));
        error = undefined;
        if (status >= 200 && status < 300) {
          this.delivered++;
          this.opts.report({ eventId, type, status, attempts: attempt, ok: true });
          return;
        }
      } catch (e) {
        status = null;
        error = e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e);
      }
    }
    if (signal.aborted && attempt === 0) return;
    this.failed++;
    this.opts.report({ eventId, type, status, attempts: attempt, ok: false, ...(error ? { error } : {}) });
  }
}

/** The line printed for a delivery: `→ 200 POST http://… evt_1 call.started`. */
export function formatDelivery(d: DeliveryReport, url: string): string {
  const outcome = d.status === null ? `failed (${d.error ?? 'no response'})` : String(d.status);
  const tries = d.attempts > 1 ? ` after ${d.attempts} attempts` : '';
  const verdict = d.ok ? '' : ' — gave up';
  return `→ ${outcome} POST ${url} ${d.eventId} ${d.type}${tries}${verdict}`;
}
