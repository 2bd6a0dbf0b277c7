// `svc events tail`: its behaviour against the emulator and servers of the test's own, then its parse rules (apart from running).
// `svc events tail` in-process against the emulator over real HTTP.
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync, chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestEmulator, useStreamEmulator, useTestEmulator } from '../../helpers/emulator.js';
import { execute } from '../../../src/main.js';
import type { Runtime } from '../../../src/cli/context.js';
import { MemorySecretStore } from '../../../src/credentials/store.js';
import { runCli, tempConfigDir } from '../../helpers/cli.js';
import { heldClock } from '../../events/held-clock.js';
import { countingTransport, virtualClock } from '../../helpers/clock.js';
import { createHttp } from '../../../src/api/http.js';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { parsing } from '../../helpers/parse.js';

const { emu, plane } = useStreamEmulator();

const publish = (type: string, count: number, mode: 'test' | 'live' = 'test') => plane().publishEvents({ org_id: emu().seed.org_id, mode, type, count });

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

// `events tail` reads a stream whose frames are outside input: each is checked against the
// contract's event shape (as `events list` answers are) before it is printed, recorded or
// counted, and --max-events counts the events the --jq filter printed something for. A small
// server sends each malformed frame a stream could carry, then real events.
describe('events tail and the frames it reads', () => {
  const event = (id: string, type = 'call.started', extra: Record<string, unknown> = {}) => ({
    object: 'event',
    id,
    type,
    created_at: '2026-01-01T00:00:00Z',
    livemode: false,
    data: { id: 'call_1', object: 'call' },
    ...extra,
  });
  const frame = (data: string, id?: string, type?: string) => `${id ? `id: ${id}\n` : ''}${type ? `event: ${type}\n` : ''}data: ${data}\n\n`;
  const eventFrame = (e: ReturnType<typeof event>) => frame(JSON.stringify(e), e.id, e.type);

  /** Every way a frame can fail to be an event (18), each sent bare and each with SSE id and type lines. */
  const FIELDS = ['id', 'type', 'object', 'created_at', 'livemode', 'data'] as const;
  const MALFORMED = [
    '{}',
    '[]',
    'null',
    '"evt_000000000009"',
    '{"object":"event",',
    '',
    ...FIELDS.map((field) => {
      const e: Record<string, unknown> = event('evt_missing');
      delete e[field];
      return JSON.stringify(e);
    }),
    ...FIELDS.map((field) => JSON.stringify(event('evt_mistyped', 'call.started', { [field]: field === 'livemode' ? 'no' : field === 'data' ? 'x' : 42 }))),
  ];

  let servers: Array<() => void> = [];
  afterEach(() => {
    for (const close of servers) close();
    servers = [];
  });

  /** A service whose event stream is `send`; any other endpoint is a 404. */
  async function streamServer(send: (res: ServerResponse) => void): Promise<Record<string, string>> {
    const server = createServer((req, res) => {
      if (!req.url?.startsWith('/v1/events/stream')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return res.end('{"detail":"not here"}');
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      send(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(() => {
      server.closeAllConnections();
      server.close();
    });
    return { SVC_API_KEY: 'svc_test_0123456789abcdef', SVC_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }

  describe('events tail: a frame that is not an event', () => {
    const good = event('evt_000000000001');
    const stream = (res: ServerResponse) =>
      res.write(MALFORMED.map((data, i) => (i % 2 ? frame(data, `evt_00000000010${i}`, 'call.started') : frame(data))).join('') + eventFrame(good));

    it('is never printed nor counted, with --json, --jq or human lines; a warning names its first bytes', async () => {
      expect(MALFORMED).toHaveLength(18);
      const env = await streamServer(stream);
      const json = await runCli(['events', 'tail', '--json', '--max-events', '1'], { env });
      expect(json.exitCode, json.stderr).toBe(0);
      // stdout: only whole JSON lines, only the event.
      expect(json.stdout).toBe(`${JSON.stringify(good)}\n`);
      const warnings = json.stderr.split('\n').filter((line) => line.startsWith('warning: skipped a stream message that is not an event: '));
      expect(warnings).toHaveLength(18);
      expect(warnings).toContain('warning: skipped a stream message that is not an event: {"object":"event",');
      expect(warnings).toContain('warning: skipped a stream message that is not an event: (empty)');
      expect(warnings).toContain('warning: skipped a stream message that is not an event: []');

      const filtered = await runCli(['events', 'tail', '--jq', '.id', '--max-events', '1'], { env });
      expect([filtered.exitCode, filtered.stdout]).toEqual([0, `${good.id}\n`]);

      const human = await runCli(['events', 'tail', '--max-events', '1'], { env });
      expect(human.exitCode, human.stderr).toBe(0);
      expect(human.stdout.trimEnd().split('\n')).toHaveLength(1);
      expect(human.stdout).toContain(good.id);
    });
  });

  describe('events tail --jq', () => {
    it('--max-events counts the events the filter printed for: a select waits for the event it selects', async () => {
      const env = await streamServer((res) =>
        res.write(
          eventFrame(event('evt_000000000001', 'call.started')) +
            eventFrame(event('evt_000000000002', 'chat.started')) +
            eventFrame(event('evt_000000000003', 'chat.closed')),
        ),
      );
      const r = await runCli(['events', 'tail', '--jq', 'select(.type == "chat.closed") | .id', '--max-events', '1'], { env });
      expect([r.exitCode, r.stdout]).toEqual([0, 'evt_000000000003\n']);
    });

    it('a filter that fails on an event stops the tail there, in a burst as one at a time', async () => {
      const events = [1, 2, 3].map((n) => event(`evt_00000000000${n}`));
      const filter = 'if .id == "evt_000000000002" then error("bad event") else .id end';
      const burst = await streamServer((res) => res.write(events.map(eventFrame).join('')));
      const oneAtATime = await streamServer((res) => {
        let next = 0;
        const send = () => {
          if (res.destroyed || next === events.length) return;
          res.write(eventFrame(events[next++]!));
          setTimeout(send, 30);
        };
        send();
      });
      for (const env of [burst, oneAtATime]) {
        const r = await runCli(['events', 'tail', '--jq', filter], { env });
        expect(r.exitCode, r.stderr).toBe(5);
        expect(r.stdout).toBe('evt_000000000001\n');
        // jq's words are the last on stderr, as `jq -r` leaves them.
        expect(r.stderr).toMatch(/jq: error \(at <stdin>:1\): bad event\n$/);
      }
    });
  });
});

// The files `events tail` writes (--checkpoint, --record, --dead-letter) are checked when it
// starts, before the stream is opened (issue 24): a path that cannot be written fails with
// exit 2 naming it, before any event is consumed; whatever is at the path must be a regular
// file (a FIFO, folder, link or oversized checkpoint is refused unread), and permissions are
// tightened on the opened file itself, never through a link.
describe('events tail and the files it writes', () => {
  const { emu, plane } = useStreamEmulator();
  const env = () => ({ SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: emu().url });
  const tmp = () => mkdtempSync(join(tmpdir(), 'svc-own-files-'));
  const forward = ['--forward-to', 'http://127.0.0.1:9/hook'];

  /** Runs a tail that must be refused at start: exit 2, nothing on stdout, no request to the service. */
  async function refused(argv: string[]): Promise<string> {
    await plane().publishEvents({ org_id: emu().seed.org_id, mode: 'test', type: 'call.started', count: 3 });
    const before = (await plane().stats()).requests;
    const { exitCode, stdout, stderr } = await runCli(['events', 'tail', '--json', '--max-events', '1', ...argv], { env: env() });
    expect(exitCode, stderr).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).not.toMatch(/Tailing|unexpected/);
    // The stats call itself is the only request, if the emulator counts control requests at all.
    expect((await plane().stats()).requests - before).toBeLessThanOrEqual(1);
    return stderr;
  }

  describe('events tail: files it writes, checked at start', () => {
    it('a --checkpoint, --record or --dead-letter in a folder that does not exist: exit 2 naming the path, before any event', async () => {
      const missing = join(tmp(), 'nonexistent', 'dir');
      expect(await refused(['--checkpoint', join(missing, 'ck')])).toContain(
        `--checkpoint ${join(missing, 'ck')}: cannot write it (its folder does not exist)`,
      );
      expect(await refused(['--record', join(missing, 'rec')])).toContain(`--record ${join(missing, 'rec')}: cannot write it (its folder does not exist)`);
      expect(await refused([...forward, '--dead-letter', join(missing, 'dead')])).toContain(`--dead-letter ${join(missing, 'dead')}: cannot write it`);
    });

    it.skipIf(process.getuid?.() === 0)('a folder without write permission: exit 2 naming the path', async () => {
      const dir = tmp();
      chmodSync(dir, 0o500);
      try {
        expect(await refused(['--checkpoint', join(dir, 'ck')])).toContain(`--checkpoint ${join(dir, 'ck')}: cannot write it (permission denied)`);
        expect(await refused(['--record', join(dir, 'rec')])).toContain('permission denied');
      } finally {
        chmodSync(dir, 0o700);
      }
    });

    it('a checkpoint that is a FIFO, a folder, a link or over 1 MiB is refused unread, naming it', async () => {
      const dir = tmp();
      const fifo = join(dir, 'fifo');
      execFileSync('mkfifo', [fifo]);
      expect(await refused(['--checkpoint', fifo])).toContain(`--checkpoint ${fifo} is a FIFO, not a regular file`);
      const folder = join(dir, 'folder');
      mkdirSync(folder);
      expect(await refused(['--checkpoint', folder])).toContain(`--checkpoint ${folder} is a directory`);
      const big = join(dir, 'big');
      writeFileSync(big, 'x'.repeat(1024 * 1024 + 1));
      expect(await refused(['--checkpoint', big])).toContain(`--checkpoint ${big} is larger than 1024 KiB`);
      const target = join(dir, 'elsewhere');
      writeFileSync(target, JSON.stringify({ last_event_id: 'evt_0000000001', updated_at: new Date().toISOString() }));
      const link = join(dir, 'link');
      symlinkSync(target, link);
      expect(await refused(['--checkpoint', link])).toContain(`--checkpoint ${link} is a symbolic link`);
    });

    it('a --record or --dead-letter that is a FIFO or a link is refused; the linked file is neither written nor changed', async () => {
      const dir = tmp();
      const fifo = join(dir, 'fifo');
      execFileSync('mkfifo', [fifo]);
      expect(await refused(['--record', fifo])).toContain(`--record ${fifo}: cannot write it (it is a FIFO or device, not a regular file)`);
      const target = join(dir, 'someone-elses');
      writeFileSync(target, 'theirs\n');
      chmodSync(target, 0o644);
      const link = join(dir, 'link');
      symlinkSync(target, link);
      expect(await refused(['--record', link])).toContain(`is a symbolic link`);
      expect(await refused([...forward, '--dead-letter', link])).toContain(`--dead-letter ${link} is a symbolic link`);
      expect(readFileSync(target, 'utf8')).toBe('theirs\n');
      expect(statSync(target).mode & 0o777).toBe(0o644);
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
    });

    it('an existing --record readable by others is tightened to 0600 on the file itself, and appended to', async () => {
      const dir = tmp();
      const file = join(dir, 'rec.ndjson');
      writeFileSync(file, '{"earlier":true}\n');
      chmodSync(file, 0o644);
      const run = runCli(['events', 'tail', '--json', '--max-events', '1', '--record', file], { env: env() });
      await plane().streamsOpen();
      await plane().publishEvents({ org_id: emu().seed.org_id, mode: 'test', type: 'call.started', count: 1 });
      const { exitCode, stderr } = await run;
      expect(exitCode, stderr).toBe(0);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
      expect(lines).toHaveLength(2);
      expect(JSON.parse(lines[1]!).type).toBe('call.started');
    });
  });
});

// The gap end to end: a resume after an id the emulator does not retain gets the contract's
// `event: gap` frame first. From a checkpoint (the tail's own position) svc warns on stderr and
// goes on (exit 0), or with --fail-on-gap exits 1; the retained events still arrive, in order.
// From --since (what a person typed) the id is unknown: svc stops, nothing replayed.
describe('events tail and a gap', () => {
  const emu = useTestEmulator({ resetEach: true });
  const env = () => ({ SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: emu().url });

  /** A checkpoint file (as the tail writes it) that resumes after `id`. */
  function checkpointAt(id: string): string {
    const path = join(tempConfigDir(), 'tail.ckpt');
    writeFileSync(path, JSON.stringify({ last_event_id: id, updated_at: new Date().toISOString() }) + '\n');
    return path;
  }

  describe('events tail --since an id the service does not have (issue 44: a typo replayed the history)', () => {
    it('is "unknown": exit 5, nothing replayed, printed or forwarded; --since start is how to ask for every retained event', async () => {
      const published = await emu().plane.publishEvents({ org_id: emu().seed.org_id, mode: 'test', type: 'call.started', count: 3 });
      const deliveries: string[] = [];
      const handler = createServer((req, res) => {
        deliveries.push(req.url ?? '');
        res.end();
      });
      await new Promise<void>((resolve) => handler.listen(0, '127.0.0.1', resolve));
      const forwardTo = `http://127.0.0.1:${(handler.address() as AddressInfo).port}/hooks`;
      try {
        const run = await runCli(['events', 'tail', '--since', 'evt_nonexistent', '--forward-to', forwardTo, '--json'], { env: env() });
        expect(run.exitCode).toBe(5);
        expect(run.stdout).toBe('');
        expect(run.stderr).toContain('--since evt_nonexistent: the service does not know this event');
        expect(run.stderr).toContain('nothing was replayed');
        expect(run.stderr).not.toContain('no longer retains');
        expect(run.stderr).toContain('use --since start');
        expect(deliveries).toEqual([]);
      } finally {
        handler.close();
      }
      const all = await runCli(['events', 'tail', '--since', 'start', '--max-events', '3', '--json'], { env: env() });
      expect(all.exitCode, all.stderr).toBe(0);
      expect(
        all.stdout
          .trim()
          .split('\n')
          .map((line) => (JSON.parse(line) as { id: string }).id)
          .at(-1),
      ).toBe(published.last_id);
    });

    it('a known one is not "unknown" later: a reconnect whose gap names it (it left retention meanwhile) is the warning, and the tail goes on', async () => {
      const plane = emu().plane;
      const publish = (type: string, count: number) => plane.publishEvents({ org_id: emu().seed.org_id, mode: 'test', type, count });
      const since = (await publish('call.started', 1)).first_id;
      // The filter lets none of the burst through, so nothing is handed on before the drop, and
      // the reconnect asks again for --since, which the burst has pushed out of retention.
      const run = runCli(['events', 'tail', '--since', since, '--type', 'chat.closed', '--max-events', '1', '--json'], { env: env() });
      await plane.streamsOpen();
      await publish('call.started', 10_005);
      await plane.dropStreams();
      await plane.streamsClosed();
      // Back (or, with the bug, ended with exit 5): whichever comes first.
      const ended = await Promise.race([run, plane.streamsOpen().then(() => undefined)]);
      expect(ended?.stderr ?? '').not.toContain('does not know this event');
      const closed = await publish('chat.closed', 1);
      const { exitCode, stdout, stderr } = await run;
      expect(exitCode, stderr).toBe(0);
      expect((JSON.parse(stdout) as { id: string }).id).toBe(closed.first_id);
      expect(stderr).toMatch(
        new RegExp(`warning: the service no longer retains the events after ${since} \\(where this stream was asked to resume\\)[^\\n]*may be missing`),
      );
    });

    it('a malformed one is refused before anything is sent (exit 2)', async () => {
      for (const since of ['evt_', 'evt_a/b', 'evt_ a', 'call_8f2a1c', 'nonexistent']) {
        const run = await runCli(['events', 'tail', '--since', since], { env: { SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: 'http://127.0.0.1:9' } });
        expect(run.exitCode, since).toBe(2);
        expect(run.stderr).toContain('--since');
      }
    });
  });

  describe('events tail resuming from a checkpoint the service no longer retains', () => {
    it('warns that later events may be missing, names the id, and prints the retained events', async () => {
      const published = await emu().plane.publishEvents({ org_id: emu().seed.org_id, mode: 'test', type: 'call.started', count: 3 });
      const run = await runCli(['events', 'tail', '--checkpoint', checkpointAt('evt_forgottenlongago'), '--max-events', '3', '--json'], { env: env() });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/warning: the service no longer retains the events after evt_forgottenlongago[^\n]*later events may be missing/);
      const ids = run.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: string }).id);
      expect(ids).toHaveLength(3);
      expect(ids[2]).toBe(published.last_id);
    });

    it('--fail-on-gap exits 1 instead, before printing anything', async () => {
      await emu().plane.publishEvents({ org_id: emu().seed.org_id, mode: 'test', type: 'call.started', count: 2 });
      const run = await runCli(['events', 'tail', '--checkpoint', checkpointAt('evt_forgottenlongago'), '--fail-on-gap', '--json'], { env: env() });
      expect(run.exitCode).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/no longer retains the events after evt_forgottenlongago/);
    });
  });

  describe('events tail resuming just past retention (a burst the tail fell behind)', () => {
    /** The id of the event `offset` after `id` in one burst (ids carry their sequence number, base 36). */
    const after = (id: string, offset: number) => `evt_${(parseInt(id.slice(4), 36) + offset).toString(36).padStart(10, '0')}`;

    it('resuming after the newest event no longer retained reports no gap: nothing is missing', async () => {
      // 10,001 events: the first is no longer retained, the second is the oldest retained.
      const published = await emu().plane.publishEvents({ org_id: emu().seed.org_id, mode: 'test', type: 'call.started', count: 10_001 });
      const run = await runCli(['events', 'tail', '--since', published.first_id, '--max-events', '1', '--json'], { env: env() });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stderr).not.toMatch(/no longer retains|may be missing/);
      expect((JSON.parse(run.stdout) as { id: string }).id).toBe(after(published.first_id, 1));
    });

    it('one event older than that is really missing: the gap is reported (a checkpoint; a --since would stop, unknown)', async () => {
      const published = await emu().plane.publishEvents({ org_id: emu().seed.org_id, mode: 'test', type: 'call.started', count: 10_002 });
      const run = await runCli(['events', 'tail', '--checkpoint', checkpointAt(published.first_id), '--max-events', '1', '--json'], { env: env() });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/no longer retains the events after evt_\w+[^\n]*may be missing/);
      expect((JSON.parse(run.stdout) as { id: string }).id).toBe(after(published.first_id, 2));
    });

    it('and right after a batch trim (11,001 published: 1,001 trimmed at once) the newest trimmed event is still known', async () => {
      const published = await emu().plane.publishEvents({ org_id: emu().seed.org_id, mode: 'test', type: 'call.started', count: 11_001 });
      const newestDropped = after(published.first_id, 1_000);
      const run = await runCli(['events', 'tail', '--since', newestDropped, '--max-events', '1', '--json'], { env: env() });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stderr).not.toMatch(/no longer retains|may be missing/);
      expect((JSON.parse(run.stdout) as { id: string }).id).toBe(after(published.first_id, 1_001));
    });
  });
});

const { ok, refused } = parsing('events tail');

describe('svc events tail: parse', () => {
  it('parses its flags and arguments', async () => {
    const opts = (await ok(
      'events',
      'tail',
      '--type',
      'call.',
      '--type',
      'chat.closed',
      '--since',
      'evt_1',
      '--max-events',
      '10',
      '--forward-to',
      'http://localhost:3000/h',
      '--timeout',
      '30s',
    )) as Record<string, unknown>;
    expect(opts).toMatchObject({ since: 'evt_1', maxEvents: 10, routes: [{ url: 'http://localhost:3000/h' }], deadlineMs: 30_000 });
    expect(opts.types).toHaveLength(2);
    expect(await refused('events', 'tail', '--max-events', '0')).toContain('--max-events');
    expect(await refused('events', 'tail', '--forward-to', 'ftp://x')).toContain('http or https');
    expect(await refused('events', 'tail', '--type', 'nonsense')).toContain('not an event type');
    expect(
      await ok(
        'events',
        'tail',
        '--forward-to',
        'call.*=http://localhost:3000/calls',
        '--forward-header',
        'X-Env: test',
        '--dead-letter',
        'dead.ndjson',
        '--record',
        'all.ndjson',
        '--checkpoint',
        'tail.ckpt',
        '--fail-on-gap',
      ),
    ).toMatchObject({ deadLetter: 'dead.ndjson', record: 'all.ndjson', checkpoint: 'tail.ckpt', failOnGap: true, forwardHeaders: { 'x-env': 'test' } });
    expect(await ok('events', 'tail', '--print-secret')).toMatchObject({ printSecret: true });
  });
});
