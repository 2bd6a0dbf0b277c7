// The Forwarder alone (src/events/forward.ts): the ordered, bounded queue of one
// route's deliveries, over an in-memory transport and a virtual clock. Events in; what a
// user sees out: what the handler receives and in which order, the settled and reported
// deliveries, the reader held back by a full queue, and what a stop leaves unsent.
import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../src/api/retry.js';
import { formatDelivery } from '../../src/events/format.js';
import { Forwarder, type DeliveryReport, type ForwarderOptions, type PostJson } from '../../src/events/forward.js';
import { virtualClock } from '../helpers/clock.js';

const URL_ = 'http://127.0.0.1:3000/hook';
const idle = () => new Promise((resolve) => setImmediate(resolve));

/** A handler in memory: answers each POST with `answer`'s status (or its error), and keeps what it was sent. */
function handler(answer: (n: number, eventId: string) => number | Error = () => 200) {
  const posts: Array<{ eventId: string; headers: Record<string, string>; body: string }> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const post: PostJson = async (_url, body, headers) => {
    posts.push({ eventId: headers['svc-event-id']!, headers, body });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await idle();
    inFlight--;
    const answered = answer(posts.length, headers['svc-event-id']!);
    if (answered instanceof Error) throw answered;
    return { status: answered };
  };
  return { post, posts, maxInFlight: () => maxInFlight };
}

function forwarderOf(post: PostJson, overrides: Partial<ForwarderOptions> = {}) {
  const clock = virtualClock();
  const sleeps: number[] = [];
  const reports: DeliveryReport[] = [];
  const forwarder = new Forwarder({
    url: URL_,
    post,
    clock: { now: clock.now, sleep: (ms, signal) => (sleeps.push(ms), clock.sleep(ms, signal)) },
    random01: () => 0.5,
    signal: new AbortController().signal,
    report: (d) => reports.push(d),
    ...overrides,
  });
  const enqueue = (...ids: number[]) => ids.forEach((n) => forwarder.enqueue(`evt_${n}`, 'call.started', JSON.stringify({ id: `evt_${n}` })));
  return { forwarder, enqueue, reports, sleeps };
}

describe('Forwarder', () => {
  it('delivers one event at a time, in order, with its id and type headers; a failed attempt is retried before the next event', async () => {
    // Every third POST fails once: each event still arrives exactly once, in order.
    const h = handler((n) => (n % 3 === 0 ? 500 : 200));
    const f = forwarderOf(h.post);
    f.enqueue(...Array.from({ length: 20 }, (_, i) => i + 1));
    await f.forwarder.drain();
    const delivered = h.posts.filter((_p, i) => (i + 1) % 3 !== 0);
    expect(delivered.map((p) => p.eventId)).toEqual(Array.from({ length: 20 }, (_, i) => `evt_${i + 1}`));
    expect(h.posts[0]!.headers).toMatchObject({ 'content-type': 'application/json', 'svc-event-id': 'evt_1', 'svc-event-type': 'call.started' });
    expect(JSON.parse(h.posts[4]!.body)).toEqual({ id: 'evt_4' });
    expect(h.maxInFlight()).toBe(1);
    expect(f.reports.map((d) => d.eventId)).toEqual(delivered.map((p) => p.eventId));
    expect(f.reports.every((d) => d.ok)).toBe(true);
    expect(f.forwarder.delivered).toBe(20);
  });

  it('waits between attempts with the backoff of every retry in svc (backoffDelay), then gives up and goes on with the next', async () => {
    const h = handler((_n, id) => (id === 'evt_2' ? 503 : 200));
    const f = forwarderOf(h.post, { attempts: 4 });
    f.enqueue(1, 2, 3);
    await f.forwarder.drain();
    expect(f.sleeps).toEqual([1, 2, 3].map((attempt) => backoffDelay(attempt, 0.5)));
    expect(h.posts.map((p) => p.eventId)).toEqual(['evt_1', 'evt_2', 'evt_2', 'evt_2', 'evt_2', 'evt_3']);
    expect(f.reports[1]).toMatchObject({ eventId: 'evt_2', ok: false, status: 503, attempts: 4, body: '{"id":"evt_2"}' });
    expect([f.forwarder.delivered, f.forwarder.failed]).toEqual([2, 1]);
    expect(formatDelivery(f.reports[1]!, URL_)).toBe(`→ 503 POST ${URL_} evt_2 call.started after 4 attempts — gave up`);
  });

  it('an endpoint that cannot be reached: each event given up without a status, the reason said, the queue still moves', async () => {
    const refused = Object.assign(new Error('fetch failed'), { cause: new Error('connect ECONNREFUSED 127.0.0.1:3000') });
    const h = handler(() => refused);
    const f = forwarderOf(h.post, { attempts: 2 });
    f.enqueue(1, 2);
    await f.forwarder.drain();
    expect(f.reports.map((d) => [d.eventId, d.status, d.attempts, d.ok])).toEqual([
      ['evt_1', null, 2, false],
      ['evt_2', null, 2, false],
    ]);
    expect(formatDelivery(f.reports[0]!, URL_)).toBe(
      `→ failed (connect ECONNREFUSED 127.0.0.1:3000) POST ${URL_} evt_1 call.started after 2 attempts — gave up`,
    );
  });

  it('is bounded: full at maxQueued, and room() waits for a delivery to finish', async () => {
    const answers: Array<() => void> = [];
    const slow: PostJson = () => new Promise((resolve) => answers.push(() => resolve({ status: 200 })));
    const f = forwarderOf(slow, { maxQueued: 3 });
    f.enqueue(1, 2, 3);
    expect(f.forwarder.full).toBe(true);
    // Everything here is in memory: one turn of the event loop settles whatever can settle without an answer.
    const order: string[] = [];
    const room = f.forwarder.room().then(() => order.push('room'));
    await idle();
    order.push('answered');
    answers.shift()!(); // evt_1 delivered: one place free
    await room;
    expect(order).toEqual(['answered', 'room']);
    expect(f.forwarder.full).toBe(false);
    expect(f.forwarder.delivered).toBe(1);
    while (f.forwarder.queued > 0) {
      await idle();
      answers.shift()?.();
    }
    expect(f.forwarder.delivered).toBe(3);
  });

  it('drain() waits for every queued event to be delivered or given up', async () => {
    const h = handler((_n, id) => (id === 'evt_3' ? 500 : 200));
    const f = forwarderOf(h.post, { attempts: 2 });
    f.enqueue(1, 2, 3, 4, 5);
    expect(f.forwarder.queued).toBe(5);
    await f.forwarder.drain();
    expect(f.forwarder.queued).toBe(0);
    expect(f.reports.map((d) => `${d.eventId} ${d.ok}`)).toEqual(['evt_1 true', 'evt_2 true', 'evt_3 false', 'evt_4 true', 'evt_5 true']);
  });

  it('a stop (Ctrl-C) frees the waiting reader and counts the rest as unsent, with no "gave up" report', async () => {
    const controller = new AbortController();
    const hanging: PostJson = (_url, _body, _headers, signal) =>
      new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
    const f = forwarderOf(hanging, { signal: controller.signal, maxQueued: 2 });
    f.enqueue(1, 2);
    const room = f.forwarder.room();
    controller.abort();
    await room;
    await f.forwarder.drain();
    expect(f.forwarder.unsent).toBe(2);
    expect(f.forwarder.abandoned).toBe(2);
    expect(f.forwarder.failed).toBe(0);
    expect(f.reports).toEqual([]);
  });

  it('a stop during the wait before a retry ends it at once: the event is unsent, not given up', async () => {
    const controller = new AbortController();
    const h = handler(() => 500);
    const clock = virtualClock();
    const reports: DeliveryReport[] = [];
    const forwarder = new Forwarder({
      url: URL_,
      post: h.post,
      // The first wait never ends by itself: only the stop can end it.
      clock: { now: clock.now, sleep: (_ms, signal) => new Promise((_resolve, reject) => signal!.addEventListener('abort', () => reject(signal!.reason))) },
      random01: () => 0,
      signal: controller.signal,
      report: (d) => reports.push(d),
    });
    forwarder.enqueue('evt_1', 'call.started', '{}');
    while (h.posts.length === 0) await idle();
    await idle();
    controller.abort();
    await forwarder.drain();
    expect([forwarder.failed, forwarder.abandoned, forwarder.unsent]).toEqual([0, 1, 1]);
    expect(h.posts).toHaveLength(1);
    expect(reports).toEqual([]);
  });

  it('settles an event before the next is sent, and reports it, in order, once the next is on its way', async () => {
    const log: string[] = [];
    const post: PostJson = async (_url, body) => {
      log.push(`post ${JSON.parse(body).id}`);
      await idle();
      return { status: 200 };
    };
    const f = forwarderOf(post, { settled: (d) => log.push(`settled ${d.eventId}`), report: (d) => log.push(`report ${d.eventId}`) });
    f.enqueue(1, 2, 3);
    await f.forwarder.drain();
    expect(log).toEqual([
      'post evt_1',
      'settled evt_1',
      'post evt_2',
      'report evt_1',
      'settled evt_2',
      'post evt_3',
      'report evt_2',
      'settled evt_3',
      'report evt_3',
    ]);
  });

  it('every attempt carries the signature of its own second, even when the next event was signed ahead', async () => {
    let now = 1_000_000_000_000;
    const sent: Array<{ signature: string; second: number }> = [];
    let n = 0;
    const post: PostJson = async (_url, _body, headers) => {
      sent.push({ signature: headers['svc-signature']!, second: Math.floor(now / 1000) });
      await idle();
      // Time passes while the handler works: 0.6 s a request, so the second often turns in between.
      now += 600;
      return { status: ++n % 4 === 0 ? 500 : 200 };
    };
    const reports: DeliveryReport[] = [];
    const f = new Forwarder({
      url: URL_,
      post,
      clock: { now: () => now, sleep: (ms) => idle().then(() => void (now += ms)) },
      random01: () => 0.5,
      signal: new AbortController().signal,
      report: (d) => reports.push(d),
      sign: (body) => `t=${Math.floor(now / 1000)},body=${body}`,
    });
    for (let i = 1; i <= 12; i++) f.enqueue(`evt_${i}`, 'call.started', `{"n":${i}}`);
    await f.drain();
    expect(f.delivered).toBe(12);
    expect(sent.length).toBeGreaterThan(12);
    for (const { signature, second } of sent) expect(signature).toMatch(new RegExp(`^t=${second},`));
  });

  it('a report that cannot be written (stderr gone) is the failure drain() throws', async () => {
    const gone = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
    const f = forwarderOf(handler().post, {
      report: () => {
        throw gone;
      },
    });
    f.enqueue(1, 2);
    await expect(f.forwarder.drain()).rejects.toBe(gone);
  });
});
