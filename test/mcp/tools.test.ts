// The tools of `svc mcp` come from the command declarations: every leaf marked `mcp` is one,
// with an input schema from its typed flags and arguments; what the generator cannot express
// fails here, and what must never be a tool is not one.
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { declaredTree } from '../../src/cli/declared.js';
import { defineCommand, type RootSpec } from '../../src/kit/define.js';
import { toolsOf, ToolDeclarationError } from '../../src/mcp/tools.js';
import type { Session } from '../../src/mcp/tool-spec.js';
import { typedInput } from '../../src/mcp/invoke.js';
import { inputSchema } from '../../src/mcp/schema.js';
import { centsToUnits, Ledger, priceOf } from '../../src/mcp/budget.js';

/** The command tree, as the sources declare it. */
const ROOT = await declaredTree();

const testRead: Session = { mode: 'test', allowWrite: false };
const testWrite: Session = { mode: 'test', allowWrite: true };
const live: Session = { mode: 'live', allowWrite: false, maxSpend: centsToUnits(10) };

const names = (session: Session) => toolsOf(ROOT, session).map((t) => t.name);
const schemaOf = (name: string, session: Session = testWrite) =>
  z.toJSONSchema(
    inputSchema(
      z,
      toolsOf(ROOT, session).find((t) => t.name === name)!,
    ),
  ) as any;

/** The tree with one command, `name`, as the manifest names it by its file. */
function rootWith(name: string, decl: ReturnType<typeof defineCommand>): RootSpec {
  return { ...ROOT, commands: [{ kind: 'leaf', decl: { ...decl, name }, module: name }] };
}

describe('tools from the command declarations', () => {
  it('every declaration marked mcp can be a tool, each name once', () => {
    const all = toolsOf(ROOT, live, { all: true });
    expect(all.length).toBeGreaterThan(15);
    expect(new Set(all.map((t) => t.name)).size).toBe(all.length);
  });

  it('a test session offers read-only tools only, translate among them; --allow-write adds the writes', () => {
    expect(names(testRead)).toEqual(expect.arrayContaining(['account', 'account_balance', 'calls_list', 'calls_get', 'events_list', 'translate']));
    expect(names(testRead)).not.toContain('calls_start');
    expect(names(testRead)).not.toContain('calls_end');
    expect(toolsOf(ROOT, testRead).every((t) => t.readOnly)).toBe(true);
    expect(names(testWrite)).toEqual(expect.arrayContaining(['calls_start', 'calls_end', 'chats_start', 'chats_send', 'calls_links_create']));
  });

  it('a live session offers billed tools only with a cap, and says so in their descriptions', () => {
    expect(names({ mode: 'live', allowWrite: false })).not.toContain('translate');
    const translate = toolsOf(ROOT, live).find((t) => t.name === 'translate')!;
    expect(translate.billed).toBe(true);
    expect(translate.description).toMatch(/Billed: .*priced first and refused past the session's cap \(\$0\.10\)/);
  });

  it('local secrets and local actions are never tools', () => {
    const every = toolsOf(ROOT, { mode: 'live', allowWrite: true, maxSpend: 1 }, { all: true }).map((t) => t.name);
    for (const never of [
      'keys_add',
      'keys_list',
      'keys_remove',
      'profiles_list',
      'profiles_remove',
      'login',
      'logout',
      'auth_token',
      'auth_switch',
      'mode',
      'api',
      'emulator',
      'completion',
      'mcp',
      'mcp_log',
      'events_tail',
    ])
      expect(every).not.toContain(never);
  });

  it("descriptions are in an assistant's words: no command-line words, a billable tool's price in dollars", () => {
    const prices = new Map([['translation_character', { object: 'price' as const, item: 'translation_character', unit_amount: 0.002, currency: 'usd' }]]);
    const every = toolsOf(ROOT, { mode: 'live', allowWrite: true, maxSpend: centsToUnits(500) }, { all: true, prices });
    for (const tool of every) expect(tool.description, tool.name).not.toMatch(/--|stdin|argument|svc |json/i);
    const translate = every.find((t) => t.name === 'translate')!;
    expect(translate.description).toContain('Billed: $0.00002 per translated character.');
    const free = toolsOf(ROOT, testRead, { prices }).find((t) => t.name === 'translate')!;
    expect(free.description).toContain('Free here (test mode); in live mode $0.00002 per translated character.');
  });

  it('offers only what works in the session, and the tool that ends what an offered one starts', () => {
    expect(names(testWrite)).not.toContain('calls_dial');
    expect(names(testWrite)).toContain('events_trigger');
    const liveNames = names(live);
    expect(liveNames).not.toContain('events_trigger');
    expect(liveNames).toEqual(expect.arrayContaining(['calls_start', 'calls_dial', 'calls_end', 'chats_send']));
    // A line is billed by the month with no end svc mcp could put to it: the pricing refuses it, so it is not offered live.
    expect(liveNames).not.toContain('calls_lines_add');
    expect(liveNames).not.toContain('calls_lines_release');
    // Without --allow-write the session may start calls (billable, capped) and so may end them; chats it cannot start stay closed to it.
    expect(liveNames).not.toContain('chats_start');
    expect(liveNames).not.toContain('calls_links_create');
  });

  it('a declaration marked mcp without its tool facts fails the generator', () => {
    const decl = defineCommand({ summary: 'x', mcp: 'read' });
    expect(() => toolsOf(rootWith('bare', decl), testRead)).toThrow(/svc bare: marked mcp, but declares no `tool`/);
  });

  it('a billable declaration without --dry-run cannot be priced, so it fails the generator', () => {
    const decl = defineCommand({ summary: 'spends', mcp: { billable: 'write' } });
    expect(() => toolsOf(rootWith('spend', decl), live)).toThrow(ToolDeclarationError);
    expect(() => toolsOf(rootWith('spend', decl), live)).toThrow(/svc spend: billable, but has no --dry-run/);
  });

  it('an argument and a flag with one name fail the generator', () => {
    const decl = defineCommand({ summary: 'x', mcp: 'read', args: [{ name: 'to', help: 'x' }], flags: { to: { value: '<x>', help: 'x' } } });
    expect(() => toolsOf(rootWith('clash', decl), testRead)).toThrow(/two inputs would be named "to"/);
  });
});

describe('input schemas from typed flags', () => {
  it('an integer kind is an integer with its bounds; choices an enum; a switch a boolean', () => {
    const schema = schemaOf('calls_list');
    expect(schema.properties.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(schema.properties.status).toMatchObject({ enum: ['active', 'ended'] });
    // One bounded page per call, and a cursor for the next: every page at once is not an input.
    expect(schema.properties).not.toHaveProperty('all');
    expect(schema.properties.cursor).toMatchObject({ type: 'string' });
    expect(schema.additionalProperties).toBe(false);
  });

  it('an id kind is a string with its prefix, and required when the argument is', () => {
    const schema = schemaOf('calls_get');
    expect(schema.properties.id).toMatchObject({ type: 'string', pattern: '^call_' });
    expect(schema.required).toEqual(['id']);
  });

  it("a value of a kind is checked by the kind's own rule, case and all, as on the command line", () => {
    const links = inputSchema(
      z,
      toolsOf(ROOT, testWrite).find((t) => t.name === 'calls_links_create')!,
    );
    expect(links.safeParse({ expires_in: '30M' }).success).toBe(true);
    expect(links.safeParse({ expires_in: '1h30m' }).success).toBe(true);
    const refused = links.safeParse({ expires_in: 'soon' });
    expect(refused.success).toBe(false);
    expect(JSON.stringify(refused.error!.issues)).toMatch(/expires_in/);
    expect(JSON.stringify(refused.error!.issues)).not.toMatch(/--expires-in/);
  });

  it("texts the command line may read from stdin are required inputs; event types are the contract's closed set", () => {
    expect(schemaOf('translate').required).toEqual(expect.arrayContaining(['text', 'to']));
    expect(schemaOf('chats_send').required).toEqual(expect.arrayContaining(['id', 'text']));
    expect(schemaOf('events_trigger').properties.type.enum).toContain('call.ended');
    expect(schemaOf('events_list').properties.type.items.enum).toEqual(expect.arrayContaining(['chat.closed', 'call.*']));
  });

  it('a repeatable flag is an array; --dry-run is never an input (the server prices with it)', () => {
    expect(schemaOf('events_list').properties.type).toMatchObject({ type: 'array' });
    expect(schemaOf('translate').properties).not.toHaveProperty('dry_run');
    expect(schemaOf('translate').properties.to.description).toMatch(/BCP 47/);
  });

  it("snake_case properties become the command's typed input, each value read by its declaration; a text is text whatever its first character", () => {
    const add = toolsOf(ROOT, testWrite).find((t) => t.name === 'calls_lines_add')!;
    expect(typedInput(add, { country: 'US', area_code: '415' })).toEqual({ args: [], flags: { country: 'US', areaCode: '415' } });
    const translate = toolsOf(ROOT, testRead).find((t) => t.name === 'translate')!;
    expect(typedInput(translate, { text: ['--base-url=http://x', '--'], to: 'es' })).toEqual({ args: ['--base-url=http://x', '--'], flags: { to: 'es' } });
    expect(typedInput(translate, { text: '- buy milk', to: 'es' }).args).toEqual(['- buy milk']);
    const list = toolsOf(ROOT, testRead).find((t) => t.name === 'calls_list')!;
    expect(typedInput(list, { limit: 5 }).flags.limit).toBe(5);
    expect(() => typedInput(list, { limit: 0 })).toThrow(/--limit/);
  });

  it('a repeatable flag is a list whether given one value or several, each read as the command line reads it', () => {
    const events = toolsOf(ROOT, testRead).find((t) => t.name === 'events_list')!;
    expect(typedInput(events, { type: 'call.ended' }).flags.type).toEqual(['call.ended']);
    expect(typedInput(events, { type: ['call.ended', 'chat.*'] }).flags.type).toEqual(['call.ended', 'chat.*']);
  });
});

describe('the spending cap', () => {
  it('the cap is kept in 1/10,000 cent, exactly', () => {
    expect(centsToUnits(10)).toBe(100_000);
    expect(centsToUnits(500)).toBe(5_000_000);
    expect(centsToUnits(0.0021)).toBe(21);
  });

  it('a translation is priced per character; a call its first minute; a line (monthly) is refused', () => {
    const plan = { dry_run: true, mode: 'live', billed: true, request: { method: 'POST', path: '/v1/translate', body: { text: 'a'.repeat(3000) } } } as const;
    expect(priceOf({ ...plan, price: { item: 'translation_character', unit_amount: 0.002, currency: 'usd' } })).toMatchObject({ units: 60_000 });
    expect(priceOf({ ...plan, price: { item: 'call_minute', unit_amount: 2, currency: 'usd' } })).toMatchObject({ units: 20_000 });
    expect(priceOf({ ...plan, price: { item: 'line_month', unit_amount: 100, currency: 'usd' } })).toMatchObject({
      refused: expect.stringMatching(/line months are billed for as long as they last/),
    });
  });

  it('refuses the call that would pass the cap; a reservation held (never settled) counts; 0 refuses all', () => {
    const ledger = new Ledger(100_000);
    const first = ledger.reserve(60_000);
    if (!first.ok) throw new Error('refused');
    ledger.settle(first.reservation, 60_000);
    expect(ledger.reserve(60_000)).toMatchObject({ ok: false, message: expect.stringMatching(/priced at \$0\.06.*spent \$0\.06 of its \$0\.10/) });
    expect(ledger.reserve(30_000)).toMatchObject({ ok: true });
    expect(ledger.spent).toBe(90_000);
    expect(new Ledger(0).reserve(1)).toMatchObject({ ok: false, hint: expect.stringMatching(/--max-spend 0/) });
  });
});

describe('the audit log', () => {
  it('is bounded and rotated: past its size the file becomes .1, and the log keeps the newest calls, 0600', async () => {
    const { mkdtempSync, statSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { AuditLog, readAudit, MAX_BYTES, AUDIT_FILE } = await import('../../src/mcp/audit.js');
    const dir = mkdtempSync(join(tmpdir(), 'svc-audit-'));
    const log = new AuditLog(dir);
    const entry = (n: number) => ({
      session: 's1',
      call: n,
      phase: 'intent' as const,
      time: new Date(n).toISOString(),
      tool: 'calls_list',
      args: { limit: n, pad: 'p'.repeat(2000) },
      mode: 'test' as const,
    });
    const count = Math.ceil((MAX_BYTES * 3) / JSON.stringify(entry(0)).length);
    for (let n = 0; n < count; n++) await log.append(entry(n));
    const size = statSync(join(dir, AUDIT_FILE)).size + statSync(join(dir, `${AUDIT_FILE}.1`)).size;
    expect(size).toBeLessThanOrEqual(MAX_BYTES * 2);
    expect(statSync(join(dir, AUDIT_FILE)).mode & 0o777).toBe(0o600);
    const kept = readAudit(dir);
    expect(kept.at(-1)!.args.limit).toBe(count - 1);
    expect(kept.map((e) => e.args.limit as number)).toEqual([...kept.map((e) => e.args.limit as number)].sort((a, b) => a - b));
    expect(kept.length).toBeLessThan(count);
  });

  it("keeps an earlier svc's one-line entries, links the first new line to them, and --verify checks from there", async () => {
    const { mkdtempSync, writeFileSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { AuditLog, readAudit, verifyAudit, AUDIT_FILE } = await import('../../src/mcp/audit.js');
    const dir = mkdtempSync(join(tmpdir(), 'svc-audit-'));
    const earlier = { time: '2026-01-01T00:00:00.000Z', tool: 'calls_list', args: {}, mode: 'test', price_asked: null, result: 'ok', ids: [] };
    writeFileSync(join(dir, AUDIT_FILE), `${JSON.stringify(earlier)}\n`);
    await new AuditLog(dir).append({ session: 's', call: 1, phase: 'intent', time: earlier.time, tool: 'account', mode: 'test', args: {} });
    expect(readAudit(dir).map((e) => [e.tool, e.result])).toEqual([
      ['calls_list', 'ok'],
      ['account', 'unfinished'],
    ]);
    expect(verifyAudit(dir)).toEqual({ lines: 2, unchained: 1, problems: [] });
    // A line slipped in just before the chained ones breaks the link.
    const [first, chained] = readFileSync(join(dir, AUDIT_FILE), 'utf8').trim().split('\n');
    writeFileSync(join(dir, AUDIT_FILE), `${first}\n${JSON.stringify({ ...earlier, tool: 'forged' })}\n${chained}\n`);
    expect(verifyAudit(dir).problems).toEqual([expect.stringMatching(/line 3 does not follow line 2/)]);
  });

  it('names format 3 on each line, and appends nothing once a newer svc has written a line, to either file of the log', async () => {
    const { appendFileSync, mkdtempSync, readFileSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { AuditLog, AuditNewerFormatError, AUDIT_FILE, HEAD_FILE } = await import('../../src/mcp/audit.js');
    const intent = (call: number) => ({
      session: 's',
      call,
      phase: 'intent' as const,
      time: new Date(call).toISOString(),
      tool: 'account',
      mode: 'test' as const,
    });
    const newer = `${JSON.stringify({ version: 4, prev: '', session: 'n', call: 1 })}\n`;
    const files = (dir: string) => [AUDIT_FILE, HEAD_FILE].map((f) => readFileSync(join(dir, f), 'utf8'));

    // A session that has written, then a newer svc appends beside it: the session's next line is refused.
    const dir = mkdtempSync(join(tmpdir(), 'svc-audit-'));
    const log = new AuditLog(dir);
    await log.append(intent(1));
    expect(JSON.parse(readFileSync(join(dir, AUDIT_FILE), 'utf8'))).toMatchObject({ version: 3, prev: '', session: 's' });
    appendFileSync(join(dir, AUDIT_FILE), newer);
    const before = files(dir);
    await expect(log.append(intent(2))).rejects.toThrow(AuditNewerFormatError);
    await expect(log.append(intent(2))).rejects.toThrow(/format version 4, written by a newer svc; .* up to 3/);
    expect(files(dir)).toEqual(before);

    // A newer svc's line in the rotated file: a rotation would replace it, so nothing is written.
    const rotated = mkdtempSync(join(tmpdir(), 'svc-audit-'));
    writeFileSync(join(rotated, `${AUDIT_FILE}.1`), newer);
    await expect(new AuditLog(rotated).append(intent(1))).rejects.toThrow(/mcp-audit\.ndjson\.1 is in format version 4/);
    expect(readFileSync(join(rotated, `${AUDIT_FILE}.1`), 'utf8')).toBe(newer);
  });

  it('redacts secrets and cuts long texts in the arguments it keeps', async () => {
    const { loggedArgs } = await import('../../src/mcp/audit.js');
    const kept = loggedArgs({ text: `key svc_test_${'a'.repeat(40)} and ${'b'.repeat(500)}`, to: 'es' });
    expect(kept.text).not.toContain('a'.repeat(40));
    expect(kept.text).toMatch(/… \(\d+ characters\)$/);
    expect(kept.to).toBe('es');
  });
});
