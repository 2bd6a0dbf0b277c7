// Deliveries alone (src/events/deliveries.ts): every --forward-to route at once,
// over an in-memory transport and a virtual clock. Events in; out what a user sees: what
// each handler receives, the dead-letter file, the stderr lines, the settlements that move
// the checkpoint.
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Deliveries, type DeliveriesOptions } from '../../src/events/deliveries.js';
import type { PostJson } from '../../src/events/delivery.js';
import { parseForwardRoute } from '../../src/events/routes.js';
import { virtualClock } from '../helpers/clock.js';

const idle = () => new Promise((resolve) => setImmediate(resolve));

/** Handlers in memory, by URL: each answers with `status(url)`, and keeps what it received. */
function handlers(status: (url: string) => number = () => 200) {
  const received: Array<{ url: string; id: string; signature: string | undefined }> = [];
  const post: PostJson = async (url, _body, headers) => {
    await idle();
    const answer = status(url);
    if (answer >= 200 && answer < 300) received.push({ url, id: headers['svc-event-id']!, signature: headers['svc-signature'] });
    return { status: answer };
  };
  return { post, received, at: (url: string) => received.filter((r) => r.url === url).map((r) => r.id) };
}

function deliveriesOf(post: PostJson, routes: string[], overrides: Partial<DeliveriesOptions> = {}) {
  const clock = virtualClock(Date.UTC(2030, 0, 1, 12));
  const stderr: string[] = [];
  const settled: string[] = [];
  const deliveries = new Deliveries({
    routes: routes.map((raw) => parseForwardRoute(raw)),
    post,
    sign: (body) => `t=${Math.floor(clock.now() / 1000)},len=${body.length}`,
    headers: {},
    clock,
    random01: () => 0,
    signal: new AbortController().signal,
    progress: (line) => stderr.push(line),
    onSettled: (id) => settled.push(id),
    ...overrides,
  });
  const send = (id: number, type: string) => deliveries.enqueue(`evt_${id}`, type, JSON.stringify({ id: `evt_${id}`, type }));
  return { deliveries, send, stderr, settled };
}

const CALLS = 'http://127.0.0.1:3000/calls';
const ALL = 'http://127.0.0.1:3001/all';

describe('Deliveries', () => {
  it('each route receives, in order and signed, only the types it wants; each event is settled once per route that took it', async () => {
    const h = handlers();
    const d = deliveriesOf(h.post, [`call.*=${CALLS}`, ALL]);
    expect(d.deliveries.routesFor('call.started')).toBe(2);
    expect(d.deliveries.routesFor('chat.closed')).toBe(1);
    expect([d.send(1, 'call.started'), d.send(2, 'chat.closed'), d.send(3, 'call.ended')]).toEqual([2, 1, 2]);
    await d.deliveries.drain();
    expect(h.at(CALLS)).toEqual(['evt_1', 'evt_3']);
    expect(h.at(ALL)).toEqual(['evt_1', 'evt_2', 'evt_3']);
    expect(h.received.every((r) => r.signature?.startsWith('t=1893499200,'))).toBe(true);
    expect(d.settled.sort()).toEqual(['evt_1', 'evt_1', 'evt_2', 'evt_3', 'evt_3']);
    expect(d.stderr).toContain(`→ 200 POST ${CALLS} evt_3 call.ended`);
    expect([d.deliveries.delivered, d.deliveries.failed, d.deliveries.gaveUp]).toEqual([5, 0, 0]);
  });

  it('a failing route: its deliveries are given up into the dead-letter file, settled all the same; the other route is not held back', async () => {
    const h = handlers((url) => (url === CALLS ? 500 : 200));
    const file = join(mkdtempSync(join(tmpdir(), 'svc-deliveries-')), 'dead.ndjson');
    const d = deliveriesOf(h.post, [CALLS, ALL], { deadLetterFile: file, attempts: 2 });
    d.send(1, 'call.started');
    d.send(2, 'call.ended');
    await d.deliveries.drain();
    expect(h.at(ALL)).toEqual(['evt_1', 'evt_2']);
    const letters = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(letters).toEqual([
      {
        version: 1,
        event: { id: 'evt_1', type: 'call.started' },
        url: CALLS,
        status: 500,
        error: null,
        attempts: 2,
        failed_at: expect.stringMatching(/^2030-01-01T12:00:00/),
      },
      {
        version: 1,
        event: { id: 'evt_2', type: 'call.ended' },
        url: CALLS,
        status: 500,
        error: null,
        attempts: 2,
        failed_at: expect.stringMatching(/^2030-01-01T12:00:0/),
      },
    ]);
    expect(d.stderr).toContain(`→ 500 POST ${CALLS} evt_2 call.ended after 2 attempts — gave up`);
    expect(d.settled.filter((id) => id === 'evt_1')).toHaveLength(2);
    expect([d.deliveries.gaveUp, d.deliveries.failed, d.deliveries.delivered]).toEqual([2, 2, 2]);
  });

  it('a dead-letter file that can no longer be written is a warning; the delivery still counts as given up', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-deliveries-'));
    const file = join(dir, 'dead.ndjson');
    mkdirSync(file); // a folder where the file should be: refused unwritten
    const d = deliveriesOf(handlers(() => 503).post, [CALLS], { deadLetterFile: file, attempts: 1 });
    d.send(1, 'call.started');
    await d.deliveries.drain();
    expect(d.stderr.filter((line) => line.startsWith('warning:'))).toEqual([
      expect.stringMatching(/^warning: the dead letter of evt_1 was not written: --dead-letter /),
    ]);
    expect(d.deliveries.gaveUp).toBe(1);
  });

  it('full as soon as one route is full; room() waits for that route', async () => {
    const answers: Array<() => void> = [];
    const post: PostJson = (url) => (url === CALLS ? new Promise((resolve) => answers.push(() => resolve({ status: 200 }))) : Promise.resolve({ status: 200 }));
    const d = deliveriesOf(post, [CALLS, ALL], { maxQueued: 2 });
    d.send(1, 'call.started');
    d.send(2, 'call.started');
    expect(d.deliveries.full).toBe(true);
    let roomy = false;
    const room = d.deliveries.room().then(() => (roomy = true));
    await idle();
    expect(roomy).toBe(false);
    answers.shift()!();
    await room;
    expect(d.deliveries.full).toBe(false);
    answers.shift()?.();
    await d.deliveries.drain();
  });

  it('describe() names the routes and where the secret comes from, never the secret', () => {
    const d = deliveriesOf(handlers().post, [`call.*=${CALLS}`, ALL]);
    expect(d.deliveries.describe('SVC_FORWARD_SECRET')).toBe(
      `Forwarding to call.*=${CALLS}, ${ALL} (every event), signed with SVC_FORWARD_SECRET (svc events tail --print-secret shows it)`,
    );
  });
});
