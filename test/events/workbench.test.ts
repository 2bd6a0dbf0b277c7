// The event consumer's workbench (issue 16) in-process against the emulator and a local
// receiving server of the test's own: trigger, signed forwarding, per-type routes, dead
// letters, record → replay, gaps. The signature is checked here with node:crypto only.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { useStreamEmulator } from '../helpers/emulator.js';
import { execute } from '../../src/main.js';
import type { Runtime } from '../../src/cli/context.js';
import type { Clock } from '../../src/context.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';

const { emu, plane } = useStreamEmulator();

const closers: Array<() => void> = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

const publish = (type: string, count: number) => plane().publishEvents({ org_id: emu().seed.org_id, mode: 'test', type, count });
const streamsOpen = (n = 1) => plane().streamsOpen(n);
async function until(condition: () => boolean, what: string, ms = 8000): Promise<void> {
  for (let i = 0; i < ms / 10; i++) {
    if (condition()) return;
    await delay(10);
  }
  throw new Error(`${what} not met after ${ms} ms`);
}

const keyEnv = (key = emu().seed.keys.test) => ({ SVC_API_KEY: key, SVC_BASE_URL: emu().url });
const tmp = () => mkdtempSync(join(tmpdir(), 'svc-workbench-'));

/** Retry waits divided by 100: a dead URL is given up on in tens of milliseconds. */
const fastClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) => delay(ms / 100, undefined, signal ? { signal } : {}),
};

/** The CLI in-process, its output visible while it runs. */
function startCli(argv: string[], opts: { env?: Record<string, string>; secrets?: MemorySecretStore; signal?: AbortSignal; clock?: Clock } = {}) {
  let stdout = '';
  let stderr = '';
  const configDir = tempConfigDir();
  const runtime: Runtime = {
    env: { HOME: configDir, SVC_CONFIG_DIR: configDir, ...keyEnv(), ...opts.env },
    stdout: { isTTY: false, write: (chunk) => void (stdout += chunk) },
    stderr: { isTTY: false, write: (chunk) => void (stderr += chunk) },
    stdin: { isTTY: false, readAll: async () => '', lines: async function* () {} },
    clock: opts.clock ?? { now: () => Date.now(), sleep: (ms, signal) => delay(ms, undefined, signal ? { signal } : {}) },
    random: { bytes: (n) => new Uint8Array(randomBytes(n)) },
    browser: { open: async () => {} },
    signal: opts.signal ?? new AbortController().signal,
    secrets: opts.secrets ?? new MemorySecretStore(),
  };
  return { done: execute(argv, runtime), stdout: () => stdout, stderr: () => stderr };
}

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver: records every request, answers `status(n)` (200 by default). */
async function receiver(status: (n: number, req: Received) => number = () => 200) {
  const received: Received[] = [];
  let n = 0;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const r = { path: req.url ?? '', headers: req.headers, body };
      const code = status(++n, r);
      if (code >= 200 && code < 300) received.push(r);
      res.statusCode = code;
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, url: `${base}/hooks`, received };
}

/** A port nothing listens on. */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  return `http://127.0.0.1:${port}/hooks`;
}

/** Stripe's scheme, written from its description only: t=<unix s>,v1=<hex HMAC-SHA256("<t>.<body>")>. */
function verify(secret: string, header: string | undefined, body: string, nowSeconds = Date.now() / 1000, toleranceSeconds = 300): boolean {
  const parts = Object.fromEntries((header ?? '').split(',').map((kv) => kv.split('=') as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds || !parts.v1) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const ndjson = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { id: string; type: string; data: Record<string, unknown> });

describe('events trigger', () => {
  const causable = [
    'call.started',
    'call.ended',
    'link.created',
    'line.created',
    'line.released',
    'chat.started',
    'chat.message.created',
    'chat.closed',
    'translation.created',
  ];

  it('causes every type the test mode allows, each seen on the event stream', async () => {
    const controller = new AbortController();
    const tail = startCli(['events', 'tail', '--json'], { signal: controller.signal });
    await streamsOpen();
    const printed: string[] = [];
    for (const type of causable) {
      const run = await runCli(['events', 'trigger', type, '--json'], { env: keyEnv() });
      expect(run.exitCode, run.stderr).toBe(0);
      const objects = JSON.parse(run.stdout) as Array<{ id: string; object: string }>;
      expect(objects.length).toBeGreaterThan(0);
      expect(objects.every((o) => typeof o.object === 'string')).toBe(true);
      printed.push(type);
    }
    await until(() => causable.every((t) => ndjson(tail.stdout()).some((e) => e.type === t)), 'every type on the stream');
    // call.ended: the call it started and ended is the one the event carries.
    const ended = ndjson(tail.stdout()).find((e) => e.type === 'call.ended')!;
    expect(ended.data.status).toBe('ended');
    const message = ndjson(tail.stdout()).find((e) => e.type === 'chat.message.created')!;
    expect(String(message.data.chat_id)).toMatch(/^chat_/);
    expect(printed).toEqual(causable);
    controller.abort();
    expect(await tail.done).toBe(130);
  });

  it('prints what it created, one line per step, and --override changes a request field', async () => {
    const run = await runCli(['events', 'trigger', 'call.ended', '--override', 'call.title=Support line', '--override', 'call.languages=["en","fr"]'], {
      env: keyEnv(),
    });
    expect(run.exitCode, run.stderr).toBe(0);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t'));
    expect(lines.map((l) => l.slice(0, 3))).toEqual([
      ['call', 'calls.create', 'call'],
      ['ended', 'calls.end', 'call'],
    ]);
    expect(lines[0]![3]).toBe(lines[1]![3]); // the call just created is the one ended
    const call = (await (await fetch(`${emu().url}/v1/calls/${lines[0]![3]}`, { headers: { authorization: `Bearer ${emu().seed.keys.test}` } })).json()) as {
      title: string;
      languages: string[];
    };
    expect(call.title).toBe('Support line');
    expect(call.languages).toEqual(['en', 'fr']);
  });

  it("--fixture runs the user's own steps, with references between them", async () => {
    const file = join(tmp(), 'mine.json');
    writeFileSync(
      file,
      JSON.stringify({
        steps: [
          { name: 'call', request: 'calls.create', body: { languages: ['en', 'de'] } },
          { name: 'link', request: 'links.create', body: { call_id: '${call.id}', language: 'de' } },
        ],
      }),
    );
    const run = await runCli(['events', 'trigger', '--fixture', file, '--json'], { env: keyEnv() });
    expect(run.exitCode, run.stderr).toBe(0);
    const [call, link] = JSON.parse(run.stdout) as Array<{ id: string; call_id?: string }>;
    expect(link!.call_id).toBe(call!.id);
  });

  it('is refused in live mode (exit 2) with the reason, before any request', async () => {
    const before = (await plane().stats()).requests;
    const run = await runCli(['events', 'trigger', 'call.started'], { env: keyEnv(emu().seed.keys.live) });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/only in test mode.*billed/);
    expect(run.stdout).toBe('');
    const after = (await plane().stats()).requests;
    expect(after - before).toBeLessThanOrEqual(1);
  });

  it('is refused in live mode before any credential is looked for: --live or a live profile with none stored says "test mode only", exit 2', async () => {
    // No SVC_API_KEY and nothing stored: refused for the mode, not for the missing credential (exit 3).
    const flagged = await runCli(['events', 'trigger', 'call.started', '--live'], { env: { SVC_BASE_URL: emu().url } });
    expect(flagged.exitCode, flagged.stderr).toBe(2);
    expect(flagged.stderr).toMatch(/only in test mode.*billed \(--live\)/);
    expect(flagged.stderr).not.toMatch(/credential/);
    const configDir = tmp();
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({ version: 1, default_profile: 'default', profiles: { default: { mode: 'live', keys: {} } } }),
    );
    const profiled = await runCli(['events', 'trigger', 'call.started'], { env: { SVC_BASE_URL: emu().url }, configDir });
    expect(profiled.exitCode, profiled.stderr).toBe(2);
    expect(profiled.stderr).toMatch(/only in test mode.*\(profile "default" is in live mode\)/);
    expect(profiled.stderr).toContain('add --test');
  });

  it('says why dialling and balance changes cannot be caused in test mode (exit 2)', async () => {
    for (const [type, reason] of [
      ['call.participant.dialed', /refuses dialling in test mode/],
      ['balance.updated', /test mode is never billed/],
    ] as const) {
      const run = await runCli(['events', 'trigger', type], { env: keyEnv() });
      expect(run.exitCode, type).toBe(2);
      expect(run.stderr).toMatch(reason);
    }
  });

  it('refuses an unknown type and a broken fixture with exit 2', async () => {
    expect((await runCli(['events', 'trigger', 'call.exploded'], { env: keyEnv() })).exitCode).toBe(2);
    const file = join(tmp(), 'bad.json');
    writeFileSync(file, JSON.stringify({ steps: [{ request: 'oauth.token' }] }));
    const run = await runCli(['events', 'trigger', '--fixture', file], { env: keyEnv() });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/not a request a trigger can make/);
  });
});

describe('signed forwarding', () => {
  it('signs each delivery with the secret --print-secret prints; id, type and extra headers ride along', async () => {
    const secrets = new MemorySecretStore();
    const printed = await runCli(['events', 'tail', '--print-secret'], { env: keyEnv(), secrets });
    expect(printed.exitCode, printed.stderr).toBe(0);
    const secret = printed.stdout.trim();
    expect(secret).toMatch(/^svc_whsec_[0-9a-f]{48}$/);
    // Asked again: the same secret, kept in the secret store.
    expect((await runCli(['events', 'tail', '--print-secret'], { env: keyEnv(), secrets })).stdout.trim()).toBe(secret);

    const hook = await receiver();
    const tail = startCli(['events', 'tail', '--json', '--max-events', '5', '--forward-to', hook.url, '--forward-header', 'Authorization: Bearer dev'], {
      secrets,
    });
    await streamsOpen();
    await publish('chat.started', 5);
    expect(await tail.done, tail.stderr()).toBe(0);
    expect(hook.received).toHaveLength(5);
    for (const r of hook.received) {
      expect(verify(secret, r.headers['svc-signature'] as string, r.body)).toBe(true);
      expect(verify('svc_whsec_wrong', r.headers['svc-signature'] as string, r.body)).toBe(false);
      const event = JSON.parse(r.body) as { id: string; type: string };
      expect(r.headers['svc-event-id']).toBe(event.id);
      expect(r.headers['svc-event-type']).toBe('chat.started');
      expect(r.headers.authorization).toBe('Bearer dev');
    }
    // The secret appears nowhere but in the HMAC.
    expect(tail.stdout() + tail.stderr()).not.toContain(secret);
  });

  it("--debug shows a --forward-header by name, never its value (it may be the handler's token)", async () => {
    const hook = await receiver();
    const token = 'hook-token-s3cr3t-9f2e';
    const tail = startCli(['events', 'tail', '--debug', '--max-events', '1', '--forward-to', hook.url, '--forward-header', `X-Hook-Token: ${token}`]);
    await streamsOpen();
    await publish('call.started', 1);
    expect(await tail.done, tail.stderr()).toBe(0);
    expect(hook.received[0]!.headers['x-hook-token']).toBe(token);
    expect(tail.stderr()).not.toContain(token);
    expect(tail.stderr()).toContain(`> x-hook-token: …9f2e (${token.length} characters)`);
    // svc's own headers stay readable: what a handler's developer compares against.
    expect(tail.stderr()).toMatch(/> svc-event-type: call\.started/);
  });

  it('SVC_FORWARD_SECRET sets the secret instead', async () => {
    const hook = await receiver();
    const secret = 'my-own-forwarding-secret-123';
    const tail = startCli(['events', 'tail', '--max-events', '1', '--forward-to', hook.url], { env: { SVC_FORWARD_SECRET: secret } });
    await streamsOpen();
    await publish('call.started', 1);
    expect(await tail.done, tail.stderr()).toBe(0);
    expect(verify(secret, hook.received[0]!.headers['svc-signature'] as string, hook.received[0]!.body)).toBe(true);
    expect(tail.stderr()).not.toContain(secret);
  });

  it('routes each type to its own URL (TYPE=URL), in order on each', async () => {
    const hook = await receiver();
    const tail = startCli([
      'events',
      'tail',
      '--json',
      '--max-events',
      '7',
      '--forward-to',
      `call.*=${hook.base}/calls`,
      '--forward-to',
      `chat.closed=${hook.base}/chats`,
    ]);
    await streamsOpen();
    await publish('call.started', 2);
    await publish('chat.closed', 2);
    await publish('link.created', 1);
    await publish('call.ended', 2);
    expect(await tail.done, tail.stderr()).toBe(0);
    const at = (path: string) => hook.received.filter((r) => r.path === path).map((r) => r.headers['svc-event-type']);
    expect(at('/calls')).toEqual(['call.started', 'call.started', 'call.ended', 'call.ended']);
    expect(at('/chats')).toEqual(['chat.closed', 'chat.closed']);
    expect(hook.received).toHaveLength(6); // link.created went nowhere
  });

  it('a dead URL: each delivery given up is appended to the dead-letter file, and the tail exits 1', async () => {
    const dead = await deadUrl();
    const file = join(tmp(), 'dead.ndjson');
    const tail = startCli(['events', 'tail', '--json', '--max-events', '3', '--forward-to', dead, '--dead-letter', file], { clock: fastClock });
    await streamsOpen();
    await publish('line.created', 3);
    expect(await tail.done).toBe(1);
    expect(tail.stderr()).toMatch(/3 deliveries were given up after retries; written to/);
    const letters = ndjson(readFileSync(file, 'utf8')) as unknown as Array<{
      event: { id: string };
      url: string;
      status: number | null;
      error: string;
      attempts: number;
    }>;
    expect(letters.map((l) => l.event.id)).toEqual(ndjson(tail.stdout()).map((e) => e.id));
    expect(letters.every((l) => l.url === dead && l.status === null && l.attempts === 4 && l.error.length > 0)).toBe(true);

    // The dead letters, replayed to a live handler, arrive in order, signed.
    const hook = await receiver();
    const secrets = new MemorySecretStore();
    const replay = startCli(['events', 'replay', file, '--forward-to', hook.url, '--no-wait'], { secrets });
    expect(await replay.done, replay.stderr()).toBe(0);
    expect(hook.received.map((r) => r.headers['svc-event-id'])).toEqual(letters.map((l) => l.event.id));
  });

  it('a handler answering 500 is retried, then dead-lettered with its status', async () => {
    const hook = await receiver(() => 500);
    const file = join(tmp(), 'dead.ndjson');
    const tail = startCli(['events', 'tail', '--max-events', '1', '--forward-to', hook.url, '--dead-letter', file], { clock: fastClock });
    await streamsOpen();
    await publish('call.started', 1);
    expect(await tail.done).toBe(1);
    const [letter] = ndjson(readFileSync(file, 'utf8')) as unknown as Array<{ status: number; attempts: number }>;
    expect(letter).toMatchObject({ status: 500, attempts: 4 });
  });

  it('a dead-letter file replaced by a link while the tail runs is not written through: a warning, and exit 1', async () => {
    const hook = await receiver(() => 500);
    const dir = tmp();
    const file = join(dir, 'dead.ndjson');
    const target = join(dir, 'elsewhere.txt');
    writeFileSync(target, 'untouched\n');
    const tail = startCli(['events', 'tail', '--max-events', '1', '--forward-to', hook.url, '--dead-letter', file], { clock: fastClock });
    await streamsOpen();
    // Checked at start as a regular file; then something puts a link at its place.
    rmSync(file, { force: true });
    symlinkSync(target, file);
    await publish('call.started', 1);
    expect(await tail.done).toBe(1);
    expect(tail.stderr()).toMatch(/the dead letter of evt_\w+ was not written: --dead-letter .* is a symbolic link/);
    expect(tail.stderr()).toMatch(/1 delivery was given up after retries; not written to \S*dead\.ndjson/);
    expect(readFileSync(target, 'utf8')).toBe('untouched\n');
  });
});

describe('record and replay', () => {
  it('record → replay delivers the same events, in order, with the same bodies', async () => {
    const file = join(tmp(), 'events.ndjson');
    const tail = startCli(['events', 'tail', '--json', '--max-events', '20', '--record', file]);
    await streamsOpen();
    await publish('call.started', 10);
    await publish('chat.message.created', 10);
    expect(await tail.done, tail.stderr()).toBe(0);
    const recorded = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(recorded).toEqual(tail.stdout().trimEnd().split('\n'));

    const hook = await receiver();
    const replay = startCli(['events', 'replay', file, '--forward-to', hook.url, '--no-wait']);
    expect(await replay.done, replay.stderr()).toBe(0);
    expect(hook.received.map((r) => r.body)).toEqual(recorded);

    // --type keeps only some; without --forward-to they are printed.
    const printed = await runCli(['events', 'replay', file, '--no-wait', '--type', 'chat.*', '--json'], { env: keyEnv() });
    expect(printed.exitCode, printed.stderr).toBe(0);
    expect(printed.stdout.trimEnd().split('\n')).toEqual(recorded.slice(10));
  });

  it('keeps the recorded pauses (by created_at) through the injected clock, divided by --speed', async () => {
    const file = join(tmp(), 'timed.ndjson');
    const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
    writeFileSync(
      file,
      [0, 2, 5].map((s, i) => JSON.stringify({ object: 'event', id: `evt_${i}`, type: 'call.started', created_at: at(s), data: {} })).join('\n') + '\n',
    );
    for (const [flags, expected] of [
      [[], [2000, 3000]],
      [
        ['--speed', '4'],
        [500, 750],
      ],
      [['--no-wait'], []],
    ] as const) {
      const waits: number[] = [];
      const clock: Clock = { now: () => Date.now(), sleep: async (ms) => void waits.push(ms) };
      const run = await runCli(['events', 'replay', file, ...flags], { env: keyEnv(), clock });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stdout.trim().split('\n')).toHaveLength(3);
      expect(waits).toEqual(expected);
    }
  });

  it('refuses a file that is not events, and --speed with --no-wait (exit 2)', async () => {
    const file = join(tmp(), 'junk.ndjson');
    writeFileSync(file, '{"id":"evt_1","type":"call.started"}\nnot json\n');
    const run = await runCli(['events', 'replay', file], { env: keyEnv() });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/junk\.ndjson:2 is not JSON/);
    expect((await runCli(['events', 'replay', file, '--speed', '2', '--no-wait'], { env: keyEnv() })).exitCode).toBe(2);
  });
});

describe('checkpoint', () => {
  it('writes the last handled id atomically and resumes after it', async () => {
    const file = join(tmp(), 'tail.ckpt');
    const first = startCli(['events', 'tail', '--json', '--max-events', '3', '--checkpoint', file]);
    await streamsOpen();
    await publish('call.started', 5);
    expect(await first.done, first.stderr()).toBe(0);
    const firstIds = ndjson(first.stdout()).map((e) => e.id);
    expect(JSON.parse(readFileSync(file, 'utf8')).last_event_id).toBe(firstIds[2]);
    // Replaced by rename: no temporary file is left beside it.
    expect(readdirSync(dirname(file))).toEqual(['tail.ckpt']);

    // Started again: the two events published meanwhile come first, then live ones.
    const second = await runCli(['events', 'tail', '--json', '--max-events', '2', '--checkpoint', file], { env: keyEnv() });
    expect(second.exitCode, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/resuming after evt_\w+ \(--checkpoint/);
    const all = (await (await fetch(`${emu().url}/v1/events?limit=5`, { headers: { authorization: `Bearer ${emu().seed.keys.test}` } })).json()) as {
      data: Array<{ id: string }>;
    };
    expect([...firstIds, ...ndjson(second.stdout).map((e) => e.id)]).toEqual(all.data.map((e) => e.id).reverse());
  });

  it('refuses a checkpoint file that svc did not write (exit 2)', async () => {
    const file = join(tmp(), 'other.txt');
    writeFileSync(file, 'hello');
    const run = await runCli(['events', 'tail', '--checkpoint', file], { env: keyEnv() });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/not a checkpoint file/);
  });
});

describe('issue 15: events tail flags', () => {
  it('--since errors name --since; --max-events 0 is refused before anything prints', async () => {
    const since = await runCli(['events', 'tail', '--since', 'evt_!!'], { env: keyEnv() });
    expect(since.exitCode).toBe(2);
    expect(since.stderr).toMatch(/--since/);
    const zero = await runCli(['events', 'tail', '--max-events', '0'], { env: keyEnv() });
    expect(zero.exitCode).toBe(2);
    expect(zero.stdout).toBe('');
    expect(zero.stderr).not.toMatch(/Tailing/);
  });
});

describe('events list and get', () => {
  it('lists the retained events newest first, by --type, and gets one by id', async () => {
    await publish('call.started', 3);
    await publish('chat.closed', 2);
    const list = await runCli(['events', 'list', '--json', '--type', 'call.*'], { env: keyEnv() });
    expect(list.exitCode, list.stderr).toBe(0);
    const events = JSON.parse(list.stdout) as Array<{ id: string; type: string }>;
    expect(events.map((e) => e.type)).toEqual(['call.started', 'call.started', 'call.started']);
    expect(events[0]!.id > events[1]!.id).toBe(true);

    const tsv = await runCli(['events', 'list', '--limit', '2'], { env: keyEnv() });
    expect(
      tsv.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')[1]),
    ).toEqual(['chat.closed', 'chat.closed']);

    const got = await runCli(['events', 'get', events[1]!.id, '--json'], { env: keyEnv() });
    expect(got.exitCode, got.stderr).toBe(0);
    expect((JSON.parse(got.stdout) as { id: string }).id).toBe(events[1]!.id);

    const missing = await runCli(['events', 'get', 'evt_zzzzzzzzzz'], { env: keyEnv() });
    expect(missing.exitCode).toBe(5);
  });
});

/** A stream server of the test's own: opens with a `gap` frame, then the events given. */
async function gapServer(frames: (lastEventId: string | undefined) => string) {
  const seen: Array<string | undefined> = [];
  const server = createServer((req, res) => {
    const url = req.url ?? '';
    const lastEventId = req.headers['last-event-id'] as string | undefined;
    if (url.startsWith('/v1/events/stream') || /^\/v1\/chats\/chat_\w+\/stream/.test(url)) {
      seen.push(lastEventId);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(frames(lastEventId));
      return; // left open, like a live stream
    }
    res.setHeader('content-type', 'application/json');
    if (/^\/v1\/chats\/chat_\w+\/messages/.test(url)) return res.end('{"object":"list","data":[],"has_more":false,"next_cursor":null}');
    if (/^\/v1\/chats\/chat_\w+$/.test(url))
      return res.end('{"object":"chat","id":"chat_1","status":"open","language":"en","subject":null,"livemode":false,"created_at":"2026-01-01T00:00:00Z"}');
    if (url.startsWith('/v1/account')) return res.end('{"object":"account","id":"org_1","name":"Gap Inc"}');
    res.statusCode = 404;
    res.end('{"detail":"not found"}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const gapFrame = (asked: string | undefined, from: string | null) =>
  `event: gap\ndata: ${JSON.stringify({ last_event_id: asked ?? null, resumed_from: from })}\n\n`;
const eventFrame = (id: string) =>
  `id: ${id}\nevent: call.started\ndata: {"object":"event","id":"${id}","type":"call.started","created_at":"2026-01-01T00:00:00Z","livemode":false,"data":{}}\n\n`;

describe('gaps (a resume the service cannot honour)', () => {
  it('events tail --since an id the service answers with a gap for: unknown, exit 5, none of the events after the gap printed', async () => {
    const server = await gapServer((asked) => gapFrame(asked, 'evt_0000000500') + eventFrame('evt_0000000500') + eventFrame('evt_0000000501'));
    for (const extra of [[], ['--fail-on-gap']]) {
      const run = await runCli(['events', 'tail', '--json', '--since', 'evt_0000000007', '--max-events', '2', ...extra], {
        env: { SVC_API_KEY: 'svc_test_gapgapgapgap', SVC_BASE_URL: server.url },
      });
      expect(run.exitCode, run.stderr).toBe(5);
      expect(server.seen.at(-1)).toBe('evt_0000000007');
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain('--since evt_0000000007: the service does not know this event');
    }
  });

  it('a checkpoint resume warns on stderr naming where it was asked to resume, then goes on', async () => {
    const file = join(tmp(), 'ckpt');
    writeFileSync(file, JSON.stringify({ last_event_id: 'evt_0000000007', updated_at: new Date().toISOString() }));
    const server = await gapServer((asked) => gapFrame(asked, 'evt_0000000500') + eventFrame('evt_0000000500') + eventFrame('evt_0000000501'));
    const run = await runCli(['events', 'tail', '--json', '--checkpoint', file, '--max-events', '2'], {
      env: { SVC_API_KEY: 'svc_test_gapgapgapgap', SVC_BASE_URL: server.url },
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(ndjson(run.stdout).map((e) => e.id)).toEqual(['evt_0000000500', 'evt_0000000501']);
    expect(run.stderr).toMatch(
      /warning: the service no longer retains the events after evt_0000000007 \(where this stream was asked to resume\): later events may be missing; resuming from evt_0000000500/,
    );
    expect(run.stderr).not.toContain('the last one delivered');
  });

  it('an unknown --checkpoint id is reported through the gap too', async () => {
    const file = join(tmp(), 'ckpt');
    writeFileSync(file, JSON.stringify({ last_event_id: 'evt_zzzzzzzzzz', updated_at: new Date().toISOString() }));
    const server = await gapServer((asked) => gapFrame(asked, 'evt_0000000001') + eventFrame('evt_0000000001'));
    const run = await runCli(['events', 'tail', '--checkpoint', file, '--max-events', '1'], {
      env: { SVC_API_KEY: 'svc_test_gapgapgapgap', SVC_BASE_URL: server.url },
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(server.seen[0]).toBe('evt_zzzzzzzzzz');
    expect(run.stderr).toMatch(/after evt_zzzzzzzzzz .*may be missing/);
  });

  it('chats stream warns too, and exits 1 with --fail-on-gap', async () => {
    const server = await gapServer((asked) => gapFrame(asked ?? 'msg_1', null));
    const env = { SVC_API_KEY: 'svc_test_gapgapgapgap', SVC_BASE_URL: server.url };
    const failing = await runCli(['chats', 'stream', 'chat_1', '--fail-on-gap'], { env });
    expect(failing.exitCode).toBe(1);
    expect(failing.stderr).toMatch(/later messages may be missing/);

    const controller = new AbortController();
    const warned = startCli(['chats', 'stream', 'chat_1'], { env, signal: controller.signal });
    await until(() => /later messages may be missing/.test(warned.stderr()), 'the gap warning');
    controller.abort();
    expect(await warned.done).toBe(130);
  });
});

describe('fixtures and flag checks', () => {
  it('ships one valid fixture per event type of the contract', async () => {
    const { EVENT_TYPES } = await import('../../src/contract/constants.js');
    const { builtinFixture } = await import('../../src/commands/events/trigger.js');
    for (const type of EVENT_TYPES) {
      const fixture = builtinFixture(type);
      expect(fixture.type).toBe(type);
      expect(fixture.steps.length).toBeGreaterThan(0);
    }
  });

  it('refuses bad forwarding flags with exit 2 before any request', async () => {
    for (const argv of [
      ['--forward-to', 'call.bogus=http://127.0.0.1:1/x'],
      ['--forward-to', 'ftp://127.0.0.1/x'],
      ['--forward-to', 'http://127.0.0.1:1/x', '--forward-header', 'no colon'],
      ['--forward-to', 'http://127.0.0.1:1/x', '--forward-header', 'Svc-Signature: forged'],
      ['--dead-letter', 'dead.ndjson'],
    ]) {
      const run = await runCli(['events', 'tail', ...argv], { env: keyEnv() });
      expect(run.exitCode, argv.join(' ')).toBe(2);
      expect(run.stderr).not.toMatch(/Tailing/);
    }
  });
});
