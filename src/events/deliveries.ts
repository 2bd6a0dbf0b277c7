// Forwarding to every `--forward-to` route at once (tail and replay): one ordered Forwarder
// per route; each delivery given up on appended to the dead-letter file; each event's
// settlement reported back (the checkpoint advances on it). Handed its transport, signer
// and stderr, so it is tested alone (test/events/deliveries.test.ts); openDeliveries wires
// it to the context.
import type { Context } from '../context.js';
import { CliError } from '../errors.js';
import { random01From } from '../api/retry.js';
import type { Clock } from '../shared/runtime.js';
import { sanitizeText } from '../io/sanitize.js';
import { appendDeadLetter, deadLetterOf } from './dead-letter.js';
import type { DeliveryReport, PostJson } from './delivery.js';
import { formatDelivery } from './format.js';
import { Forwarder } from './forward.js';
import { pooledPost } from './post.js';
import { routeWants, type ForwardRoute } from './routes.js';
import { forwardingSecret } from './secret.js';
import { signer } from './sign.js';

export type { DeadLetter } from './dead-letter.js';

export interface DeliveriesOptions {
  routes: ForwardRoute[];
  post: PostJson;
  /** The `Svc-Signature` of a body at the clock's current second. */
  sign: (body: string) => string;
  headers: Record<string, string>;
  deadLetterFile?: string;
  clock: Clock;
  random01: () => number;
  signal: AbortSignal;
  /** A line of stderr (the deliveries' progress and warnings), without its newline. */
  progress: (line: string) => void;
  /** A route settled an event (delivered or given up). */
  onSettled?: (eventId: string) => void;
  /** Attempts per delivery (tests shorten them). */
  attempts?: number;
  /** Events queued per route before the reader waits (tests shorten it). */
  maxQueued?: number;
}

export class Deliveries {
  private readonly forwarders: Array<{ route: ForwardRoute; forwarder: Forwarder }>;
  /** Deliveries given up after their attempts. */
  gaveUp = 0;
  /** Of those, the ones whose dead letter could not be written. */
  lettersLost = 0;

  constructor(private readonly opts: DeliveriesOptions) {
    this.forwarders = opts.routes.map((route) => ({
      route,
      forwarder: new Forwarder({
        url: route.url,
        post: opts.post,
        clock: opts.clock,
        random01: opts.random01,
        signal: opts.signal,
        headers: opts.headers,
        sign: opts.sign,
        ...(opts.attempts !== undefined ? { attempts: opts.attempts } : {}),
        ...(opts.maxQueued !== undefined ? { maxQueued: opts.maxQueued } : {}),
        settled: (d) => this.settled(route, d),
        // Delivery lines are progress, not events: stderr, so stdout stays one event a line.
        report: (d) => opts.progress(formatDelivery(d, route.url)),
      }),
    }));
  }

  /** An event settled on a route, before the route's next delivery starts: dead letter, then the checkpoint. */
  private settled(route: ForwardRoute, d: DeliveryReport): void {
    if (!d.ok) {
      this.gaveUp++;
      if (this.opts.deadLetterFile) this.keepDeadLetter(this.opts.deadLetterFile, route, d);
    }
    this.opts.onSettled?.(d.eventId);
  }

  /**
   * A file that can no longer be written is said on stderr: the delivery still counts as
   * given up, and the tail ends with 1.
   */
  private keepDeadLetter(path: string, route: ForwardRoute, d: DeliveryReport): void {
    try {
      appendDeadLetter(path, deadLetterOf(d, route.url, this.opts.clock.now()));
    } catch (error) {
      this.lettersLost++;
      const hint = error instanceof CliError && error.hint ? ` (${error.hint})` : '';
      this.opts.progress(`warning: the dead letter of ${sanitizeText(d.eventId)} was not written: ${sanitizeText((error as Error).message)}${hint}`);
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
 * The deliveries of `--forward-to` routes (tail and replay), through the context's HTTP pool,
 * signed with the forwarding secret, announced on stderr; undefined without a route.
 */
export async function openDeliveries(
  ctx: Pick<Context, 'http' | 'clock' | 'random' | 'io'> & Parameters<typeof forwardingSecret>[0],
  opts: { routes: ForwardRoute[]; forwardHeaders: Record<string, string>; deadLetter?: string | undefined },
  signal: AbortSignal,
  onSettled?: (eventId: string) => void,
): Promise<Deliveries | undefined> {
  if (!opts.routes.length) return undefined;
  const secret = await forwardingSecret(ctx);
  const deliveries = new Deliveries({
    routes: opts.routes,
    post: pooledPost(ctx.http),
    sign: signer(secret.secret, ctx.clock),
    headers: opts.forwardHeaders,
    clock: ctx.clock,
    random01: () => random01From(ctx.random.bytes(3)),
    signal,
    progress: (line) => ctx.io.stderr.write(line + '\n'),
    ...(opts.deadLetter ? { deadLetterFile: opts.deadLetter } : {}),
    ...(onSettled ? { onSettled } : {}),
  });
  ctx.io.stderr.write(deliveries.describe(secret.source === 'env' ? 'SVC_FORWARD_SECRET' : `the forwarding secret of profile "${secret.profile}"`) + '\n');
  return deliveries;
}
