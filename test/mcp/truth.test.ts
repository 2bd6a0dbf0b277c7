// What `svc mcp` tells an assistant, read the way an assistant reads it: the MCP SDK's own client
// over real stdio against the emulator. Annotations and required inputs of every tool in each
// kind of session, prices against GET /v1/prices, events_wait's queue (between waits, across a
// filter change, two waits at once, progress while waiting) and --confirm-over's question.
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { callTool as call, useMcpSuite, type ToolResult as Result } from '../helpers/mcp.js';
import { money } from '../../src/contract/money.js';

const { emulator, svcDir: configDir, envFor, connect: connectTo } = useMcpSuite({ tmpPrefix: 'svc-mcp-truth-', configDir: true });

/** A fixed answer, or the person's yes or no given when the test says (by the question's text). */
type Answer = 'yes' | 'no' | 'cancel' | 'fail' | ((message: string) => Promise<boolean>);
async function connect(args: string[], key: string, opts: { elicit?: Answer; asked?: string[] } = {}): Promise<Client> {
  const { elicit } = opts;
  const answer = async (message: string): Promise<ElicitResult> => {
    opts.asked?.push(message);
    if (typeof elicit === 'function') return { action: 'accept', content: { approve: await elicit(message) } };
    if (elicit === 'fail') throw new Error('the client could not show the question');
    if (elicit === 'cancel') return { action: 'cancel' };
    return { action: 'accept', content: { approve: elicit === 'yes' } };
  };
  return (await connectTo(args, { env: envFor(key), name: 'svc-truth', ...(elicit ? { elicit: answer } : {}) })).client;
}

const keys = () => emulator().seed.keys;

/** The audit log's lines so far (svc mcp log's file). */
function auditLines(): Array<Record<string, any>> {
  const path = join(configDir(), 'mcp-audit.ndjson');
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, any>);
}

/** Polls until `found` says yes (the server writes on its own schedule), failing after 15 s (a loaded machine is slow, and a pass returns at once). */
async function until(what: string, found: () => boolean): Promise<void> {
  for (const started = Date.now(); !found(); await new Promise((r) => setTimeout(r, 20)))
    if (Date.now() - started > 15_000) throw new Error(`never happened: ${what}`);
}

/** What each tool must say, wherever it is offered. */
const DESTRUCTIVE = ['calls_end', 'chats_close', 'calls_lines_release'];
const REQUIRED: Record<string, string[]> = { translate: ['text', 'to'], chats_send: ['id', 'text'], calls_dial: ['id', 'to'], calls_get: ['id'] };

describe('annotations and required inputs, in each kind of session', () => {
  const sessions: Array<[string, string[], () => string]> = [
    ['test, read-only', [], () => keys().test],
    ['test, --allow-write', ['--allow-write'], () => keys().test],
    ['live, --max-spend', ['--live', '--max-spend', '5'], () => keys().live],
  ];
  it.each(sessions)('%s', async (kind, args, key) => {
    const client = await connect(args, key());
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const tool of tools) {
      expect(tool.title, tool.name).toMatch(/^[A-Z][a-z]+ /);
      expect(tool.annotations?.destructiveHint, tool.name).toBe(DESTRUCTIVE.includes(tool.name));
      expect(tool.annotations?.openWorldHint, tool.name).toBe(tool.name === 'calls_dial');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      for (const input of REQUIRED[tool.name] ?? []) expect(tool.inputSchema.required, `${tool.name}.${input}`).toContain(input);
      expect(tool.description, tool.name).not.toMatch(/--|stdin|svc /);
    }
    const live = kind.startsWith('live');
    // Billed in live mode: never read-only there, so a client asks before it runs.
    expect(byName.get('translate')!.annotations?.readOnlyHint).toBe(!live);
    expect(byName.has('calls_dial')).toBe(live);
    expect(byName.has('events_trigger')).toBe(!live && args.includes('--allow-write'));
    if (kind === 'test, read-only') expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
    // A session that may start calls may end them.
    if (byName.has('calls_start')) expect(byName.has('calls_end')).toBe(true);
    expect(byName.get('calls_list')!.title).toBe('List calls');
    expect(byName.get('calls_end')?.annotations?.idempotentHint ?? true).toBe(true);
  });

  it("a command's refusal names the tool's inputs, not the command line's flags", async () => {
    const client = await connect(['--allow-write'], keys().test);
    const refused = await call(client, 'calls_start', { languages: 'en' });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent.error.message).toMatch(/^languages needs exactly two language tags/);
    expect(refused.content[0]!.text).not.toMatch(/--languages/);
  });

  it("billable tools state the service's own prices (GET /v1/prices), in dollars", async () => {
    const prices = (await fetch(`${emulator().url}/v1/prices`, { headers: { authorization: `Bearer ${keys().live}` } }).then((r) => r.json())) as {
      data: Array<{ item: string; unit_amount: number }>;
    };
    // Dollars as svc writes every amount (exact, src/contract/money.ts), from the cents the service lists.
    const dollars = (item: string) => money(prices.data.find((p) => p.item === item)!.unit_amount);
    const { tools } = await (await connect(['--live', '--max-spend', '5'], keys().live)).listTools();
    const described = (name: string) => tools.find((t) => t.name === name)!.description!;
    expect(described('translate')).toContain(`Billed: ${dollars('translation_character')} per translated character.`);
    expect(described('chats_send')).toContain(`Billed: ${dollars('translation_character')} per translated character.`);
    expect(described('calls_start')).toContain(`Billed: ${dollars('call_minute')} per call minute.`);
    expect(described('calls_dial')).toContain(`Billed: ${dollars('dial_minute')} per dialled minute.`);
    expect(tools.map((t) => t.name)).not.toContain('calls_lines_add');
    const { tools: testTools } = await (await connect(['--allow-write'], keys().test)).listTools();
    expect(testTools.find((t) => t.name === 'calls_lines_add')!.description).toContain(`in live mode ${dollars('line_month')} per line per month.`);
  });
});

describe('events_wait', () => {
  const chatEvents = async (client: Client, n: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await call(client, 'chats_start', { language: 'en' })).structuredContent.id);
    return ids;
  };
  const types = (r: Result) => r.structuredContent.events.map((e: { type: string }) => e.type);

  it('returns the events that happened between two waits, and a filter change skips nothing the other filter passed over', async () => {
    const client = await connect(['--allow-write'], keys().test);
    const [chat] = await chatEvents(client, 1);
    await call(client, 'calls_start', { languages: 'en,es' });
    // Waits for calls first: the chat event before it stays queued for a wait that wants it.
    expect(types(await call(client, 'events_wait', { type: ['call.*'], wait_seconds: 1 }))).toEqual(['call.started']);
    await call(client, 'chats_close', { id: chat });
    const chats = await call(client, 'events_wait', { type: ['chat.*'], wait_seconds: 1 });
    expect(types(chats)).toEqual(['chat.started', 'chat.closed']);
    expect(chats.structuredContent.events[0].data.object.id ?? JSON.stringify(chats.structuredContent.events[0])).toContain(chat);
    // Nothing is returned twice.
    expect((await call(client, 'events_wait', { wait_seconds: 1 })).structuredContent).toMatchObject({ events: [], timed_out: true });
  });

  it('two waits at once are served in order, one event to one wait', async () => {
    const client = await connect(['--allow-write'], keys().test);
    const first = call(client, 'events_wait', { type: ['chat.*'], max_events: 1, wait_seconds: 20 });
    const second = call(client, 'events_wait', { type: ['chat.*'], max_events: 1, wait_seconds: 20 });
    await new Promise((r) => setTimeout(r, 300));
    const ids = await chatEvents(client, 2);
    const [a, b] = await Promise.all([first, second]);
    expect(JSON.stringify(a.structuredContent.events)).toContain(ids[0]);
    expect(JSON.stringify(b.structuredContent.events)).toContain(ids[1]);
    expect(a.structuredContent.events[0].id).not.toBe(b.structuredContent.events[0].id);
  });

  it('writes its intent line before it waits and its result line after, as every tool does; a cancelled wait is audited cancelled', async () => {
    const client = await connect([], keys().test);
    const cancel = new AbortController();
    const waiting = client.callTool({ name: 'events_wait', arguments: { type: ['chat.*'], wait_seconds: 20 } }, CallToolResultSchema, {
      signal: cancel.signal,
    });
    await until('the intent line of events_wait', () => auditLines().some((l) => l.tool === 'events_wait' && l.phase === 'intent'));
    const [intent, ...rest] = auditLines().filter((l) => l.tool === 'events_wait');
    expect(intent).toMatchObject({ phase: 'intent', args: { type: ['chat.*'], wait_seconds: 20 } });
    // Still waiting (20 s of it): no result yet.
    expect(rest).toEqual([]);
    cancel.abort();
    await expect(waiting).rejects.toThrow();
    await until('the result line of events_wait', () => auditLines().some((l) => l.tool === 'events_wait' && l.phase === 'result'));
    const result = auditLines().find((l) => l.tool === 'events_wait' && l.phase === 'result')!;
    expect(result).toMatchObject({ result: 'cancelled', call: intent!.call, session: intent!.session });
  });

  it("a wait longer than the client's request timeout survives on progress notifications", async () => {
    const client = await connect([], keys().test);
    const progress: number[] = [];
    const started = Date.now();
    const result = (await client.callTool({ name: 'events_wait', arguments: { wait_seconds: 5 } }, CallToolResultSchema, {
      timeout: 2_000,
      resetTimeoutOnProgress: true,
      onprogress: (p) => progress.push(p.progress),
    })) as Result;
    expect(result.structuredContent).toMatchObject({ events: [], timed_out: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
    expect(progress.length).toBeGreaterThanOrEqual(3);
    // Without progress the same client gives up at its timeout.
    await expect(client.callTool({ name: 'events_wait', arguments: { wait_seconds: 5 } }, CallToolResultSchema, { timeout: 2_000 })).rejects.toThrow(
      /timed out/i,
    );
  }, 20_000);
});

describe('--confirm-over', () => {
  const connectLive = (opts: { elicit?: Answer; asked?: string[] }) => connect(['--live', '--max-spend', '5', '--confirm-over', '0.01'], keys().live, opts);

  it('asks the person above the price: yes makes the call, with the price and what it buys in the question', async () => {
    const asked: string[] = [];
    const client = await connectLive({ elicit: 'yes', asked });
    const started = await call(client, 'calls_start', { languages: 'en,es' });
    expect(started.isError, started.content[0]?.text).toBeFalsy();
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatch(
      /^Start a call: languages "en,es"\.\nPrice: \$0\.\d+ for its first minute, then \$0\.\d+ a minute until it is ended, billed to your organization \(live mode\); the session's total after it: \$0\.\d+ of its \$5(\.00)? cap\.\nApprove\?$/,
    );
    // Priced under the threshold: not asked.
    expect((await call(client, 'translate', { text: 'hola', to: 'en' })).isError).toBeFalsy();
    expect(asked).toHaveLength(1);
    await call(client, 'calls_end', { id: started.structuredContent.id });
  });

  it('no: nothing is done and the assistant is told the person declined', async () => {
    const client = await connectLive({ elicit: 'no' });
    const before = (await fetch(`${emulator().url}/v1/calls`, { headers: { authorization: `Bearer ${keys().live}` } }).then((r) => r.json())) as {
      data: unknown[];
    };
    const refused = await call(client, 'calls_start', { languages: 'en,es' });
    expect(refused.structuredContent.error).toMatchObject({ code: 'declined', message: expect.stringMatching(/did not approve Start a call/) });
    const after = (await fetch(`${emulator().url}/v1/calls`, { headers: { authorization: `Bearer ${keys().live}` } }).then((r) => r.json())) as {
      data: unknown[];
    };
    expect(after.data.length).toBe(before.data.length);
  });

  it.each(['cancel', 'fail'] as const)('a question %s is no approval either', async (answer) => {
    const client = await connectLive({ elicit: answer });
    const refused = await call(client, 'calls_start', { languages: 'en,es' });
    expect(refused.structuredContent.error.code).toBe('declined');
    const calls = (await fetch(`${emulator().url}/v1/calls`, { headers: { authorization: `Bearer ${keys().live}` } }).then((r) => r.json())) as {
      data: unknown[];
    };
    expect(calls.data).toHaveLength(0);
  });

  it('the person is asked before the price is reserved: a question left open holds none of the cap', async () => {
    // Two translations of 1,000 characters at 0.002 cents: 2 cents each, under a 3-cent cap, asked over 1 cent.
    let answerFirst!: (yes: boolean) => void;
    const firstAnswer = new Promise<boolean>((resolve) => (answerFirst = resolve));
    const asked: string[] = [];
    const elicit = async () => (asked.length === 1 ? firstAnswer : true);
    const client = await connect(['--live', '--max-spend', '0.03', '--confirm-over', '0.01'], keys().live, { elicit, asked });
    const first = call(client, 'translate', { text: 'a'.repeat(1000), to: 'es' });
    await until('the first question', () => asked.length === 1);
    // While the first question is open, a second call is asked and made: nothing of the cap was held for the first.
    const second = await call(client, 'translate', { text: 'b'.repeat(1000), to: 'es' });
    expect(second.isError, second.content[0]?.text).toBeFalsy();
    answerFirst(true);
    // Approved, then priced against what is left: 2 cents past the 1 the cap still has.
    expect((await first).structuredContent.error).toMatchObject({ code: 'spend_cap' });
    expect(asked).toHaveLength(2);
  });

  it('a client that cannot elicit gets a refusal that says so', async () => {
    const client = await connectLive({});
    const refused = await call(client, 'calls_start', { languages: 'en,es' });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent.error.code).toBe('confirmation_unavailable');
    expect(refused.content[0]!.text).toMatch(/this client cannot ask \(it does not support MCP elicitation\)/);
  });
});

describe('results that page', () => {
  it('10,000 events page whole through events_list: bounded pages, each event once, the text the same JSON', async () => {
    const published = await emulator().plane.publishEvents({ org_id: emulator().seed.org_id, mode: 'test', type: 'call.ended', count: 10_000 });
    // The pace of the service's limit (600 a minute) would make this a minute of waiting by design.
    const env = envFor(keys().test, { SVC_MCP_REQUESTS_PER_MINUTE: '100000' });
    const { client } = await connectTo([], { env, name: 'svc-truth' });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await call(client, 'events_list', { limit: 100, ...(cursor ? { cursor } : {}) });
      expect(page.isError, page.content[0]?.text).toBeFalsy();
      pages += 1;
      const json = JSON.stringify(page.structuredContent);
      expect(json.length).toBeLessThan(256 * 1024);
      expect(JSON.parse(page.content[0]!.text!)).toEqual(page.structuredContent);
      seen.push(...page.structuredContent.items.map((e: { id: string }) => e.id));
      cursor = page.structuredContent.next_cursor;
    } while (cursor);
    expect(pages).toBe(100);
    expect(seen).toHaveLength(10_000);
    expect(new Set(seen).size).toBe(10_000);
    expect(seen[0]).toBe(published.last_id);
    expect(seen.at(-1)).toBe(published.first_id);
  }, 120_000);

  it("a cursor the service never gave, or one that looks like a flag, is the service's refusal and nothing else", async () => {
    const client = await connect([], keys().test);
    for (const cursor of ['not-a-cursor', '--base-url=http://127.0.0.1:1', 'x'.repeat(1_000)]) {
      const refused = await call(client, 'calls_list', { cursor });
      expect(refused.isError, cursor).toBe(true);
      expect(refused.structuredContent.error.status).toBe(422);
    }
    expect((await call(client, 'calls_list', {})).structuredContent).toMatchObject({ items: [], next_cursor: null });
  });
});
