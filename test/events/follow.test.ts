import { describe, expect, it } from 'vitest';
import { follow, type FollowOptions, type OpenStream } from '../../src/api/reconnect.js';
import { virtualClock } from '../helpers/clock.js';

// Every test runs on a virtual clock: heartbeats and timeouts pass in no real time, in a fixed order.

const encoder = new TextEncoder();
const frame = (n: number) => encoder.encode(`id: evt_${n}\nevent: call.started\ndata: {"id":"evt_${n}"}\n\n`);

class Retryable extends Error {}

/** A server holding events 1..total; each connection runs `behaviour` after the events it chooses to send. */
function server(total: number, plan: Array<{ send: number; then: 'error' | 'end' | 'stall' }>) {
  const seenLastIds: Array<string | undefined> = [];
  let connection = 0;
  const open: OpenStream = async (lastEventId, signal) => {
    seenLastIds.push(lastEventId);
    const step = plan[connection++] ?? { send: Infinity, then: 'end' as const };
    const from = lastEventId ? Number(lastEventId.slice(4)) + 1 : 1;
    async function* body(): AsyncGenerator<Uint8Array> {
      let sent = 0;
      for (let n = from; n <= total && sent < step.send; n++, sent++) yield frame(n);
      if (step.then === 'error') throw new Retryable('socket hang up');
      if (step.then === 'stall') {
        await stalled(signal);
      }
    }
    return { body: body() };
  };
  return { open, seenLastIds };
}

/** A connection that sends nothing more until it is aborted (at once if it already was). */
function stalled(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) return reject(new Retryable('aborted'));
    signal.addEventListener('abort', () => reject(new Retryable('aborted')), { once: true });
  });
}

function options(open: OpenStream, overrides: Partial<FollowOptions> = {}) {
  const clock = virtualClock();
  const got: string[] = [];
  const reconnected: number[] = [];
  const opts: FollowOptions = {
    open,
    onMessage: (m) => {
      got.push(m.id ?? '');
      return 'continue';
    },
    isRetryable: (e) => e instanceof Retryable,
    clock,
    random01: () => 0,
    signal: new AbortController().signal,
    timeoutMs: 300,
    heartbeatMs: 150,
    onReconnected: (info) => reconnected.push(info.attempts),
    ...overrides,
  };
  return { opts, got, reconnected, clock };
}

const ids = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `evt_${from + i}`);

describe('follow', () => {
  it('a handler holding the stream (backpressure) longer than the heartbeat is not taken for a silent server', async () => {
    // Like a real connection, an aborted one yields nothing more.
    const seenLastIds: Array<string | undefined> = [];
    const open: OpenStream = async (lastEventId, signal) => {
      seenLastIds.push(lastEventId);
      const from = lastEventId ? Number(lastEventId.slice(4)) + 1 : 1;
      async function* body(): AsyncGenerator<Uint8Array> {
        for (let n = from; n <= 4; n++) {
          if (signal.aborted) throw new Retryable('aborted');
          yield frame(n);
        }
        await stalled(signal);
      }
      return { body: body() };
    };
    const { opts, got, clock } = options(open, { timeoutMs: 2000, heartbeatMs: 100 });
    opts.onMessage = async (m) => {
      got.push(m.id ?? '');
      if (m.id === 'evt_2') await clock.sleep(350); // three heartbeats without reading
      return got.length === 4 ? ('stop' as const) : ('continue' as const);
    };
    const result = await follow(opts);
    expect(result).toMatchObject({ outcome: 'stopped', reconnects: 0 });
    expect(got).toEqual(ids(1, 4));
    expect(seenLastIds).toEqual([undefined]);
  });

  it('a stop while a handler holds the stream hands on nothing that was already buffered', async () => {
    const s = server(10, [{ send: 99, then: 'stall' }]);
    const controller = new AbortController();
    const { opts, got, clock } = options(s.open, { signal: controller.signal, timeoutMs: 2000 });
    opts.onMessage = async (m) => {
      got.push(m.id ?? '');
      if (m.id === 'evt_3') {
        controller.abort();
        await clock.sleep(10);
      }
      return 'continue' as const;
    };
    const result = await follow(opts);
    expect(result.outcome).toBe('aborted');
    expect(got).toEqual(ids(1, 3));
  });

  it('resumes after dropped connections with Last-Event-ID, losing and repeating nothing', async () => {
    const s = server(10, [
      { send: 3, then: 'error' },
      { send: 4, then: 'end' },
      { send: 99, then: 'stall' },
    ]);
    const { opts, got, reconnected } = options(s.open, { timeoutMs: 2000 });
    let count = 0;
    opts.onMessage = (m) => {
      got.push(m.id ?? '');
      return ++count === 10 ? 'stop' : 'continue';
    };
    const result = await follow(opts);
    expect(result).toMatchObject({ outcome: 'stopped', lastEventId: 'evt_10', reconnects: 2 });
    expect(got).toEqual(ids(1, 10));
    expect(s.seenLastIds).toEqual([undefined, 'evt_3', 'evt_7']);
    expect(reconnected).toEqual([1, 1]);
  });

  it('sends --since as Last-Event-ID on the first connection', async () => {
    const s = server(5, [{ send: 99, then: 'end' }]);
    const { opts, got } = options(s.open, { lastEventId: 'evt_2' });
    let count = 0;
    opts.onMessage = (m) => (got.push(m.id ?? ''), ++count === 3 ? 'stop' : 'continue');
    await follow(opts);
    expect(s.seenLastIds[0]).toBe('evt_2');
    expect(got).toEqual(ids(3, 5));
  });

  it('reconnects when a connection goes silent past the heartbeat timeout', async () => {
    const s = server(4, [
      { send: 2, then: 'stall' },
      { send: 99, then: 'stall' },
    ]);
    const { opts, got } = options(s.open, { heartbeatMs: 100, timeoutMs: 5000 });
    let count = 0;
    opts.onMessage = (m) => (got.push(m.id ?? ''), ++count === 4 ? 'stop' : 'continue');
    const lost: string[] = [];
    opts.onLost = (reason) => lost.push(reason);
    const result = await follow(opts);
    expect(result.outcome).toBe('stopped');
    expect(got).toEqual(ids(1, 4));
    expect(s.seenLastIds).toEqual([undefined, 'evt_2']);
    expect(lost[0]).toMatch(/no data/);
  });

  it('gives up after the timeout without a connection', async () => {
    let tries = 0;
    const open: OpenStream = async () => {
      tries++;
      throw new Retryable('connect ECONNREFUSED');
    };
    const { opts, clock } = options(open, { timeoutMs: 400 });
    const result = await follow(opts);
    expect(result).toMatchObject({ outcome: 'timed-out', awayMs: 400 });
    expect(clock.elapsed()).toBe(400);
    expect(tries).toBeGreaterThan(1);
  });

  it('gives up when a connection attempt hangs past the timeout', async () => {
    const open: OpenStream = (_id, signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));
    const { opts, clock } = options(open, { timeoutMs: 200, heartbeatMs: 10_000 });
    const result = await follow(opts);
    expect(result.outcome).toBe('timed-out');
    expect(clock.elapsed()).toBe(200);
  });

  it('lets an error that retrying cannot fix through', async () => {
    const open: OpenStream = async () => {
      throw new Error('forbidden');
    };
    const { opts } = options(open);
    await expect(follow(opts)).rejects.toThrow('forbidden');
  });

  it('does not retry a failure of the message handler (only connection trouble is retried)', async () => {
    const s = server(3, [{ send: 99, then: 'stall' }]);
    const { opts } = options(s.open, { isRetryable: () => true });
    opts.onMessage = () => {
      throw new Error('disk full');
    };
    await expect(follow(opts)).rejects.toThrow('disk full');
    expect(s.seenLastIds).toHaveLength(1);
  });

  it('nor a failure of the position handler (a checkpoint that cannot be written is no lost connection)', async () => {
    let connections = 0;
    const open: OpenStream = async (_lastEventId, signal) => {
      connections++;
      async function* body(): AsyncGenerator<Uint8Array> {
        yield encoder.encode('id: evt_0\n\n');
        await stalled(signal);
      }
      return { body: body() };
    };
    const { opts } = options(open, { isRetryable: () => true });
    opts.onPosition = () => {
      throw new Error('disk full');
    };
    await expect(follow(opts)).rejects.toThrow('disk full');
    expect(connections).toBe(1);
  });

  it('stops when aborted (Ctrl-C), mid-stream', async () => {
    const s = server(3, [{ send: 99, then: 'stall' }]);
    const controller = new AbortController();
    const { opts, got, clock } = options(s.open, { signal: controller.signal, heartbeatMs: 10_000, timeoutMs: 10_000 });
    opts.onMessage = (m) => {
      got.push(m.id ?? '');
      // Ctrl-C a while later, while the stream is silent but within its heartbeat.
      if (got.length === 3) void clock.sleep(5_000).then(() => controller.abort());
      return 'continue';
    };
    const result = await follow(opts);
    expect(result).toMatchObject({ outcome: 'aborted', lastEventId: 'evt_3', reconnects: 0 });
  });

  it('a connection that answers its headers and then sends nothing is not a connection: --timeout still fires, nothing is "reconnected"', async () => {
    let opens = 0;
    const open: OpenStream = async (_id, signal) => {
      // Bounded, so that a follow that never gives up fails instead of hanging.
      if (++opens > 20) throw new Error('still reconnecting to a silent server');
      async function* body(): AsyncGenerator<Uint8Array> {
        await stalled(signal);
      }
      return { body: body() };
    };
    const lost: string[] = [];
    const { opts, reconnected, clock } = options(open, { timeoutMs: 20_000, heartbeatMs: 45_000, onLost: (reason) => lost.push(reason) });
    const result = await follow(opts);
    expect(result).toMatchObject({ outcome: 'timed-out', awayMs: 20_000, reason: 'the stream opened but nothing arrived in 20 s' });
    expect(clock.elapsed()).toBe(20_000);
    expect(reconnected).toEqual([]);
    // Giving up is said once, by the result: no "retrying" before it.
    expect(lost).toEqual([]);
  });

  it('with a heartbeat shorter than --timeout, silent connections are retried until --timeout, never "reconnected"', async () => {
    let opens = 0;
    const open: OpenStream = async (_id, signal) => {
      opens++;
      async function* body(): AsyncGenerator<Uint8Array> {
        await stalled(signal);
      }
      return { body: body() };
    };
    const { opts, reconnected, clock } = options(open, { timeoutMs: 350, heartbeatMs: 100 });
    const result = await follow(opts);
    expect(result.outcome).toBe('timed-out');
    expect(clock.elapsed()).toBe(350);
    expect(opens).toBeGreaterThan(1);
    expect(reconnected).toEqual([]);
  });

  it('keep-alive comments count as the service speaking: no timeout while they arrive', async () => {
    const controller = new AbortController();
    const { opts, clock } = options(async (_id, signal) => ({ body: keepalives(signal) }), { timeoutMs: 250, heartbeatMs: 150, signal: controller.signal });
    async function* keepalives(signal: AbortSignal): AsyncGenerator<Uint8Array> {
      for (;;) {
        yield encoder.encode(': keepalive\n\n');
        await clock.sleep(100, signal);
      }
    }
    const lost: string[] = [];
    opts.onLost = (reason) => lost.push(reason);
    void clock.sleep(1_000).then(() => controller.abort());
    const result = await follow(opts);
    expect(result.outcome).toBe('aborted');
    expect(lost).toEqual([]);
  });

  it('a stream that moved on is resumed at once after a drop (no backoff to fall behind a burst); a failed attempt backs off', async () => {
    const s = server(10, [
      { send: 3, then: 'error' },
      { send: 4, then: 'end' },
      { send: 99, then: 'stall' },
    ]);
    const { opts, got, clock } = options(s.open, { timeoutMs: 2000 });
    let count = 0;
    opts.onMessage = (m) => (got.push(m.id ?? ''), ++count === 10 ? 'stop' : 'continue');
    await follow(opts);
    expect(got).toEqual(ids(1, 10));
    expect(clock.elapsed()).toBe(0);

    // A connection that ends before anything new arrived waits the backoff (125 ms with this jitter).
    const t = server(2, [
      { send: 0, then: 'end' },
      { send: 99, then: 'stall' },
    ]);
    const again = options(t.open, { timeoutMs: 2000 });
    let n = 0;
    again.opts.onMessage = () => (++n === 2 ? 'stop' : 'continue');
    await follow(again.opts);
    expect(again.clock.elapsed()).toBe(125);
  });
});
