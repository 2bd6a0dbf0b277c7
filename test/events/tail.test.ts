// `svc events tail` in-process against the emulator over real HTTP.
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator, useStreamEmulator } from '../helpers/emulator.js';
import { execute } from '../../src/main.js';
import type { Runtime } from '../../src/cli/context.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { heldClock } from './held-clock.js';
import { countingTransport, virtualClock } from '../helpers/clock.js';
import { createHttp } from '../../src/api/http.js';

const { emu, plane } = useStreamEmulator();

const publish = (type: string, count: number, mode: 'test' | 'live' = 'test') => plane().publishEvents({ org_id: emu().seed.org_id, mode, type, count });

async function openStreams(): Promise<number> {
  return (await plane().stats()).open_streams;
}

/** Waits until `n` event streams are open (the tail has connected), failing after a while. */
const streamsOpen = (n = 1) => plane().streamsOpen(n);

const keyEnv = (key = emu().seed.keys.test) => ({ SVC_API_KEY: key, SVC_BASE_URL: emu().url });
const ndjson = (stdout: string) =>
  stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: string; type: string; object: string; livemode: boolean; data: { n?: number } });

/** The CLI in-process with its output visible while it runs (runCli only returns it at the end). */
function startCli(argv: string[], opts: { signal?: AbortSignal; beforeWrite?: () => void } = {}) {
  let stdout = '';
  let stderr = '';
  const configDir = tempConfigDir();
  const runtime: Runtime = {
    env: { HOME: configDir, SVC_CONFIG_DIR: configDir, ...keyEnv() },
    stdout: {
      isTTY: false,
      write(chunk) {
        opts.beforeWrite?.();
        stdout += chunk;
      },
    },
    stderr: { isTTY: false, write: (chunk) => void (stderr += chunk) },
    stdin: { isTTY: false, readAll: async () => '', lines: async function* () {} },
    clock: { now: () => Date.now(), sleep: (ms, signal) => delay(ms, undefined, { signal }) },
    random: { bytes: (n) => new Uint8Array(randomBytes(n)) },
    browser: { open: async () => {} },
    signal: opts.signal ?? new AbortController().signal,
    secrets: new MemorySecretStore(),
  };
  return { done: execute(argv, runtime), stdout: () => stdout, stderr: () => stderr };
}

async function until(condition: () => boolean, what = 'condition'): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (condition()) return;
    await delay(10);
  }
  throw new Error(`${what} not met after 5 s`);
}

function expectStrictlyIncreasingUnique(ids: string[]): void {
  expect(new Set(ids).size).toBe(ids.length);
  // Event ids are fixed-width, so their order as strings is their order of publication.
  for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
}

describe('events tail', () => {
  it('prints NDJSON, the events as the API sent them, and stops after --max-events', async () => {
    const run = runCli(['events', 'tail', '--json', '--max-events', '5'], { env: keyEnv() });
    await streamsOpen();
    await publish('call.started', 8);
    const { exitCode, stdout, stderr } = await run;
    expect(exitCode, stderr).toBe(0);
    const events = ndjson(stdout);
    expect(events).toHaveLength(5);
    expect(events.every((e) => e.object === 'event' && e.type === 'call.started' && e.livemode === false)).toBe(true);
    expect(events.map((e) => e.data.n)).toEqual([1, 2, 3, 4, 5]);
    // The header names the organization and the mode, on stderr.
    expect(stderr).toMatch(/test-mode events of Acme/);
    // The same lines as the list endpoint holds (as sent, not re-serialized).
    const list = await fetch(`${emu().url}/v1/events?limit=8`, { headers: { authorization: `Bearer ${emu().seed.keys.test}` } }).then(
      (r) => r.json() as Promise<{ data: unknown[] }>,
    );
    const sent = list.data
      .reverse()
      .slice(0, 5)
      .map((e) => JSON.stringify(e));
    expect(stdout.trimEnd().split('\n')).toEqual(sent);
  });

  it('keeps only the --type families and types asked for', async () => {
    const run = runCli(['events', 'tail', '--json', '--type', 'call.*', '--type', 'chat.message.created', '--max-events', '6'], { env: keyEnv() });
    await streamsOpen();
    await publish('chat.started', 3);
    await publish('call.started', 2);
    await publish('balance.updated', 2);
    await publish('chat.message.created', 2);
    await publish('link.created', 1);
    await publish('call.participant.dialed', 2);
    const { exitCode, stdout, stderr } = await run;
    expect(exitCode, stderr).toBe(0);
    expect(ndjson(stdout).map((e) => e.type)).toEqual([
      'call.started',
      'call.started',
      'chat.message.created',
      'chat.message.created',
      'call.participant.dialed',
      'call.participant.dialed',
    ]);
  });

  it('prints one human line per event: time, type, id, summary (tab-separated when piped)', async () => {
    const run = runCli(['events', 'tail', '--max-events', '2'], { env: keyEnv() });
    await streamsOpen();
    // A real state change, so the summary has an object to describe.
    const res = await fetch(`${emu().url}/v1/calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emu().seed.keys.test}`, 'content-type': 'application/json' },
      body: JSON.stringify({ languages: ['en', 'es'], title: 'Intake' }),
    });
    const call = (await res.json()) as { id: string };
    await publish('line.created', 1);
    const { exitCode, stdout, stderr } = await run;
    expect(exitCode, stderr).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    const [time, type, id, summary] = lines[0]!.split('\t');
    expect(time).toMatch(/^\d\d:\d\d:\d\d$/);
    expect(type).toBe('call.started');
    expect(id).toMatch(/^evt_/);
    expect(summary).toContain(call.id);
    expect(summary).toContain('"Intake"');
    expect(lines[1]!.split('\t')[1]).toBe('line.created');
  });

  it('on a terminal, aligns the columns and colours the type by family', async () => {
    const run = runCli(['events', 'tail', '--max-events', '2'], { env: keyEnv(), tty: true });
    await streamsOpen();
    await publish('call.ended', 1);
    await publish('chat.closed', 1);
    const { exitCode, stdout, stderr } = await run;
    expect(exitCode, stderr).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).not.toContain('\t');
    // cyan for calls, magenta for chats (ANSI 36 and 35).
    expect(lines[0]).toMatch(/\u001b\[36mcall\.ended\s+\u001b\[39m  evt_/);
    expect(lines[1]).toMatch(/\u001b\[35mchat\.closed\s+\u001b\[39m  evt_/);
    // The first tail's stream closes asynchronously: wait for it, so the second is the one counted.
    await plane().streamsClosed();
    const { stdout: plain } = await (async () => {
      const again = runCli(['events', 'tail', '--max-events', '1'], { env: { ...keyEnv(), NO_COLOR: '1' }, tty: true });
      await streamsOpen();
      await publish('call.ended', 1);
      return again;
    })();
    expect(plain).not.toContain('\u001b[');
  });

  it('replays retained events after --since first, then live ones', async () => {
    await publish('call.started', 10);
    const list = await fetch(`${emu().url}/v1/events?limit=10`, { headers: { authorization: `Bearer ${emu().seed.keys.test}` } }).then(
      (r) => r.json() as Promise<{ data: Array<{ id: string }> }>,
    );
    const oldestFirst = list.data.map((e) => e.id).reverse();
    const run = runCli(['events', 'tail', '--json', '--since', oldestFirst[2]!, '--max-events', '9'], { env: keyEnv() });
    await streamsOpen();
    await publish('call.ended', 2);
    const { exitCode, stdout, stderr } = await run;
    expect(exitCode, stderr).toBe(0);
    const events = ndjson(stdout);
    expect(events.slice(0, 7).map((e) => e.id)).toEqual(oldestFirst.slice(3));
    expect(events.slice(7).map((e) => e.type)).toEqual(['call.ended', 'call.ended']);
  });

  it('resumes after dropped connections with no gap and no repeat, over thousands of events', async () => {
    const batches = 6;
    const perBatch = 1500;
    const perGap = 50;
    const total = batches * (perBatch + perGap);
    // The tail reconnects at once after a drop; its clock is held so that it is away for certain.
    const clock = heldClock();
    const run = runCli(['events', 'tail', '--json', '--max-events', String(total)], { env: keyEnv(), clock });
    await streamsOpen();
    // Batches published while the tail had no connection at all.
    const whileAway: Array<{ first_id: string; last_id: string }> = [];
    for (let b = 0; b < batches; b++) {
      await publish('chat.message.created', perBatch);
      // Cut the stream while the batch may still be in flight; the events published
      // before the tail comes back must be replayed from Last-Event-ID.
      clock.hold();
      await plane().dropStreams();
      await plane().streamsClosed();
      whileAway.push(await publish('call.started', perGap));
      clock.release();
      // Back before the next drop (after the last batch the tail may already be done).
      if (b < batches - 1) await streamsOpen();
    }
    const { exitCode, stdout, stderr } = await run;
    expect(exitCode, stderr).toBe(0);
    const ids = ndjson(stdout).map((e) => e.id);
    expect(ids).toHaveLength(total);
    expectStrictlyIncreasingUnique(ids);
    expect(stderr).toMatch(/reconnected after .* away, resuming after evt_/);
    // Each resume refilled events the tail could not have been sent live: all of
    // them, once each, in order, right where they were published.
    for (const gap of whileAway) {
      const start = ids.indexOf(gap.first_id);
      expect(start).toBeGreaterThanOrEqual(0);
      expect(ids[start + perGap - 1]).toBe(gap.last_id);
    }
  });

  it('a key without events:read is refused with exit 4 naming the scope', async () => {
    const { key } = await plane().createKey(emu().seed.org_id, 'test', ['calls:read']);
    const { exitCode, stdout, stderr } = await runCli(['events', 'tail', '--json'], { env: keyEnv(key) });
    expect(exitCode).toBe(4);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/events:read/);
  });

  it('a revoked key ends the tail with exit 3 instead of reconnecting forever', async () => {
    const { id, key } = await plane().createKey(emu().seed.org_id, 'test');
    const run = runCli(['events', 'tail', '--json'], { env: keyEnv(key) });
    await streamsOpen();
    await plane().revokeKey(emu().seed.org_id, id);
    const { exitCode, stderr } = await run;
    expect(exitCode).toBe(3);
    expect(stderr).not.toContain(key);
  });

  it('a burst with drops every 20 ms: a gap is warned of exactly where an event is really missing', async () => {
    const controller = new AbortController();
    const cli = startCli(['events', 'tail', '--json'], { signal: controller.signal });
    await streamsOpen();
    const burst = publish('call.started', 60_000);
    let published: { first_id: string; last_id: string } | undefined;
    void burst.then((p) => (published = p));
    // Cut every stream every 20 ms while the burst goes out and until the tail has its last event.
    const printedLast = () => published !== undefined && cli.stdout().includes(`"id":"${published.last_id}"`);
    for (let i = 0; i < 1500 && !printedLast(); i++) {
      await plane().dropStreams();
      await delay(20);
    }
    controller.abort();
    await cli.done;
    expect(printedLast()).toBe(true);
    const seq = (id: string) => parseInt(id.slice(4), 36);
    const ids = ndjson(cli.stdout()).map((e) => e.id);
    expectStrictlyIncreasingUnique(ids);
    // Where the printed ids skip some: [the last before the hole, the first after it].
    const holes: Array<[string, string]> = [];
    for (let i = 1; i < ids.length; i++) if (seq(ids[i]!) - seq(ids[i - 1]!) > 1) holes.push([ids[i - 1]!, ids[i]!]);
    const warned = [...cli.stderr().matchAll(/no longer retains the events after (evt_\w+) \(the last one delivered\).*resuming from (evt_\w+)/g)].map((m) => [
      m[1],
      m[2],
    ]);
    // (Holes themselves are real: a tail reading slower than a burst is published falls more than
    // the 10,000 retained events behind; it resumes at once after a drop, adding no delay of its own.)
    expect(warned).toEqual(holes);
  }, 60_000);

  it('exits 9 after --idle-timeout without a connection when the service is gone', async () => {
    const gone = await startTestEmulator();
    const url = gone.url;
    await gone.close();
    const started = Date.now();
    const { exitCode, stdout, stderr } = await runCli(['events', 'tail', '--json', '--idle-timeout', '2s'], {
      env: { SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: url },
    });
    expect(exitCode).toBe(9);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/nothing from the event stream for 2\.\d s \(--idle-timeout; last: cannot reach .*nothing answered/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    // One line per outage, not one per failed retry.
    expect(stderr.match(/retrying…/g)?.length ?? 0).toBeLessThanOrEqual(1);
  });

  it('Ctrl-C prints a one-line summary on stderr and exits 130', async () => {
    const controller = new AbortController();
    const cli = startCli(['events', 'tail', '--json'], { signal: controller.signal });
    await streamsOpen();
    await publish('call.started', 3);
    await until(() => ndjson(cli.stdout()).length === 3);
    controller.abort();
    expect(await cli.done).toBe(130);
    expect(ndjson(cli.stdout())).toHaveLength(3);
    expect(cli.stderr()).toMatch(/stopped: 3 events, 0 reconnects/);
  });

  it('ends quietly with exit 0 when stdout is closed (EPIPE)', async () => {
    let closed = false;
    const cli = startCli(['events', 'tail', '--json'], {
      // The reader (`| head -1`) has gone once it has its line: writes fail like a closed pipe.
      beforeWrite: () => {
        if (closed) throw Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
      },
    });
    await streamsOpen();
    await publish('call.started', 1);
    await until(() => cli.stdout() !== '');
    closed = true;
    await publish('call.started', 1);
    expect(await cli.done).toBe(0);
    expect(ndjson(cli.stdout())).toHaveLength(1);
    expect(cli.stderr()).not.toMatch(/stopped:|error/);
  });

  it('ends quietly with exit 0 when the runtime reports stdout closed (an abort with an EPIPE reason)', async () => {
    const controller = new AbortController();
    const cli = startCli(['events', 'tail', '--json'], { signal: controller.signal });
    await streamsOpen();
    await publish('call.started', 2);
    await until(() => ndjson(cli.stdout()).length === 2);
    controller.abort(Object.assign(new Error('stdout was closed by its reader'), { code: 'EPIPE' }));
    expect(await cli.done).toBe(0);
    expect(cli.stderr()).not.toMatch(/stopped:|error/);
  });

  it('refuses bad options with exit 2 before any request', async () => {
    const before = (await plane().stats()).requests;
    for (const argv of [
      ['--type', 'call.start'],
      ['--max-events', '0'],
      ['--max-events', 'ten'],
      ['--forward-to', 'ftp://example.com/x'],
      ['--forward-to', 'not a url'],
      ['--timeout', '5x'],
      ['--since', 'call_123'],
    ]) {
      const { exitCode, stderr } = await runCli(['events', 'tail', ...argv], { env: keyEnv() });
      expect(exitCode, argv.join(' ')).toBe(2);
      expect(stderr).toMatch(/error:/);
    }
    const after = (await plane().stats()).requests;
    // Only the stats call itself counts, if the emulator counts control requests at all.
    expect(after - before).toBeLessThanOrEqual(1);
  });

  it('a --since that is not an event id says so in plain English', async () => {
    const { exitCode, stderr } = await runCli(['events', 'tail', '--since', 'call_123'], { env: keyEnv() });
    expect(exitCode).toBe(2);
    expect(stderr).toContain('"call_123" is not an event id (that is a call id): event ids look like evt_Q3vX8kTz1mLp9RbW2cYd');
  });
});

describe('events tail --forward-to', () => {
  const closers: Array<() => void> = [];
  afterEach(() => closers.splice(0).forEach((close) => close()));

  it('POSTs each event in order with its id header, retrying deliveries that fail', async () => {
    const received: Array<{ id: string; body: { id: string }; contentType: string | undefined }> = [];
    let requests = 0;
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        requests++;
        // Every third request fails: the tail must retry it, and order must hold.
        if (requests % 3 === 0) {
          res.statusCode = 500;
          return res.end();
        }
        received.push({ id: String(req.headers['svc-event-id']), body: JSON.parse(body) as { id: string }, contentType: req.headers['content-type'] });
        res.statusCode = 204;
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => server.close());
    const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

    const run = runCli(['events', 'tail', '--json', '--max-events', '12', '--forward-to', hook], { env: keyEnv() });
    await streamsOpen();
    await publish('call.ended', 12);
    const { exitCode, stdout, stderr } = await run;
    expect(exitCode, stderr).toBe(0);
    const printed = ndjson(stdout).map((e) => e.id);
    expect(printed).toHaveLength(12);
    expect(received.map((r) => r.id)).toEqual(printed);
    expect(received.map((r) => r.body.id)).toEqual(printed);
    expect(received.every((r) => r.contentType === 'application/json')).toBe(true);
    expect(requests).toBeGreaterThan(12);
    // Delivery statuses go to stderr with --json, so stdout stays NDJSON.
    expect(stderr.match(/→ 204 POST/g)?.length).toBe(12);
    expect(stderr).toMatch(/after 2 attempts/);
  });
});

describe('events tail --forward-to: output and a bounded queue', () => {
  const closers: Array<() => void> = [];
  afterEach(() => closers.splice(0).forEach((close) => close()));

  /** A hook that answers 200, or holds every request while `hold` says so. */
  async function hook(hold: () => boolean) {
    const held: Array<() => void> = [];
    let requests = 0;
    const server = createServer((req, res) => {
      requests++;
      req.resume();
      req.on('end', () => {
        const answer = () => {
          res.statusCode = 200;
          res.end();
        };
        if (hold()) held.push(answer);
        else answer();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => {
      server.closeAllConnections();
      server.close();
    });
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, held, requests: () => requests };
  }

  it('without --json, stdout has only the event lines; the delivery lines go to stderr', async () => {
    const target = await hook(() => false);
    const run = runCli(['events', 'tail', '--max-events', '4', '--forward-to', target.url], { env: keyEnv() });
    await streamsOpen();
    await publish('call.started', 4);
    const { exitCode, stdout, stderr } = await run;
    expect(exitCode, stderr).toBe(0);
    const lines = stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(4);
    expect(lines.every((line) => line.includes('call.started') && !line.includes('→') && !line.includes('POST'))).toBe(true);
    expect(stderr.match(/→ 200 POST /g)).toHaveLength(4);
  });

  it('a stalled endpoint: reading stops at 1,000 queued events, and Ctrl-C says how many were still queued', async () => {
    const target = await hook(() => true); // never answers: every delivery waits
    const controller = new AbortController();
    const cli = startCli(['events', 'tail', '--json', '--forward-to', target.url], { signal: controller.signal });
    await streamsOpen();
    await publish('call.started', 1200);
    const printed = () => cli.stdout().split('\n').filter(Boolean).length;
    // The first delivery arrives and is held.
    await until(() => printed() >= 1000 && target.held.length === 1, '1,000 events printed and the first delivery held');
    // One delivery answered frees one place: the second delivery starts and exactly one more event is read.
    target.held.shift()!();
    await until(() => target.requests() === 2 && printed() >= 1001, 'the second delivery and the 1,001st event');
    controller.abort();
    expect(await cli.done).toBe(130);
    // Read minus forwarded is the queue: it stayed at its bound while 199 more events were there to read.
    expect(printed()).toBe(1001);
    expect(cli.stderr()).toMatch(/stopped: 1001 events, 0 reconnects, 1 forwarded, 0 not delivered, 1000 still queued \(not forwarded\)/);
    expect(cli.stderr()).not.toMatch(/gave up/); // a stop is not a failed delivery
  });
});

describe('events tail against a server that repeats itself', () => {
  it('prints each event once even when a resumed stream replays events already sent', async () => {
    const frame = (n: number) =>
      `id: evt_${n}\nevent: call.started\ndata: {"object":"event","id":"evt_${n}","type":"call.started","created_at":"2026-01-01T00:00:00Z","livemode":false,"data":{}}\n\n`;
    const lastEventIds: Array<string | undefined> = [];
    const server = createServer((req, res) => {
      if (!req.url?.startsWith('/v1/events/stream')) {
        res.statusCode = 404;
        res.setHeader('content-type', 'application/json');
        return res.end('{"detail":"not here"}');
      }
      lastEventIds.push(req.headers['last-event-id'] as string | undefined);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (lastEventIds.length === 1) {
        res.end([1, 2, 3].map(frame).join(''));
      } else {
        // Ignores Last-Event-ID and starts over: the tail must not print 1-3 again.
        res.write([1, 2, 3, 4, 5].map(frame).join(''));
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { exitCode, stdout, stderr } = await runCli(['events', 'tail', '--json', '--max-events', '5'], {
        env: { SVC_API_KEY: 'svc_test_0123456789abcdef', SVC_BASE_URL: url },
      });
      expect(exitCode, stderr).toBe(0);
      expect(ndjson(stdout).map((e) => e.id)).toEqual(['evt_1', 'evt_2', 'evt_3', 'evt_4', 'evt_5']);
      expect(lastEventIds).toEqual([undefined, 'evt_3']);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('events tail against a server that goes silent', () => {
  // On a virtual clock that moves only while no request awaits its answer's head, never with the machine's speed.
  it('reconnects with Last-Event-ID when no byte arrives for 45 s', async () => {
    const frame = (n: number) =>
      `id: evt_${n}\nevent: call.started\ndata: {"object":"event","id":"evt_${n}","type":"call.started","created_at":"2026-01-01T00:00:00Z","livemode":false,"data":{}}\n\n`;
    const lastEventIds: Array<string | undefined> = [];
    const server = createServer((req, res) => {
      if (!req.url?.startsWith('/v1/events/stream')) {
        res.statusCode = 404;
        return res.end();
      }
      lastEventIds.push(req.headers['last-event-id'] as string | undefined);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // The first connection sends one event and then nothing, not even a keepalive, and never ends.
      res.write(frame(lastEventIds.length));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const http = countingTransport(createHttp({ env: {}, userAgent: 'svc/test', now: () => clock.now() }));
    const clock = virtualClock(Date.now(), () => http.waiting() === 0);
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { exitCode, stdout, stderr } = await runCli(['events', 'tail', '--json', '--max-events', '2'], {
        env: { SVC_API_KEY: 'svc_test_0123456789abcdef', SVC_BASE_URL: url },
        clock,
        http,
      });
      expect(exitCode, stderr).toBe(0);
      expect(ndjson(stdout).map((e) => e.id)).toEqual(['evt_1', 'evt_2']);
      expect(lastEventIds).toEqual([undefined, 'evt_1']);
      expect(stderr).toMatch(/connection lost \(no data for 45 s\)/);
      expect(stderr).toMatch(/reconnected after .* away, resuming after evt_1/);
    } finally {
      await http.close();
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('events tail against a server that sends nothing (on a clock running 1,000 times faster)', () => {
  const fastClock = () => {
    const origin = Date.now();
    return {
      now: () => origin + (Date.now() - origin) * 1000,
      sleep: (ms: number, signal?: AbortSignal) => delay(ms / 1000, undefined, { signal }),
    };
  };

  // On a virtual clock that moves only while no request awaits its answer's head, never with the machine's speed.
  it('headers and then silence: --idle-timeout fires, and no "reconnected" is said though connections were answered', async () => {
    let streams = 0;
    const http = countingTransport(createHttp({ env: {}, userAgent: 'svc/test', now: () => clock.now() }));
    const clock = virtualClock(Date.now(), () => http.waiting() === 0);
    const server = createServer((req, res) => {
      if (!req.url?.startsWith('/v1/events/stream')) {
        res.statusCode = 404;
        return res.end();
      }
      streams++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { exitCode, stdout, stderr } = await runCli(['events', 'tail', '--json', '--idle-timeout', '100s'], {
        env: { SVC_API_KEY: 'svc_test_0123456789abcdef', SVC_BASE_URL: url },
        clock,
        http,
      });
      expect(exitCode, stderr).toBe(9);
      expect(stdout).toBe('');
      // Cut after the 45 s heartbeat, tried again, given up at --idle-timeout.
      expect(streams).toBeGreaterThanOrEqual(2);
      expect(stderr).toMatch(/the stream opened but nothing arrived in [\d.]+ s; retrying…/);
      // Given up once the 100 s had passed.
      const silence = /nothing from the event stream for (?:(\d+) min)? ?(?:([\d.]+) s)? \(--idle-timeout/.exec(stderr);
      expect(silence, stderr).not.toBeNull();
      expect(Number(silence![1] ?? 0) * 60 + Number(silence![2] ?? 0)).toBeGreaterThanOrEqual(100);
      expect(stderr).not.toMatch(/reconnected|connected after/);
    } finally {
      await http.close();
      server.closeAllConnections();
      server.close();
    }
  });

  it('a connection accepted but never answered is not called "cannot connect"', async () => {
    const sockets = new Set<Socket>();
    // TCP is accepted; the stream request gets no answer at all (other requests a 404).
    const server = createNetServer((socket) => {
      sockets.add(socket);
      socket.once('data', (chunk) => {
        if (!chunk.toString('latin1').includes('/v1/events/stream')) socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { exitCode, stderr } = await runCli(['events', 'tail', '--json', '--idle-timeout', '100s'], {
        env: { SVC_API_KEY: 'svc_test_0123456789abcdef', SVC_BASE_URL: url },
        clock: fastClock(),
      });
      expect(exitCode, stderr).toBe(9);
      expect(stderr).toMatch(/no answer to the stream request in [\d.]+ s/);
      expect(stderr).not.toMatch(/cannot connect|cannot reach/);
    } finally {
      for (const socket of sockets) socket.destroy();
      server.close();
    }
  });
});

describe('events tail with an OAuth profile', () => {
  it('refreshes an expired token mid-stream and resumes without a gap', async () => {
    // Sign in as `svc login` would, through the emulator's approvals and token endpoint.
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    await plane().approve({ email: emu().seed.admin.email, org_id: emu().seed.org_id });
    const redirectUri = 'http://127.0.0.1:53682/callback';
    const authorize = new URL(`${emu().url}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      client_id: emu().seed.cli_client_id,
      redirect_uri: redirectUri,
      state: 's1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      response_type: 'code',
    }))
      authorize.searchParams.set(k, v);
    const redirect = await fetch(authorize, { redirect: 'manual' });
    const code = new URL(redirect.headers.get('location')!).searchParams.get('code')!;
    const tokenRes = await fetch(`${emu().url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_id: emu().seed.cli_client_id,
      }),
    });
    const tokens = (await tokenRes.json()) as { access_token: string; refresh_token: string; expires_in: number; scope: string; org_id: string };
    expect(tokens.access_token).toMatch(/^svc_oat_/);

    const configDir = tempConfigDir();
    const expiresAt = Date.now() + tokens.expires_in * 1000;
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({
        version: 1,
        default_profile: 'acme',
        profiles: {
          acme: {
            base_url: emu().url,
            org_id: tokens.org_id,
            org_name: 'Acme',
            mode: 'live',
            oauth: { client_id: emu().seed.cli_client_id, scopes: tokens.scope.split(' '), expires_at: expiresAt, storage: 'memory' },
          },
        },
      }),
    );
    const secrets = new MemorySecretStore();
    await secrets.set(
      'acme',
      'oauth',
      JSON.stringify({
        org_id: tokens.org_id,
        access_token: tokens.access_token,
        refresh_token: tokens.refresh_token,
        expires_at: expiresAt,
        scope: tokens.scope,
        client_id: emu().seed.cli_client_id,
        token_endpoint: `${emu().url}/oauth2/token`,
      }),
    );

    const run = runCli(['events', 'tail', '--json', '--max-events', '40'], { configDir, secrets });
    await streamsOpen();
    await publish('call.started', 20, 'live');
    // An hour passes on the service's clock: the token expires and the stream ends.
    await plane().advanceClock(3601);
    await publish('call.ended', 20, 'live');
    const { exitCode, stdout, stderr } = await run;
    expect(exitCode, stderr).toBe(0);
    const events = ndjson(stdout);
    expect(events).toHaveLength(40);
    expectStrictlyIncreasingUnique(events.map((e) => e.id));
    expect(events.every((e) => e.livemode)).toBe(true);
    expect(events.filter((e) => e.type === 'call.ended')).toHaveLength(20);
    const stats = await plane().stats();
    expect(stats.refreshes).toBe(1);
    // The rotated pair was stored.
    const stored = JSON.parse((await secrets.get('acme', 'oauth'))!) as { refresh_token: string };
    expect(stored.refresh_token).not.toBe(tokens.refresh_token);
    expect(stderr).not.toContain(tokens.access_token);
  });
});

describe('starting with SVC_API_KEY', () => {
  it('asks who the organization is while the stream opens, not before it (one round trip to start)', async () => {
    // The account answer is held until the stream's request arrives (or 2 s pass): a tail that
    // waited for the answer before opening the stream would only send it after those 2 s.
    let streamAsked!: () => void;
    const streamArrived = new Promise<void>((resolve) => (streamAsked = resolve));
    let streamBeforeAccountAnswer: boolean | undefined;
    const server = createServer((req, res) => {
      if (req.url?.startsWith('/v1/account')) {
        const held = delay(2000).then(() => false);
        void Promise.race([streamArrived.then(() => true), held]).then((arrived) => {
          streamBeforeAccountAnswer = arrived;
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({ object: 'account', id: 'org_race', name: 'Race', livemode: false, credential: { type: 'api_key', scopes: ['events:read'] } }),
          );
        });
        return;
      }
      streamAsked();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        `id: evt_000000000001\nevent: call.started\ndata: ${JSON.stringify({ object: 'event', id: 'evt_000000000001', type: 'call.started', created_at: '2026-01-01T00:00:00Z', livemode: false, data: {} })}\n\n`,
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const r = await runCli(['events', 'tail', '--json', '--max-events', '1'], { env: { SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: url } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(streamBeforeAccountAnswer).toBe(true);
      expect(r.stderr).toMatch(/^Tailing test-mode events of Race \(org_race\), SVC_API_KEY/);
    } finally {
      server.close();
    }
  });
});
