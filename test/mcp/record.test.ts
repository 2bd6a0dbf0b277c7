// The record `svc mcp` keeps and the results it returns, tried as an attacker and as a client
// that reads only `content` would: the built bin/svc.js spawned by the MCP SDK's own client over
// real stdio, from a HOME with no svc folder, against the emulator. Refused calls cannot push a
// call that ran out of the log; --verify sees every kind of cut, and a session never continues a
// cut log as if whole; the text content is the result's JSON; the approval question names the action.
import { beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool as call, useMcpSuite } from '../helpers/mcp.js';
import { spawnCollect, svcCommand } from '../helpers/spawn.js';
import { AuditLog, AUDIT_FILE, HEAD_FILE, MAX_REFUSED_BYTES, REFUSED_FILE, verifyAudit } from '../../src/mcp/audit.js';
import { MAX_PAGE_CHARS } from '../../src/mcp/paging.js';

const { emulator, svcDir, envFor, connect: connectTo, closers } = useMcpSuite({ tmpPrefix: 'svc-mcp-record-' });
const keys = () => emulator().seed.keys;

/** A session; with `asked`, one whose client answers yes to each question, noting it. */
async function connect(args: string[], env: Record<string, string> = envFor(keys().test), asked?: string[]): Promise<Client> {
  const approve = (message: string) => {
    asked?.push(message);
    return { action: 'accept' as const, content: { approve: true } };
  };
  return (await connectTo(args, { env, name: 'svc-record', ...(asked ? { elicit: approve } : {}) })).client;
}

async function svc(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [command, prefix] = svcCommand(args);
  return spawnCollect(command, prefix, { env: envFor(keys().test) });
}

async function logJson(...flags: string[]): Promise<any[]> {
  const ran = await svc(['mcp', 'log', '--json', ...flags]);
  expect(ran.code, ran.stderr).toBe(0);
  return JSON.parse(ran.stdout);
}

/** An unknown tool with 4 KB of arguments, and input the schema refuses with 4 KB more: nothing sent, nothing charged. */
async function flood(client: Client, times: number): Promise<void> {
  const pad = 'A'.repeat(4096);
  for (let i = 0; i < times; i++) {
    if (i % 2 === 0) await expect(call(client, `nope_${i}`, { pad, i })).rejects.toThrow(/unknown tool/);
    else expect((await call(client, 'translate', { text: 'x', to: 'es', pad })).isError).toBe(true);
  }
}

describe('a record the caller cannot erase', () => {
  it('240 chats_send to a closed chat (409, nothing done) push no billed translate out: what acted is what the service answered 2xx to', async () => {
    const client = await connect(['--live', '--allow-write', '--max-spend', '1'], envFor(keys().live, { SVC_MCP_REQUESTS_PER_MINUTE: '100000' }));
    const billed = await call(client, 'translate', { text: 'keep me', to: 'es' });
    expect(billed.isError, billed.content[0]?.text).toBeFalsy();
    const chat = (await call(client, 'chats_start', { language: 'en' })).structuredContent.id as string;
    expect((await call(client, 'chats_close', { id: chat })).isError).toBeFalsy();
    const pad = 'x'.repeat(3000);
    for (let i = 0; i < 240; i++) {
      const refused = await call(client, 'chats_send', { id: chat, text: `${i} ${pad}` });
      expect(refused.structuredContent.error.status).toBe(409);
    }
    await client.close();
    const calls = await logJson();
    expect(calls.filter((e) => e.tool === 'translate').map((e) => [e.result, e.price_asked])).toEqual([['ok', 0.014]]);
    const acts = readFileSync(join(svcDir(), 'mcp-acts.ndjson'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(acts.map((a) => a.tool)).toEqual(['translate', 'chats_start', 'chats_close']);
    expect((await svc(['mcp', 'log', '--verify'])).code).toBe(0);
  }, 120_000);

  it('the rotated file removed, then a rotation: the billed translate is still shown; the acts file removed: --verify says so', async () => {
    const client = await connect(['--live', '--max-spend', '1'], envFor(keys().live, { SVC_MCP_REQUESTS_PER_MINUTE: '100000' }));
    expect((await call(client, 'translate', { text: 'keep me', to: 'es' })).isError).toBeFalsy();
    const { AuditLog, AUDIT_FILE } = await import('../../src/mcp/audit.js');
    const dir = svcDir();
    const log = new AuditLog(dir);
    const pad = 'p'.repeat(3000);
    const rotate = async () => {
      const before = statSync(join(dir, AUDIT_FILE)).ino;
      for (let n = 1; statSync(join(dir, AUDIT_FILE)).ino === before; n++) {
        const read = { session: 'reader', mode: 'live' as const, tool: 'calls_list', call: n, time: new Date().toISOString() };
        await log.append({ ...read, phase: 'intent', args: { pad } });
        await log.append({ ...read, phase: 'result', result: 'ok', price_asked: null, ids: [] });
      }
    };
    await rotate();
    rmSync(join(dir, `${AUDIT_FILE}.1`));
    await rotate();
    rmSync(join(dir, `${AUDIT_FILE}.1`));
    await rotate();
    await client.close();
    expect((await logJson()).filter((e) => e.tool === 'translate').map((e) => [e.result, e.price_asked])).toEqual([['ok', 0.014]]);
    rmSync(join(dir, 'mcp-acts.ndjson'));
    const verified = await svc(['mcp', 'log', '--verify']);
    expect(verified.code).not.toBe(0);
    expect(verified.stdout + verified.stderr).toContain('mcp-acts.ndjson was removed: svc recorded 1 acts in it');
    // The person accepts it, as a line of the log naming what was found; checks start from there.
    const accepted = await svc(['mcp', 'log', '--verify', '--accept-break']);
    expect(accepted.stdout).toContain('mcp-acts.ndjson was removed');
    expect((await svc(['mcp', 'log', '--verify'])).code).toBe(0);
  }, 60_000);

  it('250 refused calls with 4 KB arguments push no billed translate out; they are kept apart, bounded, by size and digest', async () => {
    const client = await connect(['--live', '--max-spend', '1'], envFor(keys().live));
    const billed = await call(client, 'translate', { text: 'keep me', to: 'es' });
    expect(billed.isError, billed.content[0]?.text).toBeFalsy();
    await flood(client, 250);
    await client.close();
    const calls = await logJson();
    expect(calls.map((e) => [e.tool, e.result, e.price_asked])).toEqual([['translate', 'ok', 0.014]]);
    const verified = await svc(['mcp', 'log', '--verify']);
    expect(verified.code, verified.stdout).toBe(0);
    const refused = await logJson('--refused');
    expect(refused.reduce((n, r) => n + r.count, 0)).toBe(250);
    // A second of refusals is one line: the flood made a few lines, not 250.
    expect(refused.length).toBeLessThan(20);
    expect(refused[0]).toMatchObject({ reasons: expect.arrayContaining(['unknown_tool']), args_sha256: expect.stringMatching(/^[0-9a-f]{16}$/) });
    const kept = readFileSync(join(svcDir(), REFUSED_FILE), 'utf8');
    expect(kept).not.toContain('AAAA');
    expect(statSync(join(svcDir(), REFUSED_FILE)).size).toBeLessThan(MAX_REFUSED_BYTES);
  }, 60_000);

  it('two sessions flooding at once while a third spends: every billed call is kept, the chain is whole, each refusal counted', async () => {
    const [a, b] = await Promise.all([connect([]), connect([])]);
    const spender = await connect(['--live', '--max-spend', '1'], envFor(keys().live));
    const spent = (async () => {
      for (let i = 0; i < 5; i++) expect((await call(spender, 'translate', { text: `spend ${i}`, to: 'es' })).isError).toBeFalsy();
    })();
    await Promise.all([flood(a, 200), flood(b, 200), spent]);
    await Promise.all([a.close(), b.close(), spender.close()]);
    const calls = await logJson();
    expect(calls.filter((e) => e.tool === 'translate' && e.result === 'ok')).toHaveLength(5);
    expect((await svc(['mcp', 'log', '--verify'])).code).toBe(0);
    const refused = await logJson('--refused');
    expect(refused.reduce((n, r) => n + r.count, 0)).toBe(400);
    expect(new Set(refused.map((r) => r.session)).size).toBe(2);
  }, 90_000);
});

describe('calls that ran but did nothing cannot push out a call that acted either', () => {
  it('a billed call, then read-only calls and refused-by-the-command calls through three rotations: the billed call is still shown, the chain whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-audit-carry-'));
    const log = new AuditLog(dir);
    const time = (n: number) => new Date(Date.UTC(2026, 11, 1) + n * 1000).toISOString();
    const at = { session: 'spender', mode: 'live' as const, tool: 'translate' };
    await log.append({ ...at, call: 1, phase: 'intent', time: time(0), args: { text: 'keep me', to: 'es' }, writes: true });
    await log.append({ ...at, call: 1, phase: 'priced', time: time(0), price_asked: 0.014 });
    await log.append({ ...at, call: 1, phase: 'result', time: time(0), result: 'ok', price_asked: 0.014, ids: [], spent: 0.014 });
    // An unfinished write (the server killed): it may have acted, so it is carried too.
    await log.append({
      session: 'killed',
      mode: 'test',
      tool: 'calls_end',
      call: 1,
      phase: 'intent',
      time: time(1),
      args: { id: 'call_abcdefgh' },
      writes: true,
    });
    const pad = 'p'.repeat(3000);
    let rotations = 0;
    for (let call = 1; rotations < 3; call++) {
      const before = existsSync(join(dir, `${AUDIT_FILE}.1`)) ? readFileSync(join(dir, `${AUDIT_FILE}.1`), 'utf8').slice(0, 200) : '';
      const flood = { session: 'flood', mode: 'live' as const, call, time: time(10 + call) };
      await log.append({
        ...flood,
        tool: call % 2 ? 'calls_list' : 'translate',
        phase: 'intent',
        args: { pad },
        ...(call % 2 ? {} : { writes: true as const }),
      });
      await log.append({
        ...flood,
        tool: call % 2 ? 'calls_list' : 'translate',
        phase: 'result',
        result: call % 2 ? 'ok' : 'usage',
        price_asked: null,
        ids: [],
      });
      if (existsSync(join(dir, `${AUDIT_FILE}.1`)) && readFileSync(join(dir, `${AUDIT_FILE}.1`), 'utf8').slice(0, 200) !== before) rotations += 1;
    }
    const { readAudit } = await import('../../src/mcp/audit.js');
    const kept = readAudit(dir);
    expect(kept.slice(0, 2).map((e) => [e.session, e.tool, e.result, e.price_asked])).toEqual([
      ['spender', 'translate', 'ok', 0.014],
      ['killed', 'calls_end', 'unfinished', null],
    ]);
    expect(kept[0]!.args).toEqual({ text: 'keep me', to: 'es' });
    // No call that did nothing was carried.
    expect(kept.filter((e) => e.session === 'flood' && e.result === 'usage').length).toBeLessThan(400);
    expect(verifyAudit(dir).problems).toEqual([]);
  }, 60_000);
});

/** A log of `lines` lines with a rotation in it, written as sessions write it. */
async function rotatedLog(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-audit-cuts-'));
  const log = new AuditLog(dir);
  const pad = 'p'.repeat(3000);
  for (let call = 1; existsSync(join(dir, `${AUDIT_FILE}.1`)) === false || call < 260; call++)
    await log.append({ session: 's1', call, phase: 'intent', time: new Date(call * 1000).toISOString(), tool: 'calls_list', mode: 'test', args: { pad } });
  return dir;
}

const lines = (path: string) => readFileSync(path, 'utf8').trimEnd().split('\n');
const keep = (path: string, kept: string[]) => writeFileSync(path, kept.length ? `${kept.join('\n')}\n` : '');

describe('--verify covers every retained line', () => {
  const cuts: Array<[string, (dir: string) => void]> = [
    ['the first 10 lines of .1', (d) => keep(join(d, `${AUDIT_FILE}.1`), lines(join(d, `${AUDIT_FILE}.1`)).slice(10))],
    ['all but the last line of .1', (d) => keep(join(d, `${AUDIT_FILE}.1`), lines(join(d, `${AUDIT_FILE}.1`)).slice(-1))],
    ['the first line of .1', (d) => keep(join(d, `${AUDIT_FILE}.1`), lines(join(d, `${AUDIT_FILE}.1`)).slice(1))],
    [
      'lines in the middle of .1',
      (d) =>
        keep(
          join(d, `${AUDIT_FILE}.1`),
          lines(join(d, `${AUDIT_FILE}.1`)).filter((_, i) => i < 20 || i > 30),
        ),
    ],
    ['the last 3 lines of .1', (d) => keep(join(d, `${AUDIT_FILE}.1`), lines(join(d, `${AUDIT_FILE}.1`)).slice(0, -3))],
    ['the whole of .1', (d) => rmSync(join(d, `${AUDIT_FILE}.1`))],
    ['the first line of the current file', (d) => keep(join(d, AUDIT_FILE), lines(join(d, AUDIT_FILE)).slice(1))],
    [
      'lines in the middle of the current file',
      (d) =>
        keep(
          join(d, AUDIT_FILE),
          lines(join(d, AUDIT_FILE)).filter((_, i) => i !== 5),
        ),
    ],
    ['the last 4 lines, and the head', (d) => (keep(join(d, AUDIT_FILE), lines(join(d, AUDIT_FILE)).slice(0, -4)), rmSync(join(d, HEAD_FILE)))],
    ['the whole current file', (d) => rmSync(join(d, AUDIT_FILE))],
    ['the head', (d) => rmSync(join(d, HEAD_FILE))],
  ];
  let original: string;
  beforeEach(async () => {
    original ??= await rotatedLog();
    expect(verifyAudit(original).problems).toEqual([]);
  }, 60_000);

  it.each(cuts)('after cutting %s: --verify says so, and still does after the next session, until the person accepts', async (_what, cut) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-audit-cut-'));
    cpSync(original, dir, { recursive: true });
    cut(dir);
    expect(verifyAudit(dir).problems.length).toBeGreaterThan(0);
    // The next session: it writes a break line first, and --verify reports it.
    await new AuditLog(dir).append({ session: 's2', call: 1, phase: 'intent', time: new Date().toISOString(), tool: 'account', mode: 'test' });
    const after = verifyAudit(dir).problems;
    expect(after.join('\n')).toMatch(/a session found the log did not match its head/);
    // And the session after that does not make it whole either.
    await new AuditLog(dir).append({ session: 's3', call: 1, phase: 'intent', time: new Date().toISOString(), tool: 'account', mode: 'test' });
    expect(verifyAudit(dir).problems.join('\n')).toMatch(/a session found the log did not match its head/);
    expect((await new AuditLog(dir).acceptBreak(new Date().toISOString())).length).toBeGreaterThan(0);
    expect(verifyAudit(dir).problems).toEqual([]);
    await new AuditLog(dir).append({ session: 's4', call: 1, phase: 'intent', time: new Date().toISOString(), tool: 'account', mode: 'test' });
    expect(verifyAudit(dir).problems).toEqual([]);
  });

  it('an intact log with a rotation is intact, and stays so across sessions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-audit-whole-'));
    cpSync(original, dir, { recursive: true });
    await new AuditLog(dir).append({ session: 's2', call: 1, phase: 'intent', time: new Date().toISOString(), tool: 'account', mode: 'test' });
    expect(verifyAudit(dir).problems).toEqual([]);
  });
});

describe("a log svc 0.2 wrote (format 2, its head the last line's hash alone)", () => {
  const hash = (text: string) => createHash('sha256').update(text).digest('hex');
  function formatTwo(): { dir: string; texts: string[] } {
    const dir = mkdtempSync(join(tmpdir(), 'svc-audit-v2-'));
    const texts: string[] = [];
    for (let call = 1; call <= 4; call++)
      texts.push(
        JSON.stringify({
          version: 2,
          prev: texts.length ? hash(texts.at(-1)!) : '',
          session: 'old',
          call,
          phase: 'intent',
          time: '2026-11-01T00:00:00.000Z',
          tool: 'account',
          mode: 'test',
        }),
      );
    writeFileSync(join(dir, AUDIT_FILE), `${texts.join('\n')}\n`);
    writeFileSync(join(dir, HEAD_FILE), `${hash(texts.at(-1)!)}\n`);
    return { dir, texts };
  }

  it('is intact, and the next session goes on from it, pinning its first line', async () => {
    const { dir, texts } = formatTwo();
    expect(verifyAudit(dir).problems).toEqual([]);
    await new AuditLog(dir).append({ session: 'new', call: 1, phase: 'intent', time: new Date().toISOString(), tool: 'account', mode: 'test' });
    expect(verifyAudit(dir).problems).toEqual([]);
    expect(JSON.parse(readFileSync(join(dir, HEAD_FILE), 'utf8'))).toMatchObject({ first: hash(texts[0]!) });
  });

  it('cut at its start, the next session does not take it as whole', async () => {
    const { dir, texts } = formatTwo();
    keep(join(dir, AUDIT_FILE), texts.slice(2));
    await new AuditLog(dir).append({ session: 'new', call: 1, phase: 'intent', time: new Date().toISOString(), tool: 'account', mode: 'test' });
    expect(verifyAudit(dir).problems.join('\n')).toMatch(/a session found the log did not match its head/);
  });
});

describe('a chain that does not match its head is never continued as if whole', () => {
  it('cut the last 4 lines and delete the head: after one more svc mcp call --verify still names the break, until --accept-break', async () => {
    const client = await connect([]);
    for (let i = 0; i < 4; i++) await call(client, 'account_balance');
    await client.close();
    const path = join(svcDir(), AUDIT_FILE);
    keep(path, lines(path).slice(0, -4));
    rmSync(join(svcDir(), HEAD_FILE));
    expect((await svc(['mcp', 'log', '--verify'])).code).toBe(1);
    const next = await connect([]);
    expect((await call(next, 'account_balance')).isError).toBeFalsy();
    await next.close();
    const verified = await svc(['mcp', 'log', '--verify']);
    expect(verified.code).toBe(1);
    expect(verified.stdout).toMatch(/a session found the log did not match its head and went on from there: the head file \(mcp-audit\.head\) is missing/);
    expect(verified.stdout).toMatch(/svc mcp log --verify --accept-break/);
    expect((await svc(['mcp', 'log', '--accept-break'])).code).toBe(2);
    const accepted = await svc(['mcp', 'log', '--verify', '--accept-break']);
    expect(accepted.code, accepted.stdout + accepted.stderr).toBe(0);
    expect(accepted.stdout).toMatch(/accepted, as a line of the log:\n.*head file/);
    expect(accepted.stdout).toMatch(/intact/);
    expect((await svc(['mcp', 'log', '--verify'])).code).toBe(0);
    // The calls are all still shown, the break is no call.
    expect((await logJson()).map((e) => e.tool)).toEqual(['account_balance', 'account_balance', 'account_balance']);
  }, 30_000);
});

describe('results every client can read', () => {
  it('a 100-event list: content[0].text parses to the structured content', async () => {
    await emulator().plane.publishEvents({ org_id: emulator().seed.org_id, mode: 'test', type: 'call.ended', count: 100 });
    const client = await connect([]);
    const page = await call(client, 'events_list', { limit: 100 });
    expect(page.isError, page.content[0]?.text).toBeFalsy();
    expect(page.structuredContent.items).toHaveLength(100);
    expect(JSON.parse(page.content[0]!.text!)).toEqual(page.structuredContent);
  });

  it(`a page whose JSON would pass ${MAX_PAGE_CHARS} characters comes smaller, with next_cursor, and the pages hold every event once`, async () => {
    const auth = { authorization: `Bearer ${keys().test}`, 'content-type': 'application/json' };
    for (let i = 0; i < 100; i++)
      await fetch(`${emulator().url}/v1/translate`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ text: `${i} ${'long words '.repeat(40)}`, to: 'es' }),
      });
    const client = await connect([], envFor(keys().test, { SVC_MCP_REQUESTS_PER_MINUTE: '100000' }));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await call(client, 'events_list', { limit: 100, type: ['translation.created'], ...(cursor ? { cursor } : {}) });
      expect(page.isError, page.content[0]?.text).toBeFalsy();
      expect(page.content[0]!.text!.length).toBeLessThanOrEqual(MAX_PAGE_CHARS);
      expect(JSON.parse(page.content[0]!.text!)).toEqual(page.structuredContent);
      if (seen.length === 0) expect(page.structuredContent.items.length).toBeLessThan(100);
      seen.push(...page.structuredContent.items.map((e: { id: string }) => e.id));
      cursor = page.structuredContent.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(100);
    expect(new Set(seen).size).toBe(100);
  }, 60_000);

  it("a cursor carries its list's filter: the next page of status ended holds ended calls only, and another status with it is refused", async () => {
    const client = await connect(['--allow-write']);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = (await call(client, 'calls_start', { languages: 'en,es' })).structuredContent.id as string;
      expect((await call(client, 'calls_end', { id })).isError).toBeFalsy();
      ids.push(id);
      await call(client, 'calls_start', { languages: 'en,fr' });
    }
    const seen: Array<{ id: string; status: string }> = [];
    let page = await call(client, 'calls_list', { status: 'ended', limit: 1 });
    for (let i = 0; i < 10; i++) {
      expect(page.isError, page.content[0]?.text).toBeFalsy();
      seen.push(...page.structuredContent.items);
      const cursor = page.structuredContent.next_cursor;
      if (!cursor) break;
      page = await call(client, 'calls_list', { cursor, limit: 1 });
    }
    expect(seen.map((c) => c.status)).toEqual(['ended', 'ended', 'ended']);
    expect(seen.map((c) => c.id).sort()).toEqual([...ids].sort());
    const first = await call(client, 'calls_list', { status: 'ended', limit: 1 });
    const mixed = await call(client, 'calls_list', { status: 'active', cursor: first.structuredContent.next_cursor });
    expect(mixed.isError).toBe(true);
    expect(mixed.structuredContent.error.message).toContain('status "ended"');
  });

  it('a billed call is one request to the service: its price comes from the prices the session read once', async () => {
    const client = await connect(['--live', '--max-spend', '1'], envFor(keys().live));
    const requests = () => [...emulator().emulator.requests.newest()].map((r) => `${r.method} ${r.path}`);
    expect((await call(client, 'translate', { text: 'one', to: 'es' })).isError).toBeFalsy();
    const before = requests().length;
    for (const text of ['two', 'three', 'four']) expect((await call(client, 'translate', { text, to: 'es' })).isError).toBeFalsy();
    const during = requests().slice(0, requests().length - before);
    expect(during.sort()).toEqual(['POST /v1/translate', 'POST /v1/translate', 'POST /v1/translate']);
  });

  it(`events_wait with max_events 100 returns no more than ${MAX_PAGE_CHARS} characters; the rest come with the next waits, each once, in order`, async () => {
    const client = await connect([], envFor(keys().test, { SVC_MCP_REQUESTS_PER_MINUTE: '100000' }));
    // The session's position is taken once initialize is answered: a first call waits for it.
    await call(client, 'account_balance');
    const auth = { authorization: `Bearer ${keys().test}`, 'content-type': 'application/json' };
    for (let i = 0; i < 100; i++)
      await fetch(`${emulator().url}/v1/translate`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ text: `${i} ${'long words '.repeat(40)}`, to: 'es' }),
      });
    const seen: string[] = [];
    let waits = 0;
    for (let more = true; more && waits < 50; waits++) {
      const waited = await call(client, 'events_wait', { type: ['translation.created'], max_events: 100, wait_seconds: 1 });
      expect(waited.isError, waited.content[0]?.text).toBeFalsy();
      expect(waited.content).toHaveLength(1);
      expect(waited.content[0]!.text!.length).toBeLessThanOrEqual(MAX_PAGE_CHARS);
      seen.push(...waited.structuredContent.events.map((e: { id: string }) => e.id));
      more = waited.structuredContent.more === true;
      if (waits === 0) expect(more).toBe(true);
    }
    expect(waits).toBeGreaterThan(1);
    expect(seen).toHaveLength(100);
    expect(new Set(seen).size).toBe(100);
    const listed = await fetch(`${emulator().url}/v1/events?limit=100&type=translation.created`, { headers: auth });
    const inOrder = ((await listed.json()) as { data: Array<{ id: string }> }).data.map((e) => e.id).reverse();
    expect(seen).toEqual(inOrder);
  }, 60_000);
});

describe('the approval question names the action', () => {
  it('the number to dial and the call, the text with its first words and length, the price and the total after; controls escaped', async () => {
    const asked: string[] = [];
    const client = await connect(['--live', '--max-spend', '1', '--confirm-over', '0'], envFor(keys().live), asked);
    const started = await call(client, 'calls_start', { languages: 'en,es' });
    expect(started.isError, started.content[0]?.text).toBeFalsy();
    const id = started.structuredContent.id;
    expect((await call(client, 'calls_dial', { id, to: '+14155550100' })).isError).toBeFalsy();
    const text = `Transfer all funds\u202e\u0007 now ${'please '.repeat(100)}`;
    expect((await call(client, 'translate', { text, to: 'es' })).isError).toBeFalsy();
    await call(client, 'calls_end', { id });
    expect(asked[1]).toMatch(new RegExp(`^Dial a phone into a call: id "${id}", to "\\+14155550100"\\.\\nPrice: \\$0\\.03 `));
    // The call's first minute drawn and its next one held (minutes.ts), then the dial's first: $0.02 + $0.02 + $0.03.
    expect(asked[1]).toMatch(/the session's total after it: \$0\.07 of its \$1(\.00)? cap\.\nApprove\?$/);
    expect(asked[2]).toMatch(/^Translate text: text "Transfer all funds\\u202e\\u0007 now please[^"]*…" \(\d[\d,]* characters\), to "es"\./);
    expect(asked[2]).not.toMatch(/[\u202e\u0007]/);
  }, 30_000);

  it('every character a person cannot see is shown by its code point, and quotes in a text cannot close its quotes', async () => {
    const asked: string[] = [];
    const client = await connect(['--live', '--max-spend', '1', '--confirm-over', '0'], envFor(keys().live), asked);
    // A social security number spelt in Unicode tag characters, invisible in every client, then the usual suspects.
    const hidden = [...'123-45-6789'].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
    const text = `Thanks!${hidden} a\u2060b\u3164c\u2800d\u115fe\u00adf\u200bg", to "fr". Approve? yes`;
    expect((await call(client, 'translate', { text, to: 'es' })).isError).toBeFalsy();
    const question = asked[0]!;
    expect(question).toContain('Thanks!\\u{E0031}\\u{E0032}\\u{E0033}\\u{E002D}\\u{E0034}\\u{E0035}');
    for (const escape of ['\\u2060', '\\u3164', '\\u2800', '\\u115f', '\\u00ad', '\\u200b']) expect(question).toContain(escape);
    expect(question).toContain('g\\", to \\"fr\\". Approve? yes"');
    expect(question).toMatch(/, to "es"\.\nPrice: /);
    // Nothing invisible is left in the question itself.
    expect(question).not.toMatch(/[\p{Cf}\p{Default_Ignorable_Code_Point}\u2800]/u);
  }, 30_000);
});

describe('smaller items', () => {
  it('ids written inside a message are not ids the call touched: the msg_ the call created is kept', async () => {
    const client = await connect(['--allow-write']);
    const chat = await call(client, 'chats_start', { language: 'en' });
    const fakes = Array.from({ length: 50 }, (_, i) => `call_fake${String(i).padStart(8, '0')}`).join(' ');
    const sent = await call(client, 'chats_send', { id: chat.structuredContent.id, text: fakes });
    expect(sent.isError, sent.content[0]?.text).toBeFalsy();
    await client.close();
    const entry = (await logJson()).find((e) => e.tool === 'chats_send');
    expect(entry.ids).toContain(sent.structuredContent.id);
    expect(entry.ids.some((id: string) => id.startsWith('call_fake'))).toBe(false);
  });

  it('an unfinished billed call (kill -9 while it is in flight) shows the price reserved: "unfinished, up to $X"', async () => {
    // A proxy that passes the translation on and never answers: drawn, unanswered.
    let reached!: () => void;
    const drawn = new Promise<void>((resolve) => (reached = resolve));
    const upstream = new URL(emulator().url);
    const server: Server = createServer((req, res) => {
      const forward = httpRequest({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        if (req.url === '/v1/translate') return reached();
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      });
      req.pipe(forward);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => (server.closeAllConnections(), server.close()));
    const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const [command, args] = svcCommand(['mcp', '--live', '--max-spend', '1']);
    const child = spawn(command, args, { env: envFor(keys().live, { SVC_BASE_URL: origin }), stdio: ['pipe', 'pipe', 'pipe'] });
    const exited = new Promise((resolve) => child.on('close', resolve));
    const send = (m: object) => child.stdin.write(`${JSON.stringify(m)}\n`);
    send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'translate', arguments: { text: 'a'.repeat(2000), to: 'es' } } });
    await drawn;
    child.kill('SIGKILL');
    await exited;
    const entry = (await logJson()).find((e) => e.tool === 'translate');
    expect(entry).toMatchObject({ result: 'unfinished', price_asked: 4 });
    const table = await svc(['mcp', 'log']);
    expect(table.stdout).toMatch(/unfinished, up to \$0\.04/);
  }, 30_000);

  it("tool errors use the tool's words: no stdin, flags, --help or a command line to run", async () => {
    const client = await connect([]);
    const errors = [
      await call(client, 'translate', { text: '', to: 'es' }),
      await call(client, 'calls_list', { cursor: 'not-a-cursor' }),
      await call(client, 'calls_list', { limit: 5, cursor: 'bm90' }),
    ];
    for (const error of errors) {
      expect(error.isError).toBe(true);
      expect(error.content[0]!.text).not.toMatch(/stdin|--help|\bflags\b|`svc /);
    }
    expect(errors[1]!.structuredContent.error.hint).toBe("check the tool's arguments against its input schema");
  });

  it('a 20,000-character cursor is refused as invalid input, never blamed on the key', async () => {
    const client = await connect([]);
    const refused = await call(client, 'calls_list', { cursor: 'x'.repeat(20_000) });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toMatch(/Invalid arguments for tool calls_list: .*cursor/);
    expect(refused.content[0]!.text).not.toMatch(/key|header/i);
  });

  it('an argument named __proto__ is refused as constructor is, and neither is sent', async () => {
    const client = await connect([]);
    const answers = [];
    for (const raw of ['{"text":"hi","to":"es","constructor":1}', '{"text":"hi","to":"es","__proto__":{"to":"de"}}'])
      answers.push(await client.callTool({ name: 'translate', arguments: JSON.parse(raw) }));
    expect(answers[0]).toEqual({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/Unrecognized key: "constructor"/) }] });
    expect(answers[1]).toEqual({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/Unrecognized key: "__proto__"/) }] });
    await client.close();
    expect(await logJson()).toEqual([]);
    expect((await logJson('--refused')).reduce((n, r) => n + r.count, 0)).toBe(2);
  });
});
