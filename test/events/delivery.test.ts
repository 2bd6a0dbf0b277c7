// One event's delivery alone (src/events/delivery.ts): its attempts, their time
// box, their signatures and their backoff, over an in-memory transport.
import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../src/api/retry.js';
import { AttemptTimer, deliver, signAhead, type DeliveryPolicy, type Outgoing, type PostJson } from '../../src/events/delivery.js';
import { virtualClock } from '../helpers/clock.js';

function policyOf(post: PostJson, overrides: Partial<DeliveryPolicy> = {}): DeliveryPolicy {
  return {
    url: 'http://127.0.0.1:3000/hook',
    post,
    clock: virtualClock(),
    random01: () => 0.25,
    signal: new AbortController().signal,
    attempts: 4,
    headers: undefined,
    sign: undefined,
    timer: new AttemptTimer(10_000),
    ...overrides,
  };
}

const event = (): Outgoing => ({ eventId: 'evt_1', type: 'call.ended', json: '{"id":"evt_1"}' });

describe('one delivery', () => {
  it('retries until an answer is 2xx, waiting backoffDelay between attempts; --forward-header headers go with each', async () => {
    const clock = virtualClock();
    const statuses = [502, 500, 204];
    const seen: Array<Record<string, string>> = [];
    const post: PostJson = async (_url, _body, headers) => {
      seen.push(headers);
      return { status: statuses.shift()! };
    };
    const report = await deliver(event(), policyOf(post, { clock, headers: { 'x-tenant': 'acme' } }));
    expect(report).toEqual({ eventId: 'evt_1', type: 'call.ended', status: 204, attempts: 3, ok: true });
    expect(clock.elapsed()).toBe(backoffDelay(1, 0.25) + backoffDelay(2, 0.25));
    expect(seen.every((h) => h['x-tenant'] === 'acme' && h['svc-event-id'] === 'evt_1')).toBe(true);
  });

  it('an attempt with no answer is cut off after the time allowed, and the next one gets a signal of its own', async () => {
    const signals: AbortSignal[] = [];
    const post: PostJson = (_url, _body, _headers, signal) => {
      signals.push(signal);
      // The first attempt never answers; the next one does.
      if (signals.length === 1) return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
      return Promise.resolve({ status: 200 });
    };
    const report = await deliver(event(), policyOf(post, { timer: new AttemptTimer(50) }));
    expect(report).toMatchObject({ ok: true, attempts: 2 });
    expect((signals[0]!.reason as Error).message).toBe('no answer within 0.05 s');
    expect(signals[1]!.aborted).toBe(false);
  });

  it('the last failure is the report: its status, or the reason when nothing answered, and the body for the dead letter', async () => {
    const reset = Object.assign(new Error('fetch failed'), { cause: new Error('socket hang up') });
    let n = 0;
    const post: PostJson = async () => {
      if (++n === 1) return { status: 500 };
      throw reset;
    };
    expect(await deliver(event(), policyOf(post, { attempts: 2 }))).toEqual({
      eventId: 'evt_1',
      type: 'call.ended',
      status: null,
      attempts: 2,
      ok: false,
      error: 'socket hang up',
      body: '{"id":"evt_1"}',
    });
  });

  it('a signature made ahead is used only in the second it was made for; a retry is signed anew', async () => {
    let now = 1_700_000_000_200;
    const clock = { now: () => now, sleep: async (ms: number) => void (now += ms) };
    let signed = 0;
    const sign = (body: string) => `t=${Math.floor(now / 1000)},n=${++signed},${body}`;
    const sent: string[] = [];
    const answers = [500, 200];
    const post: PostJson = async (_url, _body, headers) => {
      sent.push(headers['svc-signature']!);
      return { status: answers.shift()! };
    };

    const ahead = event();
    signAhead(ahead, sign, clock);
    expect(ahead.ahead?.signature).toMatch(/^t=1700000000,n=1,/);
    await deliver(ahead, policyOf(post, { clock, sign }));
    // The first attempt in the same second: the value made ahead; the retry after the backoff: a new one.
    expect(sent[0]).toBe(ahead.ahead!.signature);
    expect(sent[1]).toMatch(new RegExp(`^t=${Math.floor(now / 1000)},n=2,`));

    const stale = event();
    signAhead(stale, sign, clock);
    now += 1000;
    answers.push(200);
    await deliver(stale, policyOf(post, { clock, sign }));
    expect(sent[2]).toMatch(new RegExp(`^t=${Math.floor(now / 1000)},n=4,`));
  });

  it('a stop before or between attempts: no report (neither delivered nor given up)', async () => {
    const stop = new AbortController();
    const post: PostJson = async () => {
      stop.abort();
      return { status: 500 };
    };
    expect(await deliver(event(), policyOf(post, { signal: stop.signal }))).toBeNull();
  });
});
