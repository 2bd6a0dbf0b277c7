// No live call without an owner: a calls_start whose answer is held by the service (an
// injected delay, after the call was made) when the session ends is asked again with its
// Idempotency-Key, written to the audit log before it was sent, and ended: SIGTERM, two
// SIGTERMs, the SDK's close(), stdin's end past the grace. A kill -9 leaves it to the next
// session of the same credential, which asks it again and ends it; a live session's calls are
// never another's to end. Through the official SDK client (or by hand where it would not do
// it), the built bin/svc.js, a fresh HOME, the emulator over https.
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { callTool as call, useMcpSuite } from '../helpers/mcp.js';
import { spawnCollect, svcCommand } from '../helpers/spawn.js';

const { emulator, svcDir, envFor, connect: connectTo } = useMcpSuite({ tmpPrefix: 'svc-mcp-owner-', https: true });
let children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children = [];
});

const LIVE = ['--live', '--allow-write', '--max-spend', '1'];
const liveKey = () => emulator().seed.keys.live;
const connect = (args = LIVE) => connectTo(args, { env: envFor(liveKey()), name: 'svc-owner' });

async function liveCalls(): Promise<Array<{ id: string; status: string }>> {
  const answer = await fetch(`${emulator().url}/v1/calls`, { headers: { authorization: `Bearer ${liveKey()}` } });
  return ((await answer.json()) as { data: Array<{ id: string; status: string }> }).data;
}

/** The one live call the service made, once it has made it (its answer may still be held). */
async function madeCall(): Promise<string> {
  for (let i = 0; i < 300; i++) {
    const [made] = await liveCalls();
    if (made) return made.id;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the service made no call');
}

async function statusWithin(id: string, want: string, ms = 5_000): Promise<string> {
  let status = '';
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 20))) {
    status = (await liveCalls()).find((c) => c.id === id)?.status ?? '';
    if (status === want) break;
  }
  return status;
}

async function auditLog(): Promise<any[]> {
  const [command, args] = svcCommand(['mcp', 'log', '--json']);
  const ran = await spawnCollect(command, args, { env: envFor(emulator().seed.keys.test) });
  expect(ran.code, ran.stderr).toBe(0);
  return JSON.parse(ran.stdout);
}

function exitOf(child: ChildProcess, ms: number): Promise<{ code: number | null; signal: string | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`svc mcp had not ended ${ms} ms later`)), ms);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

const processOf = (transport: StdioClientTransport) => (transport as unknown as { _process: ChildProcess })._process;

/** svc mcp spawned by hand: a calls_start sent, its answer never awaited. */
function rawSession(args: string[], startArgs: Record<string, unknown> = { languages: 'en,es' }): ChildProcess {
  const [command, prefix] = svcCommand(['mcp', ...args]);
  const child = spawn(command, prefix, { env: envFor(liveKey()), stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  const send = (message: object) => child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  send({ id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  send({ method: 'notifications/initialized' });
  send({ id: 1, method: 'tools/call', params: { name: 'calls_start', arguments: startArgs } });
  return child;
}

/** The log's own record of the call: its create (with its key, before it was sent), the same key asked again, and svc's end. */
async function expectOwned(id: string): Promise<void> {
  const log = await auditLog();
  const starts = log.filter((e) => e.tool === 'calls_start');

  expect(starts[0].key).toMatch(/^svcmcp_[0-9a-f]+_\d+$/);
  const again = starts.find((e) => e.args.by === 'svc mcp');
  expect(again).toMatchObject({ result: 'ok', key: starts[0].key });
  expect(again.ids).toContain(id);
  expect(log.filter((e) => e.tool === 'calls_end' && e.args.id === id).map((e) => e.result)).toEqual(['ok']);
}

describe('a create whose answer is held when the session ends', () => {
  it.each([
    ['SIGTERM 100 ms after the service made the call (answer held 1.5 s)', 1, 1_500, 'SIGTERM'],
    ['SIGTERM twice, 30 ms apart', 2, 1_500, 'SIGTERM'],
    ['Ctrl-C twice, 30 ms apart', 2, 1_500, 'SIGINT'],
  ] as const)('%s: the call is learnt by its key and ended; nothing more is made', async (_name, signals, held, signal) => {
    await emulator().plane.delay('/v1/calls', held, { method: 'POST' });
    // The end's answer held too, so the second signal lands while svc is still ending the call.
    if (signals === 2) await emulator().plane.delay('/v1/calls/', 300, { method: 'POST' });
    const { client, transport, stderr } = await connect();
    const child = processOf(transport);
    const pending = call(client, 'calls_start', { languages: 'en,es' }).catch((error: Error) => error);
    const id = await madeCall();
    await new Promise((r) => setTimeout(r, 100));
    process.kill(child.pid!, signal);
    if (signals === 2) {
      await new Promise((r) => setTimeout(r, 30));
      expect(child.exitCode ?? child.signalCode, 'svc mcp was still ending the call').toBeNull();
      process.kill(child.pid!, signal);
    }
    await exitOf(child, 8_000);
    await pending;
    expect(await statusWithin(id, 'ended')).toBe('ended');
    expect(await liveCalls()).toHaveLength(1);
    await expectOwned(id);
    // A second Ctrl-C is said, with the one way left to end svc sooner.
    if (signal === 'SIGINT')
      expect(stderr()).toMatch(
        /^svc: still stopping once the live calls it started are ended and written down; only SIGKILL \(kill -KILL \d+\) ends it sooner$/m,
      );
  });

  it('SIGTERM while the create is on its way (not yet at the service): one call is made in all, and ended', async () => {
    // In front of the emulator, a hop that holds each create 400 ms before passing it on, even when its sender has gone.
    const seen: number[] = [];
    const front = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const pass = () => {
          const upstream = httpsRequest(`${emulator().url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
            if (!res.destroyed) {
              res.writeHead(answer.statusCode!, answer.headers);
              answer.pipe(res);
            } else answer.resume();
          });
          upstream.end(Buffer.concat(chunks));
        };
        if (req.method === 'POST' && req.url === '/v1/calls') {
          seen.push(Date.now());
          setTimeout(pass, 400);
        } else pass();
      });
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    try {
      const env = envFor(liveKey(), { SVC_BASE_URL: `http://127.0.0.1:${(front.address() as AddressInfo).port}` });
      const { client, transport } = await connectTo(LIVE, { env, name: 'svc-owner' });
      const child = processOf(transport);
      const pending = call(client, 'calls_start', { languages: 'en,es' }).catch((error: Error) => error);
      for (let i = 0; i < 300 && seen.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(await liveCalls()).toHaveLength(0);
      process.kill(transport.pid!, 'SIGTERM');
      await exitOf(child, 8_000);
      await pending;
      const made = await liveCalls();
      expect(made).toHaveLength(1);
      expect(await statusWithin(made[0]!.id, 'ended')).toBe('ended');
    } finally {
      front.closeAllConnections();
      front.close();
    }
  });

  it('SIGTERM while no answer can come (a hop that holds every create): svc ends within its bound and names the create and its key on stderr', async () => {
    const held: Array<import('node:http').ServerResponse> = [];
    const front = createServer((req, res) => {
      if (req.method === 'POST' && req.url === '/v1/calls') return void held.push(res);
      const upstream = httpsRequest(`${emulator().url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    try {
      const env = envFor(liveKey(), { SVC_BASE_URL: `http://127.0.0.1:${(front.address() as AddressInfo).port}` });
      const { client, transport, stderr } = await connectTo(LIVE, { env, name: 'svc-owner' });
      const child = processOf(transport);
      const pending = call(client, 'calls_start', { languages: 'en,es' }).catch((error: Error) => error);
      for (let i = 0; i < 300 && held.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      process.kill(transport.pid!, 'SIGTERM');
      await exitOf(child, 8_000);
      await pending;
      expect(stderr()).toMatch(/no answer came for calls_start \(Idempotency-Key svcmcp_[0-9a-f]+_1\)/);
    } finally {
      front.closeAllConnections();
      front.close();
    }
  });

  it("the SDK's close() while the answer takes 3 s (SIGTERM at 2 s): the call is ended", async () => {
    await emulator().plane.delay('/v1/calls', 3_000, { method: 'POST' });
    const { client } = await connect();
    const pending = call(client, 'calls_start', { languages: 'en,es' }).catch((error: Error) => error);
    const id = await madeCall();
    await client.close();
    await pending;
    expect(await statusWithin(id, 'ended')).toBe('ended');
    await expectOwned(id);
  });

  it('stdin closed while the answer takes 7 s (past the 5 s grace): the call is ended', async () => {
    await emulator().plane.delay('/v1/calls', 7_000, { method: 'POST' });
    const child = rawSession(LIVE);
    const id = await madeCall();
    child.stdin!.end();
    await exitOf(child, 9_000);
    expect(await statusWithin(id, 'ended')).toBe('ended');
    await expectOwned(id);
  }, 30_000);
});

describe('what a killed session left', () => {
  // A title of the contract's 200 characters, each outside the BMP (two UTF-16 units): kept whole in the log, so the create sent again is the same.
  const WIDE_TITLE = '\u{1F4DE}'.repeat(199) + 'x';
  it.each([
    ['', { languages: 'en,es' }],
    [' (a title of 200 characters outside the BMP, sent again as it was)', { languages: 'en,es', title: WIDE_TITLE }],
  ])(
    'kill -9 while the answer is held: the next session of the same credential asks the create again with its key and ends the call%s',
    async (_, startArgs) => {
      await emulator().plane.delay('/v1/calls', 2_000, { method: 'POST' });
      const killed = rawSession(LIVE, startArgs);
      const id = await madeCall();
      killed.kill('SIGKILL');
      await exitOf(killed, 5_000);
      expect(await statusWithin(id, 'active', 100)).toBe('active');
      const next = await connect();
      for (let i = 0; i < 300 && !next.stderr().includes('has ended'); i++) await new Promise((r) => setTimeout(r, 20));
      expect(next.stderr()).toContain(`this session ended it: ${id}`);
      expect(await statusWithin(id, 'ended')).toBe('ended');
      expect(await liveCalls()).toHaveLength(1);
      await expectOwned(id);
      if ('title' in startArgs) expect((await auditLog()).find((e) => e.tool === 'calls_start')!.args.title).toBe(WIDE_TITLE);
    },
  );

  it('kill -9, and the log keeps the title redacted (a secret-looking text): the next session sends it again, is refused, and says so with the way to the call', async () => {
    await emulator().plane.delay('/v1/calls', 2_000, { method: 'POST' });
    const killed = rawSession(LIVE, { languages: 'en,es', title: `ticket svc_live_${'a'.repeat(32)}` });
    const id = await madeCall();
    killed.kill('SIGKILL');
    await exitOf(killed, 5_000);
    const next = await connect();
    for (let i = 0; i < 300 && !next.stderr().includes('has ended'); i++) await new Promise((r) => setTimeout(r, 20));
    expect(next.stderr()).toMatch(
      /sent again with the arguments the log keeps, the service refused it: [^)]*this Idempotency-Key was used with another request/,
    );
    expect(next.stderr()).toContain('svc calls list --status active');
    // Nothing more was made, and the call the person is told to look for is the one running.
    expect(await liveCalls()).toEqual([expect.objectContaining({ id, status: 'active' })]);
  });

  it('two sessions on one log, one killed: the live one is told only of the dead one’s call, and its own call runs on', async () => {
    const alive = await connect();
    const own = await call(alive.client, 'calls_start', { languages: 'en,es' });
    const ownId = own.structuredContent.id as string;
    const killed = rawSession(LIVE);
    let killedId = '';
    for (let i = 0; i < 300 && !killedId; i++) {
      killedId = (await liveCalls()).find((c) => c.id !== ownId)?.id ?? '';
      await new Promise((r) => setTimeout(r, 10));
    }
    // Its start answered and written before the kill.
    for (let i = 0; i < 300 && !(await auditLog()).some((e) => e.ids.includes(killedId) && e.result === 'ok'); i++) await new Promise((r) => setTimeout(r, 10));
    killed.kill('SIGKILL');
    await exitOf(killed, 5_000);
    const third = await connect();
    for (let i = 0; i < 300 && !third.stderr().includes('has ended'); i++) await new Promise((r) => setTimeout(r, 20));
    expect(third.stderr()).toContain(`this session ended it: ${killedId}`);
    expect(third.stderr()).not.toContain(ownId);
    expect(await statusWithin(killedId, 'ended')).toBe('ended');
    expect(await statusWithin(ownId, 'active', 100)).toBe('active');
  });
});

describe('ending a call is always allowed', () => {
  it('the log cannot be written mid-session: a create is refused, but calls_end and the end at close still end the calls, said on stderr', async () => {
    const { client, stderr } = await connect();
    const first = (await call(client, 'calls_start', { languages: 'en,es' })).structuredContent.id as string;
    const second = (await call(client, 'calls_start', { languages: 'en,fr' })).structuredContent.id as string;
    // A folder where the log's file was: no line can be written (modes would not stop root, which the tests may run as).
    const log = join(svcDir(), 'mcp-audit.ndjson');
    renameSync(log, `${log}.aside`);
    mkdirSync(log);
    const refused = await call(client, 'calls_start', { languages: 'en,es' });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toContain('nothing was done');
    const ended = await call(client, 'calls_end', { id: first });
    expect(ended.isError, ended.content[0]?.text).toBeFalsy();
    expect(await statusWithin(first, 'ended')).toBe('ended');
    expect(stderr()).toContain(`calls_end {"id":"${first}"} is made without its audit line first`);
    await client.close();
    expect(await statusWithin(second, 'ended')).toBe('ended');
    expect(stderr()).toContain(`calls_end {"id":"${second}","by":"svc mcp"`);
    expect(stderr()).toMatch(/audit log's lines for call \d+ \(calls_end call_\w+: ok\) could not be written/);
  });
});
