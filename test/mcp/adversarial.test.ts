// `svc mcp` against a hostile caller: the built bin/svc.js spawned by the MCP SDK's own client
// over real stdio, from a HOME with no svc folder, against the emulator. What an assistant (or
// text injected into its context) sends must stay input: no flag, no other host, no other
// profile, no live money from a test session, no money past the cap; every call audited first.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool as call, useMcpSuite, type ToolResult as Result } from '../helpers/mcp.js';
import { recordingServer } from '../helpers/http-servers.js';
import { spawnCollect, svcCommand } from '../helpers/spawn.js';

const { emulator, home, svcDir, envFor, connect: connectTo, closers } = useMcpSuite({ tmpPrefix: 'svc-mcp-home-' });

async function connect(args: string[], env: Record<string, string> = envFor(emulator().seed.keys.test)): Promise<Client> {
  return (await connectTo(args, { env, name: 'svc-adversary' })).client;
}

const liveAuth = () => ({ authorization: `Bearer ${emulator().seed.keys.live}`, 'content-type': 'application/json' });
const balance = async () => ((await fetch(`${emulator().url}/v1/balance`, { headers: liveAuth() }).then((r) => r.json())) as { available: number }).available;

async function svc(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [command, prefix] = svcCommand(args);
  return spawnCollect(command, prefix, { env: envFor(emulator().seed.keys.test) });
}

async function auditLog(): Promise<any[]> {
  const ran = await svc(['mcp', 'log', '--json']);
  expect(ran.code, ran.stderr).toBe(0);
  return JSON.parse(ran.stdout);
}

describe("a caller's text is text", () => {
  it('"--base-url=" in a text reaches no other host: the listener hears nothing, the text is translated as it is', async () => {
    const listener = await recordingServer(
      (res) => res.end('{"object":"translation","text":"stolen"}'),
      (c) => closers.push(c),
    );
    const client = await connect([]);
    for (const text of [['hello', `--base-url=${listener.origin}`], `--base-url=${listener.origin}`, ['--base-url', listener.origin]]) {
      const result = await call(client, 'translate', { text, to: 'es' });
      expect(result.isError, result.content[0]?.text).toBeFalsy();
      expect(result.structuredContent.text).toContain(`${listener.origin}`);
      expect(result.structuredContent.text).toMatch(/^\[es\] /);
    }
    expect(listener.requests).toEqual([]);
  });

  it('"--profile=other" acts for no other profile: it is text', async () => {
    const client = await connect([]);
    const result = await call(client, 'translate', { text: ['x', '--profile=other'], to: 'es' });
    expect(result.isError, result.content[0]?.text).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ text: '[es] x --profile=other', livemode: false });
  });

  it("a default profile switched during the session (svc auth switch) is not the tools' profile: it is fixed when the session starts", async () => {
    const listener = await recordingServer(
      (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"balance","available":1,"currency":"usd","livemode":false}'),
      (c) => closers.push(c),
    );
    const config = join(home(), 'config');
    mkdirSync(config, { recursive: true, mode: 0o700 });
    const keyMeta = (name: string) => ({ name, mode: 'test', last4: 'xxxx', scopes: ['account:read'], storage: 'file', added_at: '2026-11-28T00:00:00.000Z' });
    const profiles = {
      acme: { org_id: emulator().seed.org_id, org_name: 'Acme', base_url: emulator().url, keys: { ci: keyMeta('ci') } },
      other: { org_id: 'org_otherOtherOther0', org_name: 'Other', base_url: listener.origin, keys: { ci: keyMeta('ci') } },
    };
    writeFileSync(join(config, 'config.json'), JSON.stringify({ version: 1, profiles, default_profile: 'acme' }), { mode: 0o600 });
    const secrets = { 'acme:ci': emulator().seed.keys.test, 'other:ci': `svc_test_${'o'.repeat(32)}` };
    writeFileSync(join(config, 'credentials.json'), JSON.stringify({ version: 1, secrets }), { mode: 0o600 });
    const env = { PATH: process.env.PATH ?? '', HOME: home(), SVC_CONFIG_DIR: config, SVC_CREDENTIAL_STORE: 'file', NO_COLOR: '1' };
    const client = await connect([], env);
    expect((await call(client, 'account_balance', {})).isError).toBeFalsy();
    const [command, prefix] = svcCommand(['auth', 'switch', 'other']);
    expect((await spawnCollect(command, prefix, { env })).code).toBe(0);
    const after = await call(client, 'account_balance', {});
    expect(after.isError, after.content[0]?.text).toBeFalsy();
    expect(after.structuredContent.available).not.toBe(1);
    expect(listener.requests).toEqual([]);
  });

  it('"--" in a test, read-only session with a live key in SVC_API_KEY: the live balance does not move', async () => {
    const before = await balance();
    const client = await connect([], envFor(emulator().seed.keys.live));
    for (const text of [['--', 'hello'], ['hello', '--', '--live'], '--live', ['--yes', '--live', 'x']]) {
      const result = await call(client, 'translate', { text, to: 'es' });
      // The session is test mode: a live key is refused for it, or it is used as test; never billed.
      if (!result.isError) expect(result.structuredContent.livemode).toBe(false);
    }
    expect(await balance()).toBe(before);
    expect((await auditLog()).every((e) => e.mode === 'test')).toBe(true);
  });

  it('text starting with "-" is sent and translated as text', async () => {
    const client = await connect([]);
    for (const text of ['- buy milk', '-5 degrees', '--> see above', '-']) {
      const result = await call(client, 'translate', { text, to: 'es' });
      expect(result.isError, `${text}: ${result.content[0]?.text}`).toBeFalsy();
      expect(result.structuredContent.text).toBe(`[es] ${text}`);
    }
    const sent = await (await connect(['--allow-write'])).callTool({ name: 'chats_start', arguments: { language: 'en', subject: '--help' } });
    expect((sent as Result).structuredContent).toMatchObject({ subject: '--help' });
  });
});

describe('the audit log on the first run', () => {
  it('makes the folder 0700 and writes the intent line before the tool acts, then the result line', async () => {
    expect(existsSync(svcDir())).toBe(false);
    const client = await connect(['--allow-write']);
    const chat = await call(client, 'chats_start', { language: 'en' });
    expect(chat.isError, chat.content[0]?.text).toBeFalsy();
    expect(statSync(svcDir()).mode & 0o777).toBe(0o700);
    const lines = readFileSync(join(svcDir(), 'mcp-audit.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.phase, l.tool, l.call])).toEqual([
      ['intent', 'chats_start', 1],
      ['result', 'chats_start', 1],
    ]);
    expect(lines[1]).toMatchObject({ result: 'ok', ids: [chat.structuredContent.id], session: lines[0].session });
  });

  it('when the intent cannot be written, nothing is done and the tool says why', async () => {
    // The config folder's place is taken by a file: nothing can be written there.
    const blocked = join(home(), 'blocked');
    writeFileSync(blocked, 'not a folder');
    const client = await connect(['--allow-write'], envFor(emulator().seed.keys.test, { SVC_CONFIG_DIR: join(blocked, 'svc') }));
    const result = await call(client, 'chats_start', { language: 'en', subject: 'must not exist' });
    expect(result.structuredContent.error).toMatchObject({ code: 'audit_unwritable', message: expect.stringMatching(/^nothing was done/) });
    const chats = (await fetch(`${emulator().url}/v1/chats`, { headers: { authorization: `Bearer ${emulator().seed.keys.test}` } }).then((r) => r.json())) as {
      data: unknown[];
    };
    expect(chats.data).toEqual([]);
  });
});

/**
 * A proxy to the emulator that holds the answer to each POST /v1/translate whose text is `held`
 * characters long, or with `drop`, cuts its connection instead: the emulator has drawn either way.
 */
/**
 * A proxy to the emulator that, for a translation of `held` characters, lets the emulator draw
 * and then never answers ('hold'), drops the connection ('drop'), or answers 504 as a gateway
 * that gave up ('gateway').
 */
async function lateProxy(held: number, behaviour: 'hold' | 'drop' | 'gateway' = 'hold'): Promise<{ origin: string; reached: Promise<void> }> {
  let reached!: () => void;
  const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
  const upstream = new URL(emulator().url);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const forward = httpRequest({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        const text = body.length ? (JSON.parse(body.toString()) as { text?: string }).text : undefined;
        if (req.url === '/v1/translate' && text?.length === held) {
          reached(); // drawn by the emulator; its answer is not passed on
          if (behaviour === 'drop') req.socket.destroy();
          if (behaviour === 'gateway') res.writeHead(504, { 'content-type': 'application/json' }).end('{"error":{"message":"gateway timeout"}}');
          return;
        }
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      forward.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return { origin: `http://127.0.0.1:${(server.address() as { port: number }).port}`, reached: reachedPromise };
}

describe("the ledger: the session's own charges", () => {
  it('a call cancelled in flight keeps its reservation; another app spending at the same time does not count; spent equals what the session drew', async () => {
    const start = await balance();
    const proxy = await lateProxy(400);
    const client = await connect(['--live', '--max-spend', '0.01'], envFor(emulator().seed.keys.live, { SVC_BASE_URL: proxy.origin }));
    // 400 characters at 0.002 cents: 0.8 cents, drawn, its answer held; the caller gives up on it.
    const cancel = new AbortController();
    const held = call(client, 'translate', { text: 'a'.repeat(400), to: 'es' }, { signal: cancel.signal });
    await proxy.reached;
    cancel.abort();
    await expect(held).rejects.toThrow();
    // Another app of the organization spends 5 cents meanwhile.
    const other = await fetch(`${emulator().url}/v1/translate`, {
      method: 'POST',
      headers: liveAuth(),
      body: JSON.stringify({ text: 'b'.repeat(2500), to: 'es' }),
    });
    expect(other.status).toBe(200);
    // 0.5 cents more would pass the 1-cent cap: the held 0.8 counts.
    const refused = await call(client, 'translate', { text: 'c'.repeat(250), to: 'es' });
    expect(refused.structuredContent?.error).toMatchObject({ code: 'spend_cap' });
    const fits = await call(client, 'translate', { text: 'd'.repeat(100), to: 'es' });
    expect(fits.isError, fits.content[0]?.text).toBeFalsy();
    await client.close();

    const entries = (await auditLog()).filter((e) => e.tool === 'translate');
    expect(entries.map((e) => [e.result, e.price_asked])).toEqual([
      ['cancelled', 0.8],
      ['spend_cap', 0.5],
      ['ok', 0.2],
    ]);
    expect(entries.at(-1).spent).toBe(1);
    // The organization paid the session's 1 cent and the other app's 5.
    expect(Math.round((start - (await balance())) * 10_000)).toBe(60_000);
  });

  it('a call whose connection drops after it was sent keeps its reservation: it was drawn', async () => {
    const start = await balance();
    const proxy = await lateProxy(400, 'drop');
    const client = await connect(['--live', '--max-spend', '0.01'], envFor(emulator().seed.keys.live, { SVC_BASE_URL: proxy.origin }));
    const dropped = await call(client, 'translate', { text: 'a'.repeat(400), to: 'es' });
    expect(dropped.isError).toBe(true);
    expect((await call(client, 'translate', { text: 'c'.repeat(250), to: 'es' })).structuredContent?.error).toMatchObject({ code: 'spend_cap' });
    await client.close();
    const entries = (await auditLog()).filter((e) => e.tool === 'translate');
    expect(entries.map((e) => e.price_asked)).toEqual([0.8, 0.5]);
    expect(entries.map((e) => e.spent)).toEqual([0.8, 0.8]);
    expect(Math.round((start - (await balance())) * 10_000)).toBe(8_000);
  });

  it('a 5xx from a gateway after the service drew keeps the reservation: the cap holds', async () => {
    const start = await balance();
    const proxy = await lateProxy(400, 'gateway');
    const client = await connect(['--live', '--max-spend', '0.01'], envFor(emulator().seed.keys.live, { SVC_BASE_URL: proxy.origin }));
    const failed = await call(client, 'translate', { text: 'a'.repeat(400), to: 'es' });
    expect(failed.structuredContent?.error).toMatchObject({ status: 504 });
    // 0.8 cents were drawn behind the 504: 0.5 more would pass the 1-cent cap.
    expect((await call(client, 'translate', { text: 'c'.repeat(250), to: 'es' })).structuredContent?.error).toMatchObject({ code: 'spend_cap' });
    await client.close();
    expect(Math.round((start - (await balance())) * 10_000)).toBe(8_000);
  });

  it('a dialled participant counts: spent is the call and the dial, as drawn', async () => {
    const start = await balance();
    const client = await connect(['--live', '--max-spend', '0.10'], envFor(emulator().seed.keys.live));
    const started = await call(client, 'calls_start', { languages: 'en,es' });
    expect(started.isError, started.content[0]?.text).toBeFalsy();
    const dialled = await call(client, 'calls_dial', { id: started.structuredContent.id, to: '+14155550100' });
    expect(dialled.isError, dialled.content[0]?.text).toBeFalsy();
    await client.close();
    const entries = await auditLog();
    // Each drawn minute, and each one's next minute held (minutes.ts): 2 + 2, then 3 + 3 more.
    expect(entries.map((e) => [e.tool, e.price_asked, e.spent])).toEqual([
      ['calls_start', 2, 4],
      ['calls_dial', 3, 10],
      ['calls_end', null, undefined],
    ]);
    expect(entries[2]).toMatchObject({ result: 'ok', args: { id: started.structuredContent.id, by: 'svc mcp' } });
    expect(start - (await balance())).toBe(5);
  });
});

describe('the audit log under load and attack', () => {
  it('two sessions writing at once keep every line, in one chain that --verify accepts', async () => {
    const [a, b] = await Promise.all([connect([]), connect([])]);
    await Promise.all([a, b].flatMap((client) => Array.from({ length: 25 }, () => call(client, 'account_balance', {}))));
    const entries = await auditLog();
    expect(entries.length).toBe(50);
    expect(new Set(entries.map((e) => e.session)).size).toBe(2);
    expect(entries.every((e) => e.result === 'ok')).toBe(true);
    const verified = await svc(['mcp', 'log', '--verify']);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/intact: 100 lines/);
  }, 30_000);

  it('secrets are redacted in the arguments kept, and refused calls keep no arguments at all: a 600 KB one is its size and digest', async () => {
    const client = await connect([]);
    const key = `svc_live_${'k'.repeat(32)}`;
    const jwt = `eyJhbGciOiJIUzI1NiJ9.${'e'.repeat(40)}.${'s'.repeat(43)}`;
    const bearer = `Bearer ${'t'.repeat(40)}`;
    // Refused by the schema (an undeclared property, a text past its bound): kept apart, without their arguments.
    await call(client, 'calls_list', { nested: { deeper: [{ key, auth: bearer, token: jwt }] } });
    await call(client, 'translate', { text: 'x'.repeat(600_000), to: 'es' });
    await call(client, 'translate', { text: `${key} ${bearer} ${jwt}`, to: 'es' });
    await call(client, 'account_balance', {});
    await client.close();
    const files = ['mcp-audit.ndjson', 'mcp-refused.ndjson'].map((f) => readFileSync(join(svcDir(), f), 'utf8')).join('\n');
    for (const secret of [key, jwt, 't'.repeat(40)]) expect(files).not.toContain(secret);
    expect(files.length).toBeLessThan(10_000);
    expect((await auditLog()).map((e) => e.tool)).toEqual(['translate', 'account_balance']);
    const refused = JSON.parse((await svc(['mcp', 'log', '--refused', '--json'])).stdout);
    expect(refused.flatMap((r: { tools: string[] }) => r.tools)).toEqual(['calls_list', 'translate']);
    expect(refused.reduce((n: number, r: { args_chars: number }) => n + r.args_chars, 0)).toBeGreaterThan(600_000);
  });

  it('one call with arguments nested 20 x 20 x 20 neither rotates the log nor hides the calls before it', async () => {
    const client = await connect([]);
    await call(client, 'account_balance', {});
    const leaf = 'v'.repeat(100);
    const level = (inner: () => unknown) => Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, inner()]));
    const nested = level(() => level(() => level(() => leaf)));
    // An unknown tool: refused by the protocol (-32602), and kept with the refusals by its size.
    await expect(call(client, 'nope', nested)).rejects.toThrow(/unknown tool/);
    await client.close();
    expect(existsSync(join(svcDir(), 'mcp-audit.ndjson.1'))).toBe(false);
    expect(statSync(join(svcDir(), 'mcp-audit.ndjson')).size).toBeLessThan(12_000);
    expect(statSync(join(svcDir(), 'mcp-refused.ndjson')).size).toBeLessThan(1_000);
    expect((await auditLog()).map((e) => [e.tool, e.result])).toEqual([['account_balance', 'ok']]);
    const refused = JSON.parse((await svc(['mcp', 'log', '--refused', '--json'])).stdout);
    expect(refused).toEqual([expect.objectContaining({ tools: ['nope'], reasons: ['unknown_tool'], count: 1, args_chars: JSON.stringify(nested).length })]);
    expect((await svc(['mcp', 'log', '--verify'])).code).toBe(0);
  });

  it('--verify says so when the rotated file was removed', async () => {
    const client = await connect([]);
    await call(client, 'account_balance', {});
    await call(client, 'account_balance', {});
    await client.close();
    // As rotation leaves it: the older lines in .1, the newer ones in the current file.
    const path = join(svcDir(), 'mcp-audit.ndjson');
    const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
    writeFileSync(`${path}.1`, `${lines.slice(0, 2).join('\n')}\n`, { mode: 0o600 });
    writeFileSync(path, `${lines.slice(2).join('\n')}\n`);
    const rotated = await svc(['mcp', 'log', '--verify']);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toMatch(/intact: 4 lines/);
    rmSync(`${path}.1`);
    const removed = await svc(['mcp', 'log', '--verify']);
    expect(removed.code).toBe(1);
    expect(removed.stdout).toMatch(/mcp-audit\.ndjson\.1\) was removed, or lines were removed from the start/);
  });

  it('a 1.5 MB line does not stop svc mcp log from reading the rest; --verify says the log was altered, and that it was cut', async () => {
    const client = await connect([]);
    await call(client, 'account_balance', {});
    await call(client, 'account_balance', {});
    await client.close();
    expect((await svc(['mcp', 'log', '--verify'])).code).toBe(0);
    const path = join(svcDir(), 'mcp-audit.ndjson');
    const kept = readFileSync(path, 'utf8');
    appendFileSync(path, `${JSON.stringify({ note: 'z'.repeat(1_500_000) })}\n`);
    expect((await auditLog()).length).toBe(2);
    const altered = await svc(['mcp', 'log', '--verify']);
    expect(altered.code).toBe(1);
    expect(altered.stderr).toMatch(/altered or cut/);
    // The last line removed: cut.
    writeFileSync(path, kept.split('\n').slice(0, -2).join('\n') + '\n');
    const cut = await svc(['mcp', 'log', '--verify']);
    expect(cut.code).toBe(1);
    expect(cut.stdout).toMatch(/cut/);
  });
});

/** `svc mcp` spawned raw: lines in, JSON-RPC answers out. */
function rawSession(extraEnv: Record<string, string> = {}) {
  const [command, args] = svcCommand(['mcp']);
  const child = spawn(command, args, { env: envFor(emulator().seed.keys.test, extraEnv), stdio: ['pipe', 'pipe', 'pipe'] });
  const answers: any[] = [];
  let buffer = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const complete = buffer.split('\n');
    buffer = complete.pop()!;
    answers.push(...complete.map((l) => JSON.parse(l)));
  });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const send = (message: object | string) => child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { child, answers, send, exited };
}

describe('JSON-RPC as the spec says', () => {
  it('answers a batch -32600, bad params -32602 in a line, and an oversized message with its id wherever the id is', async () => {
    const { child, answers, send, exited } = rawSession();
    send([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]);
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 5 } });
    send({ jsonrpc: '2.0', id: 3 });
    const huge = 'y'.repeat(1_100_000);
    send(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"translate","arguments":{"text":"${huge}","id":"inner"}},"id":4}`);
    send(`{"params":{"arguments":{"text":"${huge}"},"name":"translate"},"id":"middle","jsonrpc":"2.0","method":"tools/call"}`);
    send({ jsonrpc: '2.0', id: 5, method: 'tools/list' });
    child.stdin.end();
    await exited;
    const byId = new Map(answers.map((a) => [a.id, a]));
    expect(byId.get(null)).toMatchObject({ error: { code: -32600 } });
    expect(byId.get(2)).toMatchObject({ error: { code: -32602, message: expect.stringMatching(/^invalid params: /) } });
    expect(byId.get(2).error.message.length).toBeLessThan(200);
    expect(byId.get(3)).toMatchObject({ error: { code: -32600 } });
    expect(byId.get(4)).toMatchObject({ error: { code: -32600, message: expect.stringMatching(/reads at most/) } });
    expect(byId.get('middle')).toMatchObject({ error: { code: -32600 } });
    expect(byId.get(5).result.tools.length).toBeGreaterThan(0);
  }, 20_000);

  it('past 128 unanswered requests, one more is refused at once (-32000), and the session goes on', async () => {
    const { child, answers, send, exited } = rawSession({ SVC_MCP_REQUESTS_PER_MINUTE: '100000' });
    // Waits of 1 s: once stdin closes, answers in flight have 5 s (session-end.ts ANSWERS_WITHIN_MS).
    for (let id = 1; id <= 134; id++) send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'events_wait', arguments: { wait_seconds: 1 } } });
    child.stdin.end();
    await exited;
    const byId = new Map(answers.map((a) => [a.id, a]));
    const refused = [...byId.values()].filter((a) => a.error?.code === -32000);
    expect(refused.map((a) => a.id)).toEqual([129, 130, 131, 132, 133, 134]);
    expect(refused[0].error.message).toMatch(/busy: 128 requests are unanswered/);
    expect(byId.get(128)).toMatchObject({ result: { structuredContent: { timed_out: true } } });
  }, 20_000);

  it('when stdin closes, the answer to a call in flight is still written before exit', async () => {
    const { child, answers, send, exited } = rawSession();
    send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'events_wait', arguments: { wait_seconds: 1 } } });
    child.stdin.end();
    await exited;
    expect(answers.find((a) => a.id === 7)).toMatchObject({ result: { structuredContent: { timed_out: true } } });
  });
});

describe('a session stopped with a call in flight', () => {
  it('Ctrl-C: the call is audited disconnected, after its intent', async () => {
    const { child, send, exited } = rawSession();
    send({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'events_wait', arguments: { wait_seconds: 30 } } });
    // The intent line is written before the tool waits: then stop the server.
    const path = join(svcDir(), 'mcp-audit.ndjson');
    for (let i = 0; i < 200 && !(existsSync(path) && readFileSync(path, 'utf8').includes('"events_wait"')); i++) await new Promise((r) => setTimeout(r, 25));
    child.kill('SIGINT');
    await exited;
    expect((await auditLog()).map((e) => [e.tool, e.result])).toEqual([['events_wait', 'disconnected']]);
  });
});
