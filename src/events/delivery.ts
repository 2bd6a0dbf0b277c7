// One event's delivery to one URL: its attempts, each time-boxed and signed for its own
// second, with svc's one backoff (backoffDelay, as every request's retries) between them;
// how it ended comes back as a report. The queue around it (order, bound, stop) is the
// Forwarder's (forward.ts); the HTTP transport is handed in (post.ts in the command).
import { backoffDelay } from '../api/retry.js';
import type { Clock } from '../shared/runtime.js';
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

/** An event on its way. */
export interface Outgoing {
  eventId: string;
  type: string;
  json: string;
  /** Its signature made ahead (signAhead), for the second it is for. */
  ahead?: { signature: string; second: number };
}

export interface DeliveryPolicy {
  url: string;
  post: PostJson;
  clock: Clock;
  /** A number in [0, 1) for the backoff's jitter. */
  random01: () => number;
  /** A stop (Ctrl-C): no more attempts; the event is abandoned, not failed. */
  signal: AbortSignal;
  /** Attempts per event, the first included. */
  attempts: number;
  /** Headers of every delivery (`--forward-header`). */
  headers: Record<string, string> | undefined;
  /** The `Svc-Signature` of a body at the clock's current second. */
  sign: ((body: string) => string) | undefined;
  timer: AttemptTimer;
}

/** What one attempt ended in: an answer's status, or no answer and why. */
interface Attempted {
  status: number | null;
  error?: string;
}

/**
 * Delivers one event with its retries: its report, or null when a stop cut it off (it is then
 * neither delivered nor given up: the caller counts it as unsent).
 */
export async function deliver(event: Outgoing, policy: DeliveryPolicy): Promise<DeliveryReport | null> {
  const { eventId, type, json } = event;
  const headers = deliveryHeaders(event, policy.headers);
  let last: Attempted = { status: null };
  let attempts = 0;
  while (attempts < policy.attempts && !policy.signal.aborted) {
    if (attempts > 0 && !(await waitBeforeRetry(attempts, policy))) break;
    attempts++;
    last = await attempt(event, attempts, headers, policy);
    if (isDelivered(last.status)) return { eventId, type, status: last.status, attempts, ok: true };
  }
  if (policy.signal.aborted) return null;
  return { eventId, type, status: last.status, attempts, ok: false, ...(last.error ? { error: last.error } : {}), body: json };
}

function isDelivered(status: number | null): boolean {
  return status !== null && status >= 200 && status < 300;
}

/** The headers of every attempt of an event (its signature aside). */
function deliveryHeaders(event: Outgoing, extra: Record<string, string> | undefined): Record<string, string> {
  return { ...extra, 'content-type': 'application/json', 'svc-event-id': event.eventId, 'svc-event-type': event.type };
}

/** The backoff after `attempts` failed ones; false when a stop ended the wait. */
async function waitBeforeRetry(attempts: number, policy: DeliveryPolicy): Promise<boolean> {
  try {
    await policy.clock.sleep(backoffDelay(attempts, policy.random01()), policy.signal);
    return true;
  } catch {
    return false;
  }
}

/** One POST, time-boxed, signed for the second it starts in. */
async function attempt(event: Outgoing, n: number, headers: Record<string, string>, policy: DeliveryPolicy): Promise<Attempted> {
  const signal = policy.timer.start();
  try {
    const signed = policy.sign ? { ...headers, [SIGNATURE_HEADER]: signatureOf(event, n, policy.sign, policy.clock) } : headers;
    const { status } = await policy.post(policy.url, event.json, signed, signal);
    return { status };
  } catch (e) {
    return { status: null, error: e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e) };
  } finally {
    policy.timer.end();
  }
}

const secondOf = (clock: Clock) => Math.floor(clock.now() / 1000);

/**
 * Signs an event before its turn (while the handler works on the one before, off the round
 * trip). Kept only when the second did not turn while signing: then it is the value for it.
 */
export function signAhead(event: Outgoing, sign: (body: string) => string, clock: Clock): void {
  if (event.ahead) return;
  const second = secondOf(clock);
  const signature = sign(event.json);
  if (secondOf(clock) === second) event.ahead = { signature, second };
}

/** Each attempt carries the signature of its own second: the one made ahead only when it is still that second. */
function signatureOf(event: Outgoing, n: number, sign: (body: string) => string, clock: Clock): string {
  const { ahead } = event;
  return n === 1 && ahead && ahead.second === secondOf(clock) ? ahead.signature : sign(event.json);
}

/**
 * Time-boxes attempts, one at a time, at no cost per attempt: one AbortController for as long
 * as no attempt is cut off (a new one after), and at most one timer armed, which re-arms for
 * what is left when it fires during a later attempt than the one it was armed for.
 */
export class AttemptTimer {
  private controller = new AbortController();
  /** When the attempt under way started (performance.now()), or undefined between attempts. */
  private startedAt: number | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly timeoutMs: number) {}

  /** An attempt starts: the signal that cuts it off past the time allowed, or at stop(). */
  start(): AbortSignal {
    if (this.controller.signal.aborted) this.controller = new AbortController();
    this.startedAt = performance.now();
    if (!this.timer) this.arm(this.timeoutMs);
    return this.controller.signal;
  }

  end(): void {
    this.startedAt = undefined;
  }

  /** Cuts off the attempt under way (a stop). */
  stop(reason: unknown): void {
    this.controller.abort(reason);
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.check(), Math.max(1, Math.ceil(ms)));
    // The attempt itself (its socket) keeps the process alive, not its timer.
    this.timer.unref();
  }

  private check(): void {
    this.timer = undefined;
    if (this.startedAt === undefined) return;
    const left = this.startedAt + this.timeoutMs - performance.now();
    if (left > 0) return this.arm(left);
    this.controller.abort(new Error(`no answer within ${this.timeoutMs / 1000} s`));
  }
}
