// `svc mcp`'s server: the MCP SDK's McpServer on the context's stdio, with one tool per command
// the declarations mark (tools.ts). A tool call is the command run in-process, exactly as its
// command line would run (the same parse, runner and error codes), with `--json` and the
// session's mode, its output captured: the JSON is the tool's result, a failure svc's error
// report (code, message, hint) as an MCP tool error. Around each call: the pace the service's
// rate limit allows, the spending cap of a live session, and a line in the audit log.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from '../../context.js';
import type { RootSpec, RunLine } from '../define.js';
import { configDir } from '../../config/paths.js';
import { EXIT, UsageError } from '../../errors.js';
import { redactText } from '../../io/redact.js';
import { createPacer } from '../calls/pacer.js';
import { AuditLog, idsIn, loggedArgs, type AuditEntry } from './audit.js';
import { SpendingCap, dollars, priceOf, unitsToCents, type DryRun } from './budget.js';
import { inputSchema } from './schema.js';
import { commandLine, toolsOf, type Session, type ToolSpec } from './tools.js';
import { annotations, compactToolList, inToolTerms, outputSchema, readPrices } from './describe.js';
import { approvalValidator, approved } from './confirm.js';
import { registerEventsWait } from './events-wait-tool.js';
import { pageOf, resultOf, structuredOf } from './paging.js';
import { contextTransport } from './transport.js';

/** Calls waiting for the pace of the rate limit beyond this many are refused at once (about 5 s of waiting). */
export const MAX_WAITING = 50;

/** What a command run in-process left: its exit code and its two outputs. */
interface Ran {
  exitCode: number;
  stdout: string;
  stderr: string;
}

interface ErrorReport {
  error: { code: string; status: number | null; message: string; hint: string | null; exit_code: number };
}

function toolError(code: string, message: string, hint: string | null, status: number | null = null, exitCode: number = EXIT.failure): CallToolResult {
  const report: ErrorReport = { error: { code, status, message: redactText(message), hint: hint === null ? null : redactText(hint), exit_code: exitCode } };
  return {
    isError: true,
    content: [{ type: 'text', text: `error (${code}): ${report.error.message}${report.error.hint ? `\n${report.error.hint}` : ''}` }],
    structuredContent: report as unknown as Record<string, unknown>,
  };
}

/** A failed run's result: svc's own error report from its stderr (--json prints one). */
function failure(ran: Ran): CallToolResult {
  const line = ran.stderr
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{"error"'));
  if (line) {
    try {
      const { error } = JSON.parse(line) as ErrorReport;
      return toolError(error.code, error.message, error.hint, error.status, error.exit_code);
    } catch {
      // Not svc's report after all: said as it is below.
    }
  }
  return toolError('failed', ran.stderr.trim().slice(0, 500) || `the command ended with exit code ${ran.exitCode}`, null, null, ran.exitCode);
}

/** The command's --json output (one document, or NDJSON) as structured content, a list's next cursor with it, and whole JSON or a summary as text (paging.ts). */
function success(ran: Ran, tool?: ToolSpec): CallToolResult {
  return resultOf(tool ? pageOf(tool, structuredOf(ran.stdout), ran.stderr) : structuredOf(ran.stdout));
}

/**
 * Runs `work` with a signal that aborts when either does, and lets go of both after: a signal
 * of AbortSignal.any() stays referenced by the session's long-lived one, a leak per call.
 */
async function whileEither<T>(a: AbortSignal, b: AbortSignal, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  if (a.aborted || b.aborted) abort();
  a.addEventListener('abort', abort, { once: true });
  b.addEventListener('abort', abort, { once: true });
  try {
    return await work(controller.signal);
  } finally {
    a.removeEventListener('abort', abort);
    b.removeEventListener('abort', abort);
  }
}

export interface ServeOptions {
  allowWrite: boolean;
  /** Dollars' worth of units (budget.ts); live sessions only. */
  maxSpend?: number;
  /** Billed calls priced above this (units) are put to the person first (confirm.ts); live sessions only. */
  confirmOver?: number;
}

/** The MCP server, until stdin ends or Ctrl-C. */
export async function serve(opts: ServeOptions, ctx: Context, tree: RootSpec, runOther: RunLine): Promise<void> {
  const mode = ctx.globals.mode === 'live' ? 'live' : 'test';
  if (mode === 'live' && opts.maxSpend === undefined)
    throw new UsageError(
      'a live session needs --max-spend: the most, in dollars, its tools may spend (0 refuses every billed call)',
      'e.g. svc mcp --live --max-spend 5',
    );
  if (mode === 'test' && opts.maxSpend !== undefined)
    throw new UsageError('--max-spend caps a live session: give --live too, or leave it out (test mode is never billed)');
  if (mode === 'test' && opts.confirmOver !== undefined)
    throw new UsageError('--confirm-over asks before billed calls of a live session: give --live too, or leave it out (test mode is never billed)');
  const session: Session = { mode, allowWrite: opts.allowWrite, ...(opts.maxSpend !== undefined ? { maxSpend: opts.maxSpend } : {}) };
  // The prices the billable tools' descriptions state, read once, while the SDK loads.
  const [prices, { McpServer }, z] = await Promise.all([readPrices(() => ctx.api()), import('@modelcontextprotocol/sdk/server/mcp.js'), import('zod')]);
  const tools = toolsOf(tree, session, prices ? { prices } : {});

  const audit = new AuditLog(configDir(ctx.env));
  const cap = session.maxSpend !== undefined ? new SpendingCap(session.maxSpend) : undefined;
  // The service's limit (600 a minute, service-spec.md §8) unless the organization has been given another.
  const perMinute = Number(ctx.env.SVC_MCP_REQUESTS_PER_MINUTE ?? '') || undefined;
  const pacer = createPacer(ctx.clock, perMinute && perMinute > 10 ? { limit: perMinute } : {});
  let waiting = 0;
  /** Billed calls one at a time: each one's balance before and after is its own. */
  let billedTurn: Promise<unknown> = Promise.resolve();

  const globalWords = [
    '--json',
    `--${mode}`,
    ...(ctx.globals.profile ? [`--profile=${ctx.globals.profile}`] : []),
    ...(ctx.globals.baseUrl ? [`--base-url=${ctx.globals.baseUrl}`] : []),
  ];

  /** A command line run in-process, as `svc` would run it, its output captured. */
  async function runLine(words: string[], signal: AbortSignal): Promise<Ran> {
    let stdout = '';
    let stderr = '';
    const exitCode = await runOther(
      [...words, ...globalWords],
      { stdout: (chunk) => void (stdout += chunk), stderr: (chunk) => void (stderr += chunk) },
      signal,
    );
    return { exitCode, stdout, stderr };
  }

  /** One start more within the service's rate limit, or a tool error when too many wait already. */
  async function paced(signal: AbortSignal): Promise<CallToolResult | null> {
    if (waiting >= MAX_WAITING)
      return toolError(
        'rate_limited',
        `${waiting} tool calls are already waiting for the service's rate limit (${perMinute ?? 600} requests a minute)`,
        'wait a few seconds and call again',
        429,
        EXIT.rateLimited,
      );
    waiting += 1;
    try {
      await pacer.take(signal);
      return null;
    } finally {
      waiting -= 1;
    }
  }

  async function balanceCents(signal: AbortSignal): Promise<number | undefined> {
    if (await paced(signal)) return undefined;
    const ran = await runLine(['account', 'balance'], signal);
    if (ran.exitCode !== 0) return undefined;
    return (JSON.parse(ran.stdout) as { available?: number }).available;
  }

  /** A billed call: priced by the command's own --dry-run, refused past the cap, reconciled with the balance after. */
  async function billed(tool: ToolSpec, words: string[], signal: AbortSignal, entry: AuditEntry): Promise<CallToolResult> {
    const priced = await runLine([...words, '--dry-run'], signal);
    if (priced.exitCode !== 0) return failure(priced);
    const price = priceOf(JSON.parse(priced.stdout) as DryRun);
    if ('refused' in price) return toolError('not_priceable', price.refused, null);
    entry.price_asked = unitsToCents(price.units);
    const asker = {
      canElicit: () => server.server.getClientCapabilities()?.elicitation !== undefined,
      elicit: (params: Parameters<typeof server.server.elicitInput>[0], abort: AbortSignal) =>
        server.server.elicitInput(params, { signal: abort, timeout: 10 * 60_000 }),
    };
    const refusedByPerson = await approved(asker, { title: tool.leaf.decl.tool!.title, ...price }, opts.confirmOver, signal);
    if (refusedByPerson) return refusedByPerson;
    const reserved = cap!.reserve(price.units);
    if (!reserved.ok) {
      entry.result = 'spend_cap';
      entry.spent = unitsToCents(cap!.spent);
      return toolError('spend_cap', reserved.message, reserved.hint, null, EXIT.paymentRequired);
    }
    let ok = false;
    try {
      if (!cap!.hasStartBalance) {
        const before = await balanceCents(signal);
        if (before === undefined)
          return toolError(
            'failed',
            'svc mcp could not read the balance before the first billed call, so it cannot reconcile the cap',
            'the key needs the account:read scope',
          );
        cap!.noteStartBalance(before);
      }
      const limited = await paced(signal);
      if (limited) return limited;
      const ran = await runLine([...words, '--yes'], signal);
      ok = ran.exitCode === 0;
      if (!ok) return failure(ran);
      const result = success(ran, tool);
      const callId = (result.structuredContent as { id?: unknown }).id;
      if (price.perMinute && typeof callId === 'string') void watchCall(callId, price.perMinute);
      return result;
    } finally {
      cap!.settle(price.units, ok);
      const after = await balanceCents(signal);
      if (after !== undefined) {
        cap!.reconcile(after);
        entry.balance = after;
      }
      entry.spent = unitsToCents(cap!.spent);
    }
  }

  /** Live calls this session started, which it ends when the cap is reached or the session ends. */
  const liveCalls = new Set<string>();
  const sessionEnd = new AbortController();

  /**
   * A live call counts against the cap as it runs: before each further minute begins, that
   * minute is counted, or, when it would pass the cap, the call is ended.
   */
  async function watchCall(id: string, perMinute: number): Promise<void> {
    liveCalls.add(id);
    const minuteEntry = (result: string, price: number | null): AuditEntry => ({
      time: new Date(ctx.clock.now()).toISOString(),
      tool: 'calls_minute',
      args: { id },
      mode,
      price_asked: price,
      result,
      ids: [id],
      spent: unitsToCents(cap!.spent),
    });
    try {
      for (;;) {
        await ctx.clock.sleep(60_000, sessionEnd.signal);
        const now = await runLine(['calls', 'get', id], sessionEnd.signal);
        if (now.exitCode !== 0 || (JSON.parse(now.stdout) as { status?: string }).status === 'ended') return;
        if (!cap!.reserve(perMinute).ok) {
          await runLine(['calls', 'end', id], sessionEnd.signal);
          audit.append(minuteEntry('spend_cap', unitsToCents(perMinute)));
          return;
        }
        cap!.settle(perMinute, true);
        audit.append(minuteEntry('ok', unitsToCents(perMinute)));
      }
    } catch {
      // The session ended: its close ends the call.
    } finally {
      liveCalls.delete(id);
    }
  }

  /** The session's live calls still running end with it: no cap would count their minutes. */
  async function endLiveCalls(): Promise<void> {
    const running = [...liveCalls];
    sessionEnd.abort();
    const signal = new AbortController().signal;
    await Promise.all(running.map((id) => runLine(['calls', 'end', id], signal)));
  }

  async function callTool(tool: ToolSpec, input: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    const entry: AuditEntry = {
      time: new Date(ctx.clock.now()).toISOString(),
      tool: tool.name,
      args: loggedArgs(input),
      mode,
      price_asked: null,
      result: 'ok',
      ids: [],
    };
    let result: CallToolResult;
    try {
      const words = commandLine(tool, input);
      if (tool.billed) {
        const turn = billedTurn.then(() => billed(tool, words, signal, entry));
        billedTurn = turn.catch(() => {});
        result = await turn;
      } else {
        result = (await paced(signal)) ?? (await runLine(words, signal).then((ran) => (ran.exitCode === 0 ? success(ran, tool) : failure(ran))));
      }
    } catch (error) {
      result = toolError('failed', `unexpected failure: ${(error as Error).message}`, null);
    }
    result = inToolTerms(tool, result);
    const code = (result.structuredContent as Partial<ErrorReport> | undefined)?.error?.code;
    if (result.isError && entry.result === 'ok') entry.result = code ?? 'failed';
    entry.ids = idsIn(input, result.isError ? undefined : result.structuredContent);
    audit.append(entry);
    return result;
  }

  /** tools/call requests the SDK answers itself (an unknown tool, input its schema refuses), by id: audited when answered. */
  const unaudited = new Map<string | number, { tool: string; args: unknown; time: string }>();

  const server = new McpServer(
    { name: 'svc', version: ctx.version },
    {
      // The SDK's default validator (Ajv, built with its formats when the server is made) checks
      // only answers to elicitation; svc's one question (confirm.ts) has one answer shape, checked
      // by its own few lines, which saves that start-up time.
      jsonSchemaValidator: { getValidator: approvalValidator },
      instructions:
        mode === 'live'
          ? `svc in LIVE mode: billed tools are priced before each call and refused once the session would pass ${dollars(session.maxSpend!)}.${opts.confirmOver !== undefined ? ` A call priced over ${dollars(opts.confirmOver)} is put to the person first.` : ''}`
          : 'svc in test mode: nothing is billed; objects are the test-mode ones.',
    },
  );
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.leaf.decl.tool!.title,
        description: tool.description,
        inputSchema: inputSchema(z, tool),
        outputSchema: outputSchema(z, tool),
        annotations: annotations(tool),
      },
      (input, extra) => {
        unaudited.delete(extra.requestId);
        return whileEither(extra.signal, ctx.signal, (signal) => callTool(tool, input ?? {}, signal));
      },
    );
  }
  if (tools.some((t) => t.name === 'events_list')) {
    await registerEventsWait(server, z, {
      ctx,
      sessionEnd: sessionEnd.signal,
      audit: (input, result) => auditEventsWait(input, result),
      paced,
      started: (requestId) => void unaudited.delete(requestId),
    });
  }

  function auditEventsWait(input: Record<string, unknown>, result: CallToolResult): void {
    const code = (result.structuredContent as Partial<ErrorReport> | undefined)?.error?.code;
    audit.append({
      time: new Date(ctx.clock.now()).toISOString(),
      tool: 'events_wait',
      args: loggedArgs(input),
      mode,
      price_asked: null,
      result: result.isError ? (code ?? 'failed') : 'ok',
      ids: idsIn(result.isError ? undefined : result.structuredContent),
    });
  }

  const transport = await contextTransport(ctx.io, ctx.signal);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
  });
  await server.connect(transport);
  // Every call is a line of the audit log, those the SDK refuses before a tool runs too.
  const receive = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ('method' in message && message.method === 'tools/call' && 'id' in message) {
      const params = (message.params ?? {}) as { name?: unknown; arguments?: unknown };
      unaudited.set(message.id, { tool: String(params.name).slice(0, 100), args: params.arguments, time: new Date(ctx.clock.now()).toISOString() });
    }
    receive?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    compactToolList(message);
    const id = 'id' in message && !('method' in message) ? message.id : undefined;
    const refused = id === undefined ? undefined : unaudited.get(id);
    if (refused && id !== undefined) {
      unaudited.delete(id);
      const known = tools.some((t) => t.name === refused.tool) || refused.tool === 'events_wait';
      const args =
        refused.args !== null && typeof refused.args === 'object' && !Array.isArray(refused.args) ? loggedArgs(refused.args as Record<string, unknown>) : {};
      audit.append({ time: refused.time, tool: refused.tool, args, mode, price_asked: null, result: known ? 'usage' : 'unknown_tool', ids: [] });
    }
    return send(message, options);
  };
  // The server's own note goes to stderr: stdout is the protocol's alone.
  ctx.io.stderr.write(
    `svc mcp: ${tools.length + 1} tools, ${mode} mode${opts.allowWrite ? ', writes allowed' : ', read-only'}${cap ? `, spending cap ${dollars(cap.capUnits)}` : ''}; audit log ${audit.path}\n`,
  );
  try {
    await closed;
  } finally {
    await endLiveCalls();
    audit.close();
    await server.close().catch(() => {});
  }
}
