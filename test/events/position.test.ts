// Nothing lost before the first event (issue 24): the emulator opens a stream with a position
// frame, `events tail` resumes from it after a drop, across an outage, and across a restart
// with --checkpoint (which stores the position). The tail's clock is held while it is away,
// so the events published "meanwhile" are published while it has no connection for certain.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { execute } from '../../src/main.js';
import type { Runtime } from '../../src/cli/context.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import type { Clock } from '../../src/shared/runtime.js';
import { useStreamEmulator } from '../helpers/emulator.js';
import { heldClock } from './held-clock.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';

const { emu, plane } = useStreamEmulator();
const publish = (count: number, type = 'call.started') => plane().publishEvents({ org_id: emu().seed.org_id, mode: 'test', type, count });

function startTail(argv: string[], clock: Clock = heldClock()) {
  let stdout = '';
  let stderr = '';
  const controller = new AbortController();
  const configDir = tempConfigDir();
  const runtime: Runtime = {
    env: { HOME: configDir, SVC_CONFIG_DIR: configDir, SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: emu().url },
    stdout: { isTTY: false, write: (chunk) => void (stdout += chunk) },
    stderr: { isTTY: false, write: (chunk) => void (stderr += chunk) },
    stdin: { isTTY: false, readAll: async () => '', lines: async function* () {} },
    clock,
    random: { bytes: (n) => new Uint8Array(randomBytes(n)) },
    browser: { open: async () => {} },
    signal: controller.signal,
    secrets: new MemorySecretStore(),
  };
  const done = execute(['events', 'tail', '--json', ...argv], runtime);
  const ids = () =>
    stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { id: string }).id);
  return { done, ids, stderr: () => stderr, stop: () => controller.abort() };
}

async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not met after ${ms / 1000} s`);
    await delay(5);
  }
}

/** The ids of `count` events published in one burst, oldest first (ids are fixed-width base 36). */
async function publishedIds(count: number): Promise<string[]> {
  const { first_id, last_id } = await publish(count);
  const first = parseInt(first_id.slice(4), 36);
  const ids = Array.from({ length: count }, (_, i) => `evt_${(first + i).toString(36).padStart(10, '0')}`);
  expect(ids.at(-1)).toBe(last_id);
  return ids;
}

/** Cuts the tail's stream while its clock is held, so it stays away until release(). */
async function dropAndHold(clock: ReturnType<typeof heldClock>, tail: ReturnType<typeof startTail>, losses: number): Promise<void> {
  clock.hold();
  await plane().dropStreams();
  await until(() => (tail.stderr().match(/connection lost/g)?.length ?? 0) >= losses, 'the tail saw the drop');
  await plane().streamsClosed();
}

describe('events tail before its first event', () => {
  it('a drop before the first event loses nothing published while away (and prints nothing from before it started)', async () => {
    await publish(5); // before the tail: never printed
    const clock = heldClock();
    const tail = startTail([], clock);
    await plane().streamsOpen();
    await dropAndHold(clock, tail, 1);
    const away = await publishedIds(100);
    clock.release();
    await plane().streamsOpen();
    const later = await publishedIds(1);
    await until(() => tail.ids().length >= 101, 'all 101 events printed');
    tail.stop();
    expect(await tail.done).toBe(130);
    expect(tail.ids()).toEqual([...away, ...later]);
    expect(tail.stderr()).toMatch(/reconnected after .* away, resuming after evt_/);
  });

  it('across a 30 s outage (on the injected clock), from an empty log: resumes from the first event', async () => {
    const clock = heldClock();
    const tail = startTail(['--max-events', '201'], clock);
    await plane().streamsOpen();
    await dropAndHold(clock, tail, 1);
    const away = await publishedIds(200);
    clock.release(30_000);
    await plane().streamsOpen();
    const later = await publishedIds(1);
    expect(await tail.done).toBe(0);
    expect(tail.ids()).toEqual([...away, ...later]);
    expect(tail.stderr()).toMatch(/reconnected after 3\d\.\d s away, resuming from the first event/);
  });

  it('across a restart with --checkpoint: the position is stored before any event, and the restart misses nothing', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-position-')), 'tail.ckpt');
    const before = await publishedIds(3);
    const first = startTail(['--checkpoint', file]);
    await plane().streamsOpen();
    await until(() => existsSync(file), 'the checkpoint written');
    expect(JSON.parse(readFileSync(file, 'utf8')).last_event_id).toBe(before.at(-1));
    first.stop();
    expect(await first.done).toBe(130);
    expect(first.ids()).toEqual([]);
    await plane().streamsClosed();

    const missed = await publishedIds(50);
    const second = startTail(['--checkpoint', file, '--max-events', '50']);
    expect(await second.done).toBe(0);
    expect(second.ids()).toEqual(missed);
    expect(second.stderr()).toContain(`resuming after ${before.at(-1)} (--checkpoint ${file})`);
    expect(JSON.parse(readFileSync(file, 'utf8')).last_event_id).toBe(missed.at(-1));
  });

  it('from an empty log, a checkpoint holds "start" and the restart prints every event from the first', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-position-')), 'tail.ckpt');
    const first = startTail(['--checkpoint', file]);
    await plane().streamsOpen();
    await until(() => existsSync(file), 'the checkpoint written');
    expect(JSON.parse(readFileSync(file, 'utf8')).last_event_id).toBe('start');
    first.stop();
    expect(await first.done).toBe(130);
    await plane().streamsClosed();

    const missed = await publishedIds(20);
    const second = startTail(['--checkpoint', file, '--max-events', '20']);
    expect(await second.done).toBe(0);
    expect(second.ids()).toEqual(missed);
    expect(second.stderr()).toContain(`resuming from the first event (--checkpoint ${file})`);
  });

  it('stress: 20,000 events across 20 drops, the first before any event: 0 lost, 0 repeated, in order', async () => {
    const clock = heldClock();
    const tail = startTail(['--max-events', '20000'], clock);
    await plane().streamsOpen();
    const expected: string[] = [];
    for (let round = 0; round < 20; round++) {
      // Live events (none in the first round: the drop comes before the first event).
      if (round > 0) expected.push(...(await publishedIds(500)));
      await dropAndHold(clock, tail, round + 1);
      expected.push(...(await publishedIds(round === 0 ? 1000 : 500)));
      clock.release();
      // Back before the next drop (after the last round the tail may already be done).
      if (round < 19) await plane().streamsOpen();
    }
    // Bounded, so that a loss fails on the count rather than waiting for the test's timeout.
    await until(() => tail.ids().length >= 20_000, 'all 20,000 printed', 20_000).catch(() => tail.stop());
    expect(await tail.done).toBe(0);
    const ids = tail.ids();
    expect(ids.length).toBe(20_000);
    expect(new Set(ids).size).toBe(20_000);
    expect(ids).toEqual(expected);
  }, 60_000);
});

describe('chats stream honours a position frame', () => {
  it('a stream cut after only "id: msg_…" reconnects with that Last-Event-ID', async () => {
    const asked: Array<string | undefined> = [];
    const message = {
      object: 'message',
      id: 'msg_8',
      chat_id: 'chat_1',
      kind: 'text',
      text: 'after the drop',
      language: 'en',
      translation: null,
      transcript: null,
    };
    const server = createServer((req, res) => {
      const url = req.url ?? '';
      if (url.startsWith('/v1/chats/chat_1/stream')) {
        asked.push(req.headers['last-event-id'] as string | undefined);
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // The first connection gives only its position, then drops; the second resumes from it.
        if (asked.length === 1) return res.end('id: msg_7\n\n');
        return res.end(`id: msg_8\nevent: message\ndata: ${JSON.stringify(message)}\n\n`);
      }
      res.setHeader('content-type', 'application/json');
      if (url.startsWith('/v1/chats/chat_1/messages')) return res.end('{"object":"list","data":[],"has_more":false,"next_cursor":null}');
      // Closed once the second stream has been served: the command then ends by itself.
      const status = asked.length >= 2 ? 'closed' : 'open';
      if (url.startsWith('/v1/chats/chat_1'))
        return res.end(
          `{"object":"chat","id":"chat_1","status":"${status}","language":"en","subject":null,"livemode":false,"created_at":"2026-01-01T00:00:00Z"}`,
        );
      res.statusCode = 404;
      res.end('{"detail":"not found"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { exitCode, stdout, stderr } = await runCli(['chats', 'stream', 'chat_1', '--json'], {
        env: { SVC_API_KEY: 'svc_test_positionpos', SVC_BASE_URL: url },
      });
      expect(exitCode, stderr).toBe(0);
      expect(asked).toEqual([undefined, 'msg_7']);
      expect(JSON.parse(stdout).id).toBe('msg_8');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('events tail and an event id a header cannot carry', () => {
  it('an id with a control character is reported and the tail goes on, resuming after the last usable id (not exit 2)', async () => {
    const asked: Array<string | undefined> = [];
    const frame = (id: string) =>
      `id: ${id}\nevent: call.started\ndata: ${JSON.stringify({ object: 'event', id, type: 'call.started', created_at: '2026-01-01T00:00:00Z', livemode: false, data: {} })}\n\n`;
    const bell = 'evt_0000000002\u0007';
    const server = createServer((req, res) => {
      const url = req.url ?? '';
      if (url.startsWith('/v1/events/stream')) {
        asked.push(req.headers['last-event-id'] as string | undefined);
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // The first connection ends right after the unusable id; the second replays it, then more.
        if (asked.length === 1) return res.end(frame('evt_0000000001') + frame(bell));
        return res.write(frame(bell) + frame('evt_0000000003'));
      }
      res.setHeader('content-type', 'application/json');
      if (url.startsWith('/v1/account')) return res.end('{"object":"account","id":"org_1","name":"Bell Inc"}');
      res.statusCode = 404;
      res.end('{"detail":"not found"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const file = join(mkdtempSync(join(tmpdir(), 'svc-position-')), 'tail.ckpt');
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { exitCode, stdout, stderr } = await runCli(['events', 'tail', '--json', '--max-events', '3', '--checkpoint', file], {
        env: { SVC_API_KEY: 'svc_test_bellbellbell', SVC_BASE_URL: url },
      });
      expect(exitCode, stderr).toBe(0);
      expect(asked).toEqual([undefined, 'evt_0000000001']);
      const ids = stdout
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: string }).id);
      expect(ids).toEqual(['evt_0000000001', bell, 'evt_0000000003']);
      expect(stderr).toContain('warning: the service sent event id "evt_0000000002^G", which holds a control character');
      expect(stderr).toContain('a reconnection resumes after evt_0000000001');
      expect(stderr).not.toContain('\u0007');
      // The checkpoint never holds it: a restart would refuse such a file.
      expect(JSON.parse(readFileSync(file, 'utf8')).last_event_id).toBe('evt_0000000003');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
