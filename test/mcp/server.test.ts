// `svc mcp` as assistants run it: the built bin/svc.js spawned by the MCP SDK's own client over
// real stdio, against the emulator. Every tool is called; the cap, the audit log, bad input and
// a flood of calls are what a model would do to it.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { callTool as call, useMcpSuite } from '../helpers/mcp.js';
import { root, spawnCollect, svcCommand } from '../helpers/spawn.js';

const { emulator, svcDir: configDir, envFor, connect: connectTo } = useMcpSuite({ tmpPrefix: 'svc-mcp-', configDir: true });

async function connect(args: string[], key = emulator().seed.keys.test): Promise<{ client: Client; stderr: () => string }> {
  return connectTo(args, { env: envFor(key) });
}

async function auditLog(which: 'calls' | 'refused' = 'calls'): Promise<any[]> {
  const [command, args] = svcCommand(['mcp', 'log', '--json', ...(which === 'refused' ? ['--refused'] : [])]);
  const ran = await spawnCollect(command, args, { env: envFor(emulator().seed.keys.test) });
  expect(ran.code).toBe(0);
  return JSON.parse(ran.stdout);
}

describe('a test-mode session', () => {
  it('by default lists read-only tools, all marked readOnlyHint', async () => {
    const { client, stderr } = await connect([]);
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['account', 'calls_list', 'calls_get', 'events_list', 'events_wait', 'translate']));
    expect(names).not.toContain('calls_start');
    expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    expect(stderr()).toMatch(/svc mcp: \d+ tools, test mode, read-only/);
  });

  it('drives every tool of an --allow-write session against the emulator', async () => {
    const { client } = await connect(['--allow-write']);
    const ok = async (name: string, args: Record<string, unknown> = {}) => {
      const result = await call(client, name, args);
      expect(result.isError, `${name}: ${result.content[0]?.text}`).toBeFalsy();
      return result.structuredContent;
    };
    const { tools } = await client.listTools();
    const called = new Set<string>();
    const track = async (name: string, args: Record<string, unknown> = {}) => {
      called.add(name);
      return ok(name, args);
    };
    expect(JSON.stringify(await track('account'))).toContain(emulator().seed.org_id);
    expect(await track('account_balance')).toMatchObject({ object: 'balance' });
    expect((await track('account_prices')).items.map((p: { item: string }) => p.item)).toContain('translation_character');
    const started = await track('calls_start', { languages: 'en,es', title: 'From an assistant' });
    expect(started.id).toMatch(/^call_/);
    expect(await track('calls_get', { id: started.id })).toMatchObject({ id: started.id, title: 'From an assistant' });
    expect((await track('calls_list', { limit: 5 })).items[0].id).toBe(started.id);
    const link = await track('calls_links_create', { call: started.id, language: 'fr', expires_in: '30m' });
    expect(link.id).toMatch(/^link_/);
    expect((await track('calls_links_list')).items.map((l: { id: string }) => l.id)).toContain(link.id);
    const line = await track('calls_lines_add', { country: 'US', area_code: '415' });
    expect(line.id).toMatch(/^line_/);
    expect((await track('calls_lines_list')).items.map((l: { id: string }) => l.id)).toContain(line.id);
    // Test mode cannot dial a real phone: not a tool of the session at all.
    expect(tools.map((t) => t.name)).not.toContain('calls_dial');
    await track('calls_lines_release', { id: line.id });
    expect(await track('calls_end', { id: started.id })).toMatchObject({ id: started.id, status: 'ended' });
    const chat = await track('chats_start', { language: 'en', subject: 'Help' });
    expect(chat.id).toMatch(/^chat_/);
    const sent = await track('chats_send', { id: chat.id, text: 'hello there' });
    expect(sent.id ?? sent.object).toBeTruthy();
    expect((await track('chats_messages', { id: chat.id })).items.length).toBeGreaterThan(0);
    expect(await track('chats_get', { id: chat.id })).toMatchObject({ id: chat.id });
    expect((await track('chats_list')).items.map((c: { id: string }) => c.id)).toContain(chat.id);
    await track('chats_close', { id: chat.id });
    expect(await track('translate', { text: 'good morning', to: 'es' })).toMatchObject({ object: 'translation', to: 'es', livemode: false });
    await track('events_trigger', { type: 'call.ended' });
    const events = await track('events_list', { type: ['call.*'], limit: 10 });
    expect(events.items.length).toBeGreaterThan(0);
    expect(await track('events_get', { id: events.items[0].id })).toMatchObject({ id: events.items[0].id });
    called.add('events_wait');
    expect(tools.map((t) => t.name).filter((name) => !called.has(name))).toEqual([]);
  });

  it('events_wait returns what happened since the session started, bounded, each event once', async () => {
    const { client } = await connect(['--allow-write']);
    const chat = (await call(client, 'chats_start', { language: 'en', subject: 'watched' })).structuredContent;
    const got = (await call(client, 'events_wait', { type: ['chat.*'], max_events: 5, wait_seconds: 2 })).structuredContent;
    expect(got.events.map((e: { type: string }) => e.type)).toEqual(['chat.started']);
    expect(JSON.stringify(got.events[0])).toContain(chat.id);
    await call(client, 'chats_close', { id: chat.id });
    const next = (await call(client, 'events_wait', { type: ['chat.*'], max_events: 1, wait_seconds: 15 })).structuredContent;
    expect(next.events.map((e: { type: string }) => e.type)).toEqual(['chat.closed']);
    const none = (await call(client, 'events_wait', { type: ['chat.*'], max_events: 1, wait_seconds: 1 })).structuredContent;
    expect(none).toMatchObject({ events: [], timed_out: true });
  });
});

describe('bad input from a model', () => {
  it('wrong types, unknown tools, unknown properties and huge arguments are tool errors, and the server keeps serving', async () => {
    const { client } = await connect([]);
    const wrongType = await call(client, 'calls_list', { limit: 'five' });
    expect(wrongType.isError).toBe(true);
    expect(wrongType.content[0]!.text).toMatch(/Invalid arguments for tool calls_list/);
    const outOfRange = await call(client, 'calls_list', { limit: 1000 });
    expect(outOfRange.isError).toBe(true);
    // An unknown tool is a protocol error (-32602), input a schema refuses a tool error the model can correct.
    await expect(call(client, 'keys_remove', { name: 'ci' })).rejects.toThrow(/-32602.*unknown tool: keys_remove/);
    expect((await call(client, 'calls_list', { bogus: true })).isError).toBe(true);
    const huge = await call(client, 'translate', { text: 'x'.repeat(200_000), to: 'es' });
    expect(huge.isError).toBe(true);
    // Past what svc mcp reads at all (1 MiB): answered as an invalid request, unread.
    await expect(call(client, 'translate', { text: 'y'.repeat(1_100_000), to: 'es' })).rejects.toThrow(/svc mcp reads at most 1048576/);
    const tooLongForTheService = await call(client, 'translate', { text: 'x'.repeat(6_000), to: 'es' });
    expect(tooLongForTheService.structuredContent.error).toMatchObject({ code: 'usage' });
    expect((await call(client, 'account_balance')).isError).toBeFalsy();
    // The refusals are kept apart from the calls that ran, by their size and digest (svc mcp log --refused).
    const results = (await auditLog()).map((e) => [e.tool, e.result]);
    expect(results).toContainEqual(['translate', 'usage']);
    expect(results.at(-1)).toEqual(['account_balance', 'ok']);
    expect(results.map(([tool]) => tool)).not.toContain('keys_remove');
    // Refusals within a second of the last one written are one line, written by the next or at the session's end.
    await client.close();
    const refused = await auditLog('refused');
    expect(refused.flatMap((r) => r.tools)).toEqual(expect.arrayContaining(['calls_list', 'keys_remove']));
    expect(refused.flatMap((r) => r.reasons)).toEqual(expect.arrayContaining(['invalid_input', 'unknown_tool']));
    expect(refused.reduce((n, r) => n + r.count, 0)).toBe(5);
    expect(JSON.stringify(refused)).not.toContain('x'.repeat(1000));
  });

  it("an id of the other mode is svc's not_found, with the hint a person would get", async () => {
    const liveCall = await fetch(`${emulator().url}/v1/calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${emulator().seed.keys.live}`, 'content-type': 'application/json' },
      body: JSON.stringify({ languages: ['en', 'es'] }),
    }).then((r) => r.json() as Promise<{ id: string }>);
    const { client } = await connect([]);
    const result = await call(client, 'calls_get', { id: liveCall.id });
    expect(result.isError).toBe(true);
    expect(result.structuredContent.error).toMatchObject({ code: 'not_found', status: 404, exit_code: 5 });
    expect(JSON.parse(result.content[0]!.text!)).toEqual(result.structuredContent);
    expect(result.structuredContent.error.code).toBe('not_found');
    expect(result.structuredContent.error.hint).toMatch(/mode|--live|--test/);
  });

  it('a flood of calls is paced under the service limit: no 429 reaches the service, the excess is a clear rate_limited error', async () => {
    const { client } = await connect([]);
    const results = await Promise.all(Array.from({ length: 120 }, () => call(client, 'account_balance')));
    const refused = results.filter((r) => r.isError);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect(r.structuredContent.error).toMatchObject({ code: 'rate_limited', hint: expect.stringMatching(/wait/) });
    expect(results.length - refused.length).toBeGreaterThanOrEqual(50);
    expect((await emulator().plane.stats()).rate_limited).toBe(0);
  }, 30_000);
});

describe('a live session', () => {
  it('needs --max-spend', async () => {
    const [command, args] = svcCommand(['mcp', '--live']);
    const ran = await spawnCollect(command, args, { env: envFor(emulator().seed.keys.live) });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/a live session needs --max-spend/);
    expect(ran.stdout).toBe('');
  });

  it('keeps to --max-spend 0.10: a $0.06 translation passes, the next is refused, and the audit log and the balance agree exactly', async () => {
    const balanceOf = async () =>
      (
        (await fetch(`${emulator().url}/v1/balance`, { headers: { authorization: `Bearer ${emulator().seed.keys.live}` } }).then((r) => r.json())) as {
          available: number;
        }
      ).available;
    const start = await balanceOf();
    const { client } = await connect(['--live', '--max-spend', '0.10'], emulator().seed.keys.live);
    const text = 'a'.repeat(3000); // 3,000 characters at 0.002 cents: $0.06
    const first = await call(client, 'translate', { text, to: 'es' });
    expect(first.isError, first.content[0]?.text).toBeFalsy();
    expect(first.structuredContent).toMatchObject({ object: 'translation', livemode: true, characters: 3000 });
    const second = await call(client, 'translate', { text, to: 'es' });
    expect(second.isError).toBe(true);
    expect(second.structuredContent.error).toMatchObject({ code: 'spend_cap' });
    expect(second.content[0]!.text).toMatch(/priced at \$0\.06, and the session has spent \$0\.06 of its \$0\.10 cap/);

    const entries = (await auditLog()).filter((e) => e.tool === 'translate');
    expect(entries.map((e) => [e.mode, e.price_asked, e.result])).toEqual([
      ['live', 6, 'ok'],
      ['live', 6, 'spend_cap'],
    ]);
    const billed = entries.filter((e) => e.result === 'ok').reduce((sum, e) => sum + Math.round(e.price_asked * 10_000), 0);
    const after = await balanceOf();
    expect(Math.round((start - after) * 10_000)).toBe(billed);
    expect(entries[0]).toMatchObject({ spent: 6 });
    expect(entries[1]).toMatchObject({ spent: 6 });
  });

  it('prices a live call its first minute ahead, refuses one the cap cannot cover, and ends the calls it started when the session ends', async () => {
    const live = { authorization: `Bearer ${emulator().seed.keys.live}` };
    const balanceOf = async () => ((await fetch(`${emulator().url}/v1/balance`, { headers: live }).then((r) => r.json())) as { available: number }).available;
    const start = await balanceOf();
    const tight = await connect(['--live', '--max-spend', '0.01'], emulator().seed.keys.live); // a minute is 2 cents
    const refused = await call(tight.client, 'calls_start', { languages: 'en,es' });
    expect(refused.structuredContent.error).toMatchObject({ code: 'spend_cap' });
    const { client } = await connect(['--live', '--max-spend', '0.05'], emulator().seed.keys.live);
    const started = await call(client, 'calls_start', { languages: 'en,es' });
    expect(started.isError, started.content[0]?.text).toBeFalsy();
    expect(start - (await balanceOf())).toBe(2);
    const entry = (await auditLog()).filter((e) => e.tool === 'calls_start').at(-1);
    // Its first minute drawn, and its next held in the session's ledger (minutes.ts).
    expect(entry).toMatchObject({ price_asked: 2, result: 'ok', spent: 4, ids: [started.structuredContent.id] });
    await client.close();
    const after = (await fetch(`${emulator().url}/v1/calls/${started.structuredContent.id}`, { headers: live }).then((r) => r.json())) as { status: string };
    expect(after.status).toBe('ended');
  });

  it('--max-spend 0 refuses every billed call, before it is made', async () => {
    const { client } = await connect(['--live', '--max-spend', '0'], emulator().seed.keys.live);
    const result = await call(client, 'translate', { text: 'hello', to: 'es' });
    expect(result.structuredContent.error).toMatchObject({ code: 'spend_cap', hint: expect.stringMatching(/--max-spend 0/) });
    expect((await emulator().plane.stats()).requests).toBeGreaterThan(0);
  });
});

describe('the protocol and the log', () => {
  it('stdout carries nothing but JSON-RPC messages, even when a command warns or fails; a line that is not JSON is answered -32700', async () => {
    const [command, args] = svcCommand(['mcp']);
    const child = spawn(command, args, { env: envFor(emulator().seed.keys.test), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    const lines: string[] = [];
    const answered = new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const complete = stdout.split('\n');
        stdout = complete.pop()!;
        lines.push(...complete);
        if (lines.length >= 5) resolve();
      });
    });
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'calls_get', arguments: { id: 'call_doesnotexist' } } });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'translate', arguments: { text: 'hi', to: 'es' } } });
    child.stdin.write('this is not json\n');
    send({ jsonrpc: '2.0', id: 4, method: 'tools/list' });
    await answered;
    child.stdin.end();
    await new Promise((resolve) => child.on('close', resolve));
    expect(lines.length).toBe(5);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    const answers = lines.map((l) => JSON.parse(l));
    expect(
      answers
        .filter((a) => a.id !== null)
        .map((a) => a.id)
        .sort(),
    ).toEqual([1, 2, 3, 4]);
    expect(answers.find((a) => a.id === null)).toMatchObject({ error: { code: -32700 } });
  });

  it('writes one audit line per call, 0600, secrets redacted; svc mcp log shows it as a table', async () => {
    const { client } = await connect([]);
    const secret = `svc_live_${'k'.repeat(32)}`;
    await call(client, 'translate', { text: `my key is ${secret}`, to: 'es' });
    await call(client, 'calls_get', { id: 'call_nothere123' });
    const entries = await auditLog();
    expect(entries.map((e) => [e.tool, e.mode, e.result])).toEqual([
      ['translate', 'test', 'ok'],
      ['calls_get', 'test', 'not_found'],
    ]);
    expect(JSON.stringify(entries)).not.toContain(secret);
    expect(entries[1].ids).toEqual(['call_nothere123']);
    expect(statSync(join(configDir(), 'mcp-audit.ndjson')).mode & 0o777).toBe(0o600);
    const [command, args] = svcCommand(['mcp', 'log']);
    const table = await spawnCollect(command, args, { env: envFor(emulator().seed.keys.test) });
    expect(table.stdout.split('\n')[0]).toMatch(/\ttranslate\ttest\t\tok\t/);
  });
});

// The MCP Inspector's CLI (@modelcontextprotocol/inspector-cli, a devDependency) as a user runs it:
// `mcp-inspector-cli --cli <server command> --method …`, spawning `svc mcp` itself over stdio.
const inspectorDir = join(root, 'node_modules/@modelcontextprotocol/inspector-cli');
const inspectorMissing = existsSync(join(inspectorDir, 'build/cli.js')) ? null : '@modelcontextprotocol/inspector-cli is not installed (npm install)';
const requireReal = process.env.SVC_REQUIRE_REAL === '1';
if (inspectorMissing) process.stderr.write(`MCP Inspector CLI: ${requireReal ? 'FAILING' : 'skipping'}: ${inspectorMissing}\n`);

async function inspect(method: string[]): Promise<any> {
  const [command, prefix] = svcCommand(['mcp']);
  const env = envFor(emulator().seed.keys.test);
  // The inspector spawns `node` from PATH (its bin re-runs itself), so this node comes first.
  env.PATH = `${dirname(process.execPath)}${delimiter}${env.PATH}`;
  // Its own build directory as cwd: 1.0.3 tests `../package.json` against the cwd but imports it
  // from its module, so elsewhere it reads a package.json the published package lacks.
  const ran = await spawnCollect(process.execPath, [join(inspectorDir, 'build/cli.js'), '--cli', command, ...prefix, '--method', ...method], {
    env,
    cwd: join(inspectorDir, 'build'),
  });
  expect(ran.code, ran.stderr).toBe(0);
  return JSON.parse(ran.stdout);
}

describe('the MCP Inspector CLI', () => {
  // Without the package a skipped case named with the reason, never a pass; SVC_REQUIRE_REAL=1 (CI) fails instead.
  it.skipIf(inspectorMissing !== null && !requireReal)(
    inspectorMissing && !requireReal ? `lists and calls the tools (skipped: ${inspectorMissing})` : 'lists and calls the tools',
    async () => {
      expect(inspectorMissing, `the MCP Inspector CLI cannot run: ${inspectorMissing}`).toBeNull();
      const { tools } = await inspect(['tools/list']);
      const names = tools.map((t: { name: string }) => t.name);
      expect(names).toEqual(expect.arrayContaining(['account', 'calls_list', 'calls_get', 'events_list', 'translate']));
      expect(names).not.toContain('calls_start');

      const account = await inspect(['tools/call', '--tool-name', 'account']);
      expect(account.isError).toBeFalsy();
      expect(account.structuredContent).toMatchObject({ id: emulator().seed.org_id });

      const translated = await inspect(['tools/call', '--tool-name', 'translate', '--tool-arg', 'text=hello', 'to=es']);
      expect(translated.isError, translated.content?.[0]?.text).toBeFalsy();
      expect(translated.structuredContent).toMatchObject({ object: 'translation' });

      const missing = await inspect(['tools/call', '--tool-name', 'calls_get', '--tool-arg', 'id=call_nothere123']);
      expect(missing.isError).toBe(true);
      expect(missing.content[0].text).toMatch(/not_found/);
      expect((await auditLog()).map((e) => [e.tool, e.result])).toEqual([
        ['account', 'ok'],
        ['translate', 'ok'],
        ['calls_get', 'not_found'],
      ]);
    },
    60_000, // four inspector runs, each spawning node twice and svc once, on a shared machine
  );
});
