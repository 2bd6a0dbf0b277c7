// events_wait's queue alone (src/mcp/events-wait.ts), on a stream the test writes and
// an injected clock: where the stream starts, which wait gets which event, what a lost stream
// and a full queue say.
import { describe, expect, it } from 'vitest';
import { EventFeed, PROGRESS_EVERY_MS, type EventRules } from '../../src/mcp/events-wait.js';
import { matchesType, parseTypePattern, type TypePattern } from '../../src/events/filter.js';
import { parseEvent } from '../../src/events/format.js';
import { isGapFrame, parseGap } from '../../src/events/gap.js';
import { START_POSITION } from '../../src/events/checkpoint.js';
import type { Clock } from '../../src/context.js';

/** A clock that moves only when the test says: sleeps end at advance(), in order. */
function manualClock(): Clock & { advance(ms: number): Promise<void> } {
  let now = 0;
  const timers: Array<{ at: number; fire: () => void }> = [];
  return {
    now: () => now,
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const timer = { at: now + ms, fire: resolve };
        timers.push(timer);
        signal?.addEventListener('abort', () => (timers.splice(timers.indexOf(timer), 1), reject(signal.reason)), { once: true });
      }),
    async advance(ms) {
      now += ms;
      for (const timer of timers.filter((t) => t.at <= now)) {
        timers.splice(timers.indexOf(timer), 1);
        timer.fire();
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    },
  };
}

const rules: EventRules = { matchesType, parseEvent, isGapFrame, parseGap, startPosition: START_POSITION };
const types = (...raw: string[]) => raw.map((t) => parseTypePattern(t) as TypePattern);

/** A stream the test pushes SSE frames into; records each Last-Event-ID it was opened with. */
function fakeStream() {
  const opened: Array<string | undefined> = [];
  let push: (frame: string) => void = () => {};
  const open = async (lastEventId: string | undefined, signal: AbortSignal) => {
    opened.push(lastEventId);
    const queue: string[] = [];
    let wake: (() => void) | undefined;
    push = (frame) => {
      queue.push(frame);
      wake?.();
    };
    async function* body() {
      for (;;) {
        if (signal.aborted) return;
        const frame = queue.shift();
        if (frame !== undefined) yield new TextEncoder().encode(frame);
        else await new Promise<void>((resolve) => ((wake = resolve), signal.addEventListener('abort', () => resolve(), { once: true })));
      }
    }
    return { body: body() };
  };
  const event = (n: number, type: string) =>
    push(`id: evt_${n}\ndata: ${JSON.stringify({ object: 'event', id: `evt_${n}`, type, created_at: '2026-01-01T00:00:00Z', livemode: false, data: {} })}\n\n`);
  return { open, opened, event, frame: (text: string) => push(text) };
}

function feedWith(newest: string | undefined) {
  const clock = manualClock();
  const stream = fakeStream();
  const session = new AbortController();
  const feed = new EventFeed({ rules, newest: async () => newest, open: stream.open, clock, random01: () => 0.5, signal: session.signal });
  return { feed, clock, stream, session };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('the events_wait queue', () => {
  it("starts from the service's start before the first event, else after the newest at session start", async () => {
    const empty = feedWith(undefined);
    const none = empty.feed.wait({ types: [], maxEvents: 1, waitMs: 5_000, signal: new AbortController().signal });
    await settle();
    expect(empty.stream.opened).toEqual([START_POSITION]);
    empty.stream.event(1, 'call.started');
    expect((await none).events.map((e) => e.id)).toEqual(['evt_1']);
    empty.session.abort();

    const some = feedWith('evt_41');
    const next = some.feed.wait({ types: [], maxEvents: 1, waitMs: 5_000, signal: new AbortController().signal });
    await settle();
    expect(some.stream.opened).toEqual(['evt_41']);
    some.stream.event(42, 'chat.started');
    expect((await next).events.map((e) => e.id)).toEqual(['evt_42']);
    some.session.abort();
  });

  it('a position that could not be taken at the start is taken at the next wait, which says events before it may be missing', async () => {
    const clock = manualClock();
    const stream = fakeStream();
    const session = new AbortController();
    const answers: Array<() => Promise<string | undefined>> = [
      async () => {
        throw new Error('cannot reach the service');
      },
      async () => 'evt_7',
    ];
    const feed = new EventFeed({ rules, newest: () => answers.shift()!(), open: stream.open, clock, random01: () => 0.5, signal: session.signal });
    const wait = () => feed.wait({ types: [], maxEvents: 1, waitMs: 5_000, signal: new AbortController().signal });
    await expect(wait()).rejects.toThrow(/cannot reach the service/);
    const second = wait();
    await settle();
    expect(stream.opened).toEqual(['evt_7']);
    stream.event(8, 'call.started');
    const result = await second;
    expect(result.events.map((e) => e.id)).toEqual(['evt_8']);
    expect(result.gap).toEqual({ last_event_id: null, resumed_from: 'evt_7' });
    // Said once.
    const third = wait();
    stream.event(9, 'call.started');
    expect((await third).gap).toBeUndefined();
    session.abort();
  });

  it('an event goes to the oldest wait that matches it; others stay queued for a wait that wants them', async () => {
    const { feed, stream, session } = feedWith('evt_0');
    const signal = new AbortController().signal;
    const calls = feed.wait({ types: types('call.*'), maxEvents: 1, waitMs: 60_000, signal });
    const first = feed.wait({ types: [], maxEvents: 1, waitMs: 60_000, signal });
    await settle();
    stream.event(1, 'chat.started'); // not a call: to the second wait
    stream.event(2, 'call.started'); // to the oldest wait that matches
    stream.event(3, 'chat.closed'); // nobody waits: queued
    expect((await first).events.map((e) => e.id)).toEqual(['evt_1']);
    expect((await calls).events.map((e) => e.id)).toEqual(['evt_2']);
    await settle();
    expect((await feed.wait({ types: types('chat.*'), maxEvents: 5, waitMs: 0, signal })).events.map((e) => e.id)).toEqual(['evt_3']);
    // One stream for the session, opened once.
    expect(stream.opened).toEqual(['evt_0']);
    session.abort();
  });

  it('says progress while it waits, and times out on the clock', async () => {
    const { feed, clock, session } = feedWith('evt_0');
    const progress: number[] = [];
    const waiting = feed.wait({
      types: [],
      maxEvents: 1,
      waitMs: 3 * PROGRESS_EVERY_MS,
      signal: new AbortController().signal,
      progress: (ms) => progress.push(ms),
    });
    for (let i = 0; i < 3; i++) {
      await settle();
      await clock.advance(PROGRESS_EVERY_MS);
    }
    expect(await waiting).toMatchObject({ events: [], timed_out: true });
    expect(progress).toEqual([PROGRESS_EVERY_MS, 2 * PROGRESS_EVERY_MS]);
    session.abort();
  });

  it('a cancelled wait gives back what it had claimed, in the order of the stream', async () => {
    const { feed, stream, session } = feedWith('evt_0');
    const cancel = new AbortController();
    const cancelled = feed.wait({ types: types('call.*'), maxEvents: 5, waitMs: 60_000, signal: cancel.signal });
    await settle();
    stream.event(1, 'chat.started'); // queued: the wait wants calls
    stream.event(2, 'call.started'); // claimed by the wait
    stream.event(3, 'chat.closed'); // queued
    await settle();
    cancel.abort();
    await expect(cancelled).rejects.toThrow(/cancelled/);
    const all = await feed.wait({ types: [], maxEvents: 10, waitMs: 0, signal: new AbortController().signal });
    expect(all.events.map((e) => e.id)).toEqual(['evt_1', 'evt_2', 'evt_3']);
    session.abort();
  });

  it("passes on the service's gap frame: events it no longer kept may be missing", async () => {
    const { feed, stream, session } = feedWith('evt_0');
    const waiting = feed.wait({ types: [], maxEvents: 1, waitMs: 60_000, signal: new AbortController().signal });
    await settle();
    stream.frame(`event: gap\ndata: ${JSON.stringify({ last_event_id: 'evt_0', resumed_from: 'evt_9' })}\n\n`);
    stream.event(9, 'call.ended');
    expect(await waiting).toMatchObject({ events: [{ id: 'evt_9' }], gap: { last_event_id: 'evt_0', resumed_from: 'evt_9' } });
    session.abort();
  });
});
