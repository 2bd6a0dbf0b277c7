// Forwarding to every `--forward-to` route at once (tail and replay): one ordered
// Forwarder per route, each delivery signed with the forwarding secret, deliveries given
// up on appended to the dead-letter file, and each event's settlement reported back (the
// checkpoint advances on it).
import { createSecretKey } from 'node:crypto';
import { closeSync, writeSync } from 'node:fs';
import type { Context } from '../../context.js';
import { sanitizeText } from '../../io/sanitize.js';
import { Forwarder, formatDelivery, type DeliveryReport, type PostJson } from './forward.js';
import { routeWants, type ForwardRoute } from './routes.js';
import { signatureValue } from './sign.js';
import { forwardingSecret } from './secret.js';
import { openAppendFile } from './record.js';

export interface DeadLetter {
  /** The event as it was to be delivered. */
  event: unknown;
  url: string;
  /** HTTP status of the last attempt, or null when there was no response. */
  status: number | null;
  error: string | null;
  attempts: number;
  failed_at: string;
}

export interface DeliveriesOptions {
  routes: ForwardRoute[];
  secret: string;
  headers: Record<string, string>;
  deadLetterFile?: string;
  signal: AbortSignal;
  /** A route settled an event (delivered or given up). */
  onSettled?: (eventId: string) => void;
  /** Attempts per delivery and the first retry delay (tests shorten them). */
  attempts?: number;
  retryDelayMs?: number;
}

/** Bytes of a handler's answer read (and dropped) to keep its connection for the next delivery. */
const ANSWER_READ_LIMIT = 64 * 1024;

/**
 * Reads the answer to its end, so the keep-alive connection goes back to the pool (cancelling
 * it would close the socket: a new connection per delivery, ten times slower). An answer
 * longer than the limit is cut instead.
 */
async function drain(body: (AsyncIterable<Uint8Array> & { cancel(): Promise<void> }) | null): Promise<void> {
  if (!body) return;
  let read = 0;
  try {
    for await (const chunk of body) {
      read += chunk.byteLength;
      if (read > ANSWER_READ_LIMIT) {
        await body.cancel().catch(() => {});
        return;
      }
    }
  } catch {
    // The status is what counts; a broken answer body changes nothing.
  }
}

export class Deliveries {
  private readonly forwarders: Array<{ route: ForwardRoute; forwarder: Forwarder }>;
  /** Deliveries given up after their attempts. */
  gaveUp = 0;

  constructor(
    private readonly ctx: Pick<Context, 'http' | 'clock' | 'io'>,
    private readonly opts: DeliveriesOptions,
  ) {
    // Through the context's HTTP (its keep-alive pool), never with the credential.
    const post: PostJson = async (url, body, headers, postSignal) => {
      // A signal per request: the forwarder's lasts for many, and the pool's listeners and
      // AbortSignal.any must not pile up on it.
      const request = new AbortController();
      const onAbort = () => request.abort(postSignal.reason);
      postSignal.addEventListener('abort', onAbort, { once: true });
      if (postSignal.aborted) onAbort();
      try {
        const response = await ctx.http.fetch(url, { method: 'POST', body, headers, signal: request.signal });
        await drain(response.body);
        return { status: response.status };
      } finally {
        postSignal.removeEventListener('abort', onAbort);
      }
    };
    const key = createSecretKey(Buffer.from(opts.secret, 'utf8'));
    const sign = (body: string) => signatureValue(key, body, ctx.clock.now() / 1000);
    this.forwarders = opts.routes.map((route) => ({
      route,
      forwarder: new Forwarder({
        url: route.url,
        post,
        clock: ctx.clock,
        signal: opts.signal,
        headers: opts.headers,
        sign,
        ...(opts.attempts !== undefined ? { attempts: opts.attempts } : {}),
        ...(opts.retryDelayMs !== undefined ? { retryDelayMs: opts.retryDelayMs } : {}),
        settled: (d) => this.settled(route, d),
        // Delivery lines are progress, not events: stderr, so stdout stays one event a line.
        report: (d) => this.ctx.io.stderr.write(formatDelivery(d, route.url) + '\n'),
      }),
    }));
  }

  /** An event settled on a route, before the route's next delivery starts: dead letter, then the checkpoint. */
  private settled(route: ForwardRoute, d: DeliveryReport): void {
    if (!d.ok) {
      this.gaveUp++;
      if (this.opts.deadLetterFile) {
        let event: unknown = d.body;
        try {
          event = JSON.parse(d.body ?? 'null');
        } catch {
          // kept as the text it was
        }
        const letter: DeadLetter = {
          event,
          url: route.url,
          status: d.status,
          error: d.error ?? null,
          attempts: d.attempts,
          failed_at: new Date(this.ctx.clock.now()).toISOString(),
        };
        this.writeDeadLetter(this.opts.deadLetterFile, d.eventId, letter);
      }
    }
    this.opts.onSettled?.(d.eventId);
  }

  /**
   * Appends one letter, opening the file each time (letters are rare) through the own-file
   * guard, so it is still a regular file and not a link. A file that can no longer be written
   * is said on stderr: the delivery still counts as given up, and the tail ends with 1.
   */
  private writeDeadLetter(path: string, eventId: string, letter: DeadLetter): void {
    try {
      const fd = openAppendFile('--dead-letter', path);
      try {
        writeSync(fd, JSON.stringify(letter) + '\n');
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      this.ctx.io.stderr.write(`warning: the dead letter of ${sanitizeText(eventId)} was not written: ${sanitizeText((error as Error).message)}\n`);
    }
  }

  /** How many routes want events of this type. */
  routesFor(type: string): number {
    let n = 0;
    for (const { route } of this.forwarders) if (routeWants(route, type)) n++;
    return n;
  }

  /** Queues the event on every route that wants it; returns how many did. */
  enqueue(id: string, type: string, json: string): number {
    let routes = 0;
    for (const { route, forwarder } of this.forwarders) {
      if (!routeWants(route, type)) continue;
      forwarder.enqueue(id, type, json);
      routes++;
    }
    return routes;
  }

  get full(): boolean {
    return this.forwarders.some(({ forwarder }) => forwarder.full);
  }

  async room(): Promise<void> {
    for (const { forwarder } of this.forwarders) await forwarder.room();
  }

  async drain(): Promise<void> {
    await Promise.all(this.forwarders.map(({ forwarder }) => forwarder.drain()));
  }

  get delivered(): number {
    return this.forwarders.reduce((n, { forwarder }) => n + forwarder.delivered, 0);
  }
  get failed(): number {
    return this.forwarders.reduce((n, { forwarder }) => n + forwarder.failed, 0);
  }
  get unsent(): number {
    return this.forwarders.reduce((n, { forwarder }) => n + forwarder.unsent, 0);
  }

  /** The stderr line that announces forwarding: the routes, never the secret. */
  describe(secretSource: string): string {
    const routes = this.opts.routes.map((r) => (r.patterns.length ? r.label : `${r.url} (every event)`)).join(', ');
    return `Forwarding to ${routes}, signed with ${secretSource} (svc events tail --print-secret shows it)`;
  }
}

/**
 * The deliveries of `--forward-to` routes (tail and replay), signed with the forwarding
 * secret, announced on stderr; undefined without a route.
 */
export async function openDeliveries(
  ctx: Pick<Context, 'http' | 'clock' | 'io'> & Parameters<typeof forwardingSecret>[0],
  opts: { routes: ForwardRoute[]; forwardHeaders: Record<string, string>; deadLetter?: string | undefined },
  signal: AbortSignal,
  onSettled?: (eventId: string) => void,
): Promise<Deliveries | undefined> {
  if (!opts.routes.length) return undefined;
  const secret = await forwardingSecret(ctx);
  const deliveries = new Deliveries(ctx, {
    routes: opts.routes,
    secret: secret.secret,
    headers: opts.forwardHeaders,
    signal,
    ...(opts.deadLetter ? { deadLetterFile: opts.deadLetter } : {}),
    ...(onSettled ? { onSettled } : {}),
  });
  ctx.io.stderr.write(deliveries.describe(secret.source === 'env' ? 'SVC_FORWARD_SECRET' : `the forwarding secret of profile "${secret.profile}"`) + '\n');
  return deliveries;
}
