import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/context.js';
import { Forwarder, formatDelivery, type DeliveryReport, type PostJson } from '../../src/commands/events/forward.js';

const clock: Clock = { now: () => Date.now(), sleep: (ms, signal) => delay(ms, undefined, { signal }) };

// The forwarder's own tests post with the global fetch to a real local server;
// the command wires the context's HTTP in its place.
const post: PostJson = async (url, body, headers, signal) => {
  const res = await fetch(url, { method: 'POST', body, headers, signal });
  await res.arrayBuffer();
  return { status: res.status };
};

const closers: Array<() => void> = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

async function receiver(answer: (n: number, req: IncomingMessage, body: string) => number) {
  const received: Array<{ id: string | undefined; type: string | undefined; body: string }> = [];
  let n = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const status = answer(++n, req, body);
      if (status >= 200 && status < 300) {
        received.push({ id: req.headers['svc-event-id'] as string, type: req.headers['content-type'], body });
      }
      res.statusCode = status;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => server.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, requests: () => n };
}

describe('Forwarder', () => {
  it('delivers in order with the event id header, retrying failed deliveries', async () => {
    // Every third request fails once: each event still arrives exactly once, in order.
    const r = await receiver((n) => (n % 3 === 0 ? 500 : 200));
    const reports: DeliveryReport[] = [];
    const f = new Forwarder({ url: r.url, post, clock, signal: new AbortController().signal, report: (d) => reports.push(d), retryDelayMs: 5 });
    for (let i = 1; i <= 20; i++) f.enqueue(`evt_${i}`, 'call.started', JSON.stringify({ id: `evt_${i}`, type: 'call.started' }));
    await f.drain();
    expect(r.received.map((x) => x.id)).toEqual(Array.from({ length: 20 }, (_, i) => `evt_${i + 1}`));
    expect(r.received.every((x) => x.type === 'application/json')).toBe(true);
    expect(JSON.parse(r.received[4]!.body)).toEqual({ id: 'evt_5', type: 'call.started' });
    expect(reports.every((d) => d.ok)).toBe(true);
    expect(reports.some((d) => d.attempts === 2)).toBe(true);
    expect(f.delivered).toBe(20);
    expect(r.requests()).toBeGreaterThan(20);
  });

  it('gives up on an event after its attempts and goes on with the next', async () => {
    const r = await receiver((_n, _req, body) => (body.includes('evt_bad') ? 503 : 200));
    const reports: DeliveryReport[] = [];
    const f = new Forwarder({ url: r.url, post, clock, signal: new AbortController().signal, report: (d) => reports.push(d), attempts: 3, retryDelayMs: 5 });
    f.enqueue('evt_1', 'call.started', '{"id":"evt_1"}');
    f.enqueue('evt_bad', 'call.ended', '{"id":"evt_bad"}');
    f.enqueue('evt_2', 'call.ended', '{"id":"evt_2"}');
    await f.drain();
    expect(r.received.map((x) => x.id)).toEqual(['evt_1', 'evt_2']);
    expect(reports[1]).toMatchObject({ eventId: 'evt_bad', ok: false, status: 503, attempts: 3 });
    expect(f.failed).toBe(1);
    expect(formatDelivery(reports[1]!, r.url)).toMatch(/503 POST .* evt_bad call\.ended after 3 attempts — gave up/);
  });

  it('is bounded: full at maxQueued, room() waits for a delivery to finish', async () => {
    const answers: Array<() => void> = [];
    const slowPost: PostJson = () => new Promise((resolve) => answers.push(() => resolve({ status: 200 })));
    const f = new Forwarder({ url: 'http://127.0.0.1:9/hook', post: slowPost, clock, signal: new AbortController().signal, report: () => {}, maxQueued: 3 });
    for (let i = 1; i <= 3; i++) f.enqueue(`evt_${i}`, 'call.started', '{}');
    expect(f.full).toBe(true);
    // Everything here is in memory: one turn of the event loop settles whatever can settle without an answer.
    const order: string[] = [];
    const room = f.room().then(() => order.push('room'));
    await new Promise((resolve) => setImmediate(resolve));
    order.push('answered');
    answers.shift()!(); // evt_1 delivered: one place free
    await room;
    expect(order).toEqual(['answered', 'room']);
    expect(f.full).toBe(false);
    expect(f.delivered).toBe(1);
    while (f.queued > 0) {
      await delay(5);
      answers.shift()?.();
    }
    expect(f.delivered).toBe(3);
  });

  it('a stop (Ctrl-C) frees the waiting reader and counts the rest as unsent, with no "gave up" report', async () => {
    const controller = new AbortController();
    const hanging: PostJson = (_url, _body, _headers, signal) =>
      new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
    const reports: DeliveryReport[] = [];
    const f = new Forwarder({ url: 'http://127.0.0.1:9/hook', post: hanging, clock, signal: controller.signal, report: (d) => reports.push(d), maxQueued: 2 });
    f.enqueue('evt_1', 'call.started', '{}');
    f.enqueue('evt_2', 'call.started', '{}');
    const room = f.room();
    controller.abort();
    await room;
    expect(f.unsent).toBe(2);
    await f.drain();
    expect(f.unsent).toBe(2);
    expect(f.abandoned).toBe(2);
    expect(f.failed).toBe(0);
    expect(reports).toEqual([]);
  });

  it('an attempt with no answer is cut off after attemptTimeoutMs and retried with a signal of its own', async () => {
    const signals: AbortSignal[] = [];
    const post: PostJson = (_url, _body, _headers, signal) => {
      signals.push(signal);
      // The first attempt never answers; the next ones do.
      if (signals.length === 1) return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
      return Promise.resolve({ status: 200 });
    };
    const reports: DeliveryReport[] = [];
    const settled: string[] = [];
    const f = new Forwarder({
      url: 'http://127.0.0.1:9/hook',
      post,
      clock,
      signal: new AbortController().signal,
      report: (d) => reports.push(d),
      settled: (d) => settled.push(d.eventId),
      attemptTimeoutMs: 50,
      retryDelayMs: 5,
    });
    const started = performance.now();
    f.enqueue('evt_1', 'call.started', '{}');
    f.enqueue('evt_2', 'call.started', '{}');
    await f.drain();
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(signals[0]!.aborted).toBe(true);
    expect((signals[0]!.reason as Error).message).toBe('no answer within 0.05 s');
    expect(signals[1]!.aborted).toBe(false);
    expect(reports.map((d) => [d.eventId, d.attempts, d.ok])).toEqual([
      ['evt_1', 2, true],
      ['evt_2', 1, true],
    ]);
    expect(settled).toEqual(['evt_1', 'evt_2']);
  });

  it('settles an event before the next is sent, and reports it, in order, once the next is on its way', async () => {
    const log: string[] = [];
    const post: PostJson = async (_url, body) => {
      log.push(`post ${JSON.parse(body).id}`);
      await delay(1);
      return { status: 200 };
    };
    const f = new Forwarder({
      url: 'http://127.0.0.1:9/hook',
      post,
      clock,
      signal: new AbortController().signal,
      settled: (d) => log.push(`settled ${d.eventId}`),
      report: (d) => log.push(`report ${d.eventId}`),
    });
    for (let i = 1; i <= 3; i++) f.enqueue(`evt_${i}`, 'call.started', JSON.stringify({ id: `evt_${i}` }));
    await f.drain();
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

  it('every attempt carries the signature of its own second, even when the next one was signed ahead', async () => {
    let now = 1_000_000_000_000;
    const fakeClock: Clock = { now: () => now, sleep: (ms, signal) => delay(1, undefined, { signal }).then(() => void (now += ms)) };
    const sign = (body: string) => `t=${Math.floor(fakeClock.now() / 1000)},body=${body}`;
    const sent: Array<{ signature: string; second: number }> = [];
    let n = 0;
    const post: PostJson = async (_url, _body, headers) => {
      sent.push({ signature: headers['svc-signature']!, second: Math.floor(now / 1000) });
      await delay(1);
      // Time passes while the handler works: 0.6 s a request, so the second often turns in between.
      now += 600;
      return { status: ++n % 4 === 0 ? 500 : 200 };
    };
    const f = new Forwarder({
      url: 'http://127.0.0.1:9/hook',
      post,
      clock: fakeClock,
      signal: new AbortController().signal,
      report: () => {},
      sign,
      retryDelayMs: 1000,
    });
    for (let i = 1; i <= 12; i++) f.enqueue(`evt_${i}`, 'call.started', `{"n":${i}}`);
    await f.drain();
    expect(f.delivered).toBe(12);
    expect(sent.length).toBeGreaterThan(12);
    for (const { signature, second } of sent) expect(signature).toMatch(new RegExp(`^t=${second},`));
  });

  it('reports a delivery to a closed port as failed without a status', async () => {
    const r = await receiver(() => 200);
    closers.splice(0).forEach((close) => close());
    const reports: DeliveryReport[] = [];
    const f = new Forwarder({ url: r.url, post, clock, signal: new AbortController().signal, report: (d) => reports.push(d), attempts: 2, retryDelayMs: 5 });
    f.enqueue('evt_1', 'call.started', '{}');
    await f.drain();
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ ok: false, status: null, attempts: 2 });
    expect(formatDelivery(reports[0]!, r.url)).toMatch(/failed \(/);
  });
});
