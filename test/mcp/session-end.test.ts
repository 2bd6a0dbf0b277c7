// `svc mcp`'s money ends with its session, however the session ends: the built bin/svc.js
// spawned (by the MCP SDK's own client over real stdio, or by hand where a client would not
// do it), from a HOME with no svc folder, against the emulator. The SDK's close() while a
// call waits (stdin ended, 2 s, SIGTERM), SIGTERM, SIGHUP, SIGINT, a stdout whose reader went
// away, a reader that stops reading: each ends the live calls the session started, within a
// few seconds, and says so in the audit log. kill -9 cannot: the next session names the calls.
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool as call, useMcpSuite, type McpConnection } from '../helpers/mcp.js';
import { spawnCollect, svcCommand } from '../helpers/spawn.js';

const { emulator, svcDir, envFor, connect: connectTo } = useMcpSuite({ tmpPrefix: 'svc-mcp-end-' });
let children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children = [];
});

const liveKey = () => emulator().seed.keys.live;
const LIVE = ['--live', '--allow-write', '--max-spend', '1'];

async function connect(args: string[], key = liveKey()): Promise<McpConnection> {
  return connectTo(args, { env: envFor(key), name: 'svc-session-end' });
}

async function startCall(client: Client): Promise<string> {
  const started = await call(client, 'calls_start', { languages: 'en,es' });
  expect(started.isError, started.content[0]?.text).toBeFalsy();
  return started.structuredContent.id as string;
}

async function statusOf(id: string, key = liveKey()): Promise<string> {
  const answer = await fetch(`${emulator().url}/v1/calls/${id}`, { headers: { authorization: `Bearer ${key}` } });
  return ((await answer.json()) as { status: string }).status;
}

async function auditLog(): Promise<any[]> {
  const [command, args] = svcCommand(['mcp', 'log', '--json']);
  const ran = await spawnCollect(command, args, { env: envFor(emulator().seed.keys.test) });
  expect(ran.code, ran.stderr).toBe(0);
  return JSON.parse(ran.stdout);
}

/** Waits (bounded) until `ok`. */
async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
}

/** Resolves with how the process ended, or fails the test past `ms`. */
function exitOf(child: Pick<ChildProcess, 'exitCode' | 'signalCode' | 'once'>, ms: number): Promise<{ code: number | null; signal: string | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`svc mcp had not ended ${ms} ms later`)), ms);
    child.once('exit', (code: number | null, signal: string | null) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

/** svc's own ends of the calls, as the audit log shows them. */
async function endsRecorded(): Promise<any[]> {
  return (await auditLog()).filter((e) => e.tool === 'calls_end' && e.args.by === 'svc mcp');
}

describe('the live calls end with the session', () => {
  it("the SDK's own close() while events_wait is waiting (stdin ended, then SIGTERM): both live calls end, first, and the ends are in the audit log", async () => {
    const { client } = await connect(LIVE);
    const ids = [await startCall(client), await startCall(client)];
    let answered = false;
    const waiting = client
      .callTool({ name: 'events_wait', arguments: { type: ['chat.*'], wait_seconds: 60 } })
      .catch((error: Error) => error)
      .finally(() => (answered = true));
    // The wait is under way (its intent line written) before the client closes.
    for (let i = 0; i < 100 && !(await auditLog()).some((e) => e.tool === 'events_wait'); i++) await new Promise((r) => setTimeout(r, 20));
    expect(answered).toBe(false);
    const closing = Date.now();
    await client.close();
    expect(Date.now() - closing).toBeLessThan(4_500);
    await waiting;
    expect(await Promise.all(ids.map((id) => statusOf(id)))).toEqual(['ended', 'ended']);
    const ends = await endsRecorded();
    expect(ends.map((e) => e.args.id).sort()).toEqual([...ids].sort());
    for (const end of ends) expect(end).toMatchObject({ result: 'ok', args: { why: 'the session ended: stdin was closed' } });
    // The calls were ended before the wait in flight was given up.
    const log = await auditLog();
    expect(log.find((e) => e.tool === 'events_wait')).toMatchObject({ result: 'disconnected' });
  });

  it.each(['SIGTERM', 'SIGHUP', 'SIGINT'] as const)(
    '%s: the live call ends, the process ends within a few seconds, the end is in the audit log',
    async (signal) => {
      const { client, transport } = await connect(LIVE);
      const id = await startCall(client);
      const child = (transport as unknown as { _process: ChildProcess })._process;
      process.kill(transport.pid!, signal);
      const exit = await exitOf(child, 5_000);
      expect(exit.signal ?? exit.code).toBe(signal === 'SIGINT' ? 0 : signal);
      expect(await statusOf(id)).toBe('ended');
      const [end] = await endsRecorded();
      expect(end).toMatchObject({ result: 'ok', args: { id } });
      expect(end.args.why).toContain(signal === 'SIGINT' ? 'Ctrl-C' : signal);
    },
  );
});

/** svc mcp spawned by hand, spoken to line by line: for what the SDK's client never does. */
function rawSession(args: string[], env: Record<string, string> = {}): { child: ChildProcess; send(message: object): void; answer(id: number): Promise<any> } {
  const [command, prefix] = svcCommand(['mcp', ...args]);
  const child = spawn(command, prefix, { env: { ...envFor(liveKey()), ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let buffered = '';
  const answers = new Map<number, any>();
  const waiters = new Map<number, (message: any) => void>();
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    buffered += chunk;
    for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, newline));
      buffered = buffered.slice(newline + 1);
      if (typeof message.id === 'number') {
        answers.set(message.id, message);
        waiters.get(message.id)?.(message);
      }
    }
  });
  return {
    child,
    send: (message) => child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`),
    answer: (id) => (answers.has(id) ? Promise.resolve(answers.get(id)) : new Promise((resolve) => waiters.set(id, resolve))),
  };
}

function rawStartSent(session: ReturnType<typeof rawSession>): Promise<any> {
  session.send({ id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  session.send({ method: 'notifications/initialized' });
  session.send({ id: 1, method: 'tools/call', params: { name: 'calls_start', arguments: { languages: 'en,es' } } });
  return session.answer(1);
}

async function rawStart(session: ReturnType<typeof rawSession>): Promise<string> {
  const started = await rawStartSent(session);
  expect(started.result?.isError, JSON.stringify(started)).toBeFalsy();
  return started.result.structuredContent.id as string;
}

describe('a client that goes away without a word', () => {
  it("stdout's reader gone (EPIPE): the live call ends, the process ends, the end is in the audit log", async () => {
    const session = rawSession(LIVE);
    const id = await rawStart(session);
    session.child.stdout!.destroy();
    session.send({ id: 2, method: 'tools/list' });
    const exit = await exitOf(session.child, 5_000);
    expect(exit.code).toBe(0);
    expect(await statusOf(id)).toBe('ended');
    expect((await endsRecorded())[0]).toMatchObject({ result: 'ok', args: { id, why: 'the session ended: stdout was closed by its reader' } });
  });

  it('a client that stops reading its stdout, then tells svc to end (SIGTERM): svc is not stuck in a write; the live call ends', async () => {
    const session = rawSession(LIVE);
    const id = await rawStart(session);
    session.child.stdout!.pause();
    // Answers far past what a pipe holds, none of them read.
    for (let i = 0; i < 100; i++) session.send({ id: 100 + i, method: 'tools/list' });
    await new Promise((r) => setTimeout(r, 300));
    session.child.kill('SIGTERM');
    const exit = await exitOf(session.child, 6_000);
    expect(exit.signal).toBe('SIGTERM');
    expect(await statusOf(id)).toBe('ended');
  });

  it('kill -9 leaves the call running; the next session (same credential, writes allowed) ends it, and says so on stderr and to the assistant', async () => {
    const session = rawSession(LIVE);
    const id = await rawStart(session);
    session.child.kill('SIGKILL');
    await exitOf(session.child, 5_000);
    expect(await statusOf(id)).toBe('active');
    const next = await connect(LIVE);
    await until(() => next.logged.length > 0 && next.stderr().includes('has ended'));
    expect(next.stderr()).toContain(`a svc mcp session that has ended (killed) left this call running; this session ended it: ${id}`);
    expect(next.logged.join('\n')).toContain(id);
    expect(await statusOf(id)).toBe('ended');
    expect((await endsRecorded()).map((e) => [e.args.id, e.result])).toEqual([[id, 'ok']]);
  });

  it('a read-only session does not end what a killed session left: it names it', async () => {
    const session = rawSession(LIVE);
    const id = await rawStart(session);
    session.child.kill('SIGKILL');
    await exitOf(session.child, 5_000);
    const next = await connect(['--live', '--max-spend', '1']);
    await until(() => next.logged.length > 0 && next.stderr().includes('has ended'));
    expect(next.stderr()).toContain(`a svc mcp session that has ended (killed) left this call running: ${id}`);
    expect(await statusOf(id)).toBe('active');
  });

  it('kill -9 while a billed call is sent: the next session names it, with the price reserved for it (it may have been drawn)', async () => {
    // In front of the emulator, a service that takes the start of a call and never answers it.
    const held: ServerResponse[] = [];
    const front = createServer((req, res) => {
      if (req.method === 'POST' && req.url === '/v1/calls') return void held.push(res);
      const upstream = httpRequest(`${emulator().url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    try {
      const session = rawSession(LIVE, { SVC_BASE_URL: `http://127.0.0.1:${(front.address() as AddressInfo).port}` });
      void rawStartSent(session);
      for (let i = 0; i < 500 && held.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(held).toHaveLength(1);
      session.child.kill('SIGKILL');
      await exitOf(session.child, 5_000);
    } finally {
      front.closeAllConnections();
      front.close();
    }
    // Another address is another credential's: its create is named, with its key, never sent again from here.
    const next = await connect(LIVE);
    await until(() => next.logged.length > 0 && next.stderr().includes('has ended'));
    expect(next.stderr()).toMatch(/never heard what was made .*: calls_start \(session [0-9a-f]+, \$0\.02 reserved, Idempotency-Key svcmcp_[0-9a-f]+_1\)/);
    expect(next.logged.join('\n')).toContain('calls_start (session ');
  });
});

describe('what a killed session left open is read as svc mcp log reads the log', () => {
  it('a call started by a killed session is still named after rotations carried it; a call svc ended itself is not, and its end is carried too', async () => {
    const polite = await connect(LIVE);
    const ended = await startCall(polite.client);
    await polite.client.close();
    for (let i = 0; i < 300 && (await statusOf(ended)) !== 'ended'; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await statusOf(ended)).toBe('ended');
    const killed = rawSession(LIVE);
    const open = await rawStart(killed);
    killed.child.kill('SIGKILL');
    await exitOf(killed.child, 5_000);
    // Two rotations of calls that acted on nothing: both sessions' lines survive only as carried calls.
    const { AuditLog, AUDIT_FILE } = await import('../../src/mcp/audit.js');
    const dir = svcDir();
    const log = new AuditLog(dir);
    const firstLine = () => readFileSync(join(dir, AUDIT_FILE), 'utf8').slice(0, 300);
    const pad = 'p'.repeat(3000);
    let rotations = 0;
    for (let n = 1; rotations < 2; n++) {
      const before = firstLine();
      const flood = { session: 'flood', mode: 'live' as const, tool: 'calls_list', call: n, time: new Date().toISOString() };
      await log.append({ ...flood, phase: 'intent', args: { pad } });
      await log.append({ ...flood, phase: 'result', result: 'ok', price_asked: null, ids: [] });
      if (firstLine() !== before && firstLine().includes('"carried"')) rotations += 1;
    }
    const lines = [`${AUDIT_FILE}.1`, AUDIT_FILE].flatMap((file) =>
      readFileSync(join(dir, file), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { phase: string; tool?: string }),
    );
    expect(lines.filter((line) => line.phase !== 'carried' && line.tool !== 'calls_list')).toEqual([]);
    expect(lines.filter((line) => line.phase !== 'carried' && line.tool === 'calls_list').length).toBeGreaterThan(100);
    const ends = await endsRecorded();
    expect(ends.map((e) => [e.args.id, e.result])).toEqual([[ended, 'ok']]);
    const next = await connect(LIVE);
    await until(() => next.logged.length > 0 && next.stderr().includes('has ended'));
    expect(next.stderr()).toContain(`this session ended it: ${open}`);
    expect(next.stderr()).not.toContain(ended);
    expect(await statusOf(open)).toBe('ended');
  }, 60_000);
});
