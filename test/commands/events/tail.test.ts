// `svc events tail`: its behaviour against the emulator, then its parse rules; its themes are in tail/ beside this file
// (forwarding, servers of the test's own, credentials, frames, files, positions).
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { startTestEmulator } from '../../helpers/emulator.js';
import { runCli } from '../../helpers/cli.js';
import { heldClock } from '../../events/held-clock.js';
import { parsing } from '../../helpers/parse.js';
import { useTailSuite } from '../../helpers/tail.js';

const { emu, plane, publish, streamsOpen, keyEnv, ndjson, startCli, until, expectStrictlyIncreasingUnique } = useTailSuite();

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
