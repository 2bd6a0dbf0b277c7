// `svc mcp`'s server: the MCP SDK's McpServer on the context's stdio, with one tool per command
// the declarations mark (tools.ts). A tool call is the command run in-process from typed input
// (invoke.ts: its validated JSON read by the declarations, never a command line), with the
// session's profile, base URL, credential and mode, fixed when the session started; its
// --json output is the tool's result, a failure svc's error report (code, message, hint) as an
// MCP tool error. Around each call: an audit line before it acts and one after (audit.ts), the
// pace the service's rate limit allows, the person's approval above --confirm-over (confirm.ts),
// and the ledger of a live session (budget.ts). What the tools say of themselves (titles,
// annotations, prices, output schemas) is describe.ts; a list's pages, paging.ts.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServer as McpServerType } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Context } from '../context.js';
import type { RootSpec, RunInProcess } from '../kit/define.js';
import { EXIT, UsageError } from '../errors.js';
import { centsToUnits, dollars, drawnFor, priceOf, unitsToCents, type DryRun } from './budget.js';
import { typedInput, type TypedInput } from './invoke.js';
import { failureOf, reportOf, toolError, type Ran } from './result.js';
import {
  CALL_CREATES,
  callTool,
  checkSession,
  leftOpen,
  leftOpenNote,
  ownCall,
  type PendingCreate,
  sessionProfile,
  sessionState,
  type ServeOptions,
  type SessionState,
  type Settled,
} from './session.js';
import { MinuteMeter } from './minutes.js';
import { inputSchema } from './schema.js';
import type { ToolSpec } from './tool-spec.js';
import { contextTransport } from './transport.js';
import { annotations, compactToolList, inToolTerms, outputSchema, readPrices } from './describe.js';
import { approvalValidator, approved, type Asker } from './confirm.js';
import { registerEventsWait } from './events-wait-tool.js';
import { fittedRun, pageOf, resultOf, structuredOf, withCarriedFilters } from './paging.js';
import { toolsOf } from './tools.js';

export type { ServeOptions };

/** How long what the client sends after initialize waits for the session's first reads from the service. */
export const READY_WITHIN_MS = 5_000;

/** A command's --json output as the tool's result: a list's page with its next cursor (noted on the command's stderr), its JSON as the text too (paging.ts). */
function successOf(ran: Ran, tool: ToolSpec): CallToolResult {
  return resultOf(pageOf(tool, structuredOf(ran.stdout), ran.stderr));
}

/**
 * A billed call: priced by the command's own dry run, put to the person when priced above
 * --confirm-over, refused past the cap, its price reserved (and the reservation written to the
 * audit log) while it runs and settled with what the service drew. A call sent and never
 * answered keeps its reservation (it may have been drawn); one the service refused draws
 * nothing. A live call's later minutes are the meter's (minutes.ts).
 */
async function billed(
  s: SessionState,
  tool: ToolSpec,
  call: { input: TypedInput; args: Record<string, unknown> },
  signal: AbortSignal,
  settled: Settled,
  asker: Asker,
): Promise<CallToolResult> {
  const { input, args } = call;
  const ledger = s.ledger!;
  settled.spent = unitsToCents(ledger.spent);
  const path = tool.path.join(' ');
  const priced = await s.run(path, { args: input.args, flags: { ...input.flags, dryRun: true } }, signal);
  if (priced.exitCode !== 0) return failureOf(priced);
  const price = priceOf(JSON.parse(priced.stdout) as DryRun);
  if ('refused' in price) return toolError('not_priceable', price.refused, null);
  settled.price_asked = unitsToCents(price.units);
  // The person is asked before anything is reserved: a question left unanswered holds no share of the cap.
  const perMinute = price.item === 'call_minute' || price.item === 'dial_minute' ? { perMinute: price.unit } : {};
  const asked = { title: tool.leaf.decl.tool!.title, args, units: price.units, totalAfter: ledger.spent + price.units, cap: ledger.capUnits, ...perMinute };
  const refusedByPerson = await approved(asker, asked, s.confirmOver, signal);
  if (refusedByPerson) return refusedByPerson;
  const reserved = ledger.reserve(price.units);
  if (!reserved.ok) return toolError('spend_cap', reserved.message, reserved.hint, null, EXIT.paymentRequired);
  let drawn: number | undefined;
  try {
    // The price reserved, written before the call is made: a call that never finishes still shows what it may have cost.
    const unwritable = await settled.priced(settled.price_asked).then(
      () => null,
      (error: Error) => toolError('audit_unwritable', `nothing was done: svc mcp could not write the call's price to its audit log (${error.message})`, null),
    );
    if (unwritable) {
      drawn = 0;
      return unwritable;
    }
    const limited = await s.paced(signal);
    if (limited) {
      drawn = 0;
      return limited;
    }
    const startedAt = s.ctx.clock.now();
    const ran = await sent(s, tool, { input, args }, signal, true, settled);
    if (ran.exitCode !== 0) {
      const result = failureOf(ran);
      // Nothing was drawn when nothing was sent (a usage error) or the service refused the call
      // (4xx, 429). A 5xx may come from a gateway after the service made the call, and a failure
      // with no answer may have reached it: those keep their reservation.
      const status = reportOf(result)?.status;
      if (ran.exitCode === EXIT.usage || (typeof status === 'number' && status < 500)) drawn = 0;
      return result;
    }
    const result = successOf(ran, tool);
    drawn = drawnFor(price, result.structuredContent);
    const call = noteLiveCall(s, result.structuredContent);
    return call && 'perMinute' in perMinute ? withMinutesNoted(s, result, call, price.unit, startedAt) : result;
  } finally {
    if (drawn !== undefined) ledger.settle(reserved.reservation, drawn);
    settled.spent = unitsToCents(ledger.spent);
  }
}

/**
 * A command run for a tool call, its creates sent with the call's Idempotency-Key. A create of
 * a live call is pending while it is not answered: one whose answer never comes (a signal, a
 * close, the network) is asked again with its key when the session ends, and ended.
 */
async function sent(
  s: SessionState,
  tool: ToolSpec,
  call: { input: TypedInput; args: Record<string, unknown> },
  signal: AbortSignal,
  yes: boolean,
  settled: Settled,
): Promise<Ran> {
  const path = tool.path.join(' ');
  const { key } = settled;
  settled.sent = true;
  if (!key || !CALL_CREATES.has(tool.name)) return s.run(path, call.input, signal, yes, key);
  s.pending.set(key, { tool: tool.name, path, input: call.input, args: call.args, key });
  const ran = await s.run(path, call.input, signal, yes, key);
  if (ran.exitCode === 0) noteLiveCall(s, structuredOf(ran.stdout));
  // An answer came (made, or refused): nothing is left to learn of this create.
  if (ran.exitCode === 0 || typeof reportOf(failureOf(ran))?.status === 'number') s.pending.delete(key);
  return ran;
}

/** A live call or dialled phone: its next minute reserved, or the assistant told when svc will end the call. */
function withMinutesNoted(s: SessionState, result: CallToolResult, call: string, unit: number, startedAt: number): CallToolResult {
  const metered = s.minutes?.track(call, unit, startedAt);
  if (!metered || metered.nextReserved) return result;
  const at = new Date(metered.endsAt!).toISOString();
  const note = `the session's cap (${dollars(s.ledger!.capUnits)}, --max-spend) has no room for this call's next minute: svc mcp will end ${call} at ${at}, before that minute begins.`;
  // In the result itself (its text is its JSON): a client that reads one text block reads the note too.
  return resultOf({ ...result.structuredContent, note });
}

/** A call started or dialled into: ended with the session, which no cap would count past; its id. */
function noteLiveCall(s: SessionState, answer: unknown): string | undefined {
  const { id, call_id: callId } = (answer ?? {}) as { id?: unknown; call_id?: unknown };
  const call = typeof callId === 'string' ? callId : id;
  if (typeof call !== 'string' || !call.startsWith('call_')) return undefined;
  s.liveCalls.add(call);
  return call;
}

/** A call the assistant ended (or found ended) is no longer the session's to end or to bill. */
function noteEndedCall(s: SessionState, tool: ToolSpec, args: Record<string, unknown>, result: CallToolResult): void {
  if (tool.name !== 'calls_end' || typeof args.id !== 'string') return;
  if (result.isError && reportOf(result)?.status !== 409) return;
  s.liveCalls.delete(args.id);
  s.minutes?.stop(args.id);
}

/** A tool of the tree, called: its input typed, then run (billed ones through the ledger); a refusal said in the tool's terms. */
async function runTool(s: SessionState, tool: ToolSpec, args: Record<string, unknown>, clientSignal: AbortSignal, asker: Asker): Promise<CallToolResult> {
  let input: TypedInput;
  try {
    // A cursor svc mcp gave carries its page's filters: the next page is of the same list.
    args = withCarriedFilters(tool, args);
    input = typedInput(tool, args);
  } catch (error) {
    // Refused by the declaration before any command ran: kept with the other refusals (audit.ts), not among the calls.
    const result = inToolTerms(tool, usageAsResult(error));
    await s.audit.refused({ session: s.id, now: s.ctx.clock.now(), tool: tool.name, reason: 'usage', args }).catch(auditFailed(s));
    return result;
  }
  return callTool(s, tool, args, clientSignal, async (signal, settled) => {
    const act = async (): Promise<CallToolResult> => {
      if (tool.billed) return billed(s, tool, { input, args }, signal, settled, asker);
      const limited = await s.paced(signal);
      if (limited) return limited;
      const fitted = await fittedRun(tool, input, (asked) => sent(s, tool, { input: asked, args }, signal, false, settled), args);
      const result = fitted.result ?? failureOf(fitted.ran);
      // A test call runs until ended too (free): it ends with the session all the same.
      if (!result.isError && tool.leaf.decl.tool?.endedBy) noteLiveCall(s, result.structuredContent);
      noteEndedCall(s, tool, args, result);
      return result;
    };
    return inToolTerms(tool, await act().catch((error: unknown) => usageAsResult(error)));
  });
}

/** A refusal that could not be written: said on stderr (the refusal itself is answered either way). */
const auditFailed = (s: SessionState) => (error: Error) =>
  void s.ctx.io.stderr.write(`svc mcp: a refused call could not be written to ${s.audit.refusedPath}: ${error.message}\n`);

/** Input a declaration refuses (a UsageError from typedInput) as a tool error, so its words can be put in the tool's terms too. */
function usageAsResult(error: unknown): CallToolResult {
  if (error instanceof UsageError) return toolError('usage', error.message, null, null, EXIT.usage);
  throw error;
}

/** The part of the transport the audit of refused calls wraps. */
type Wire = Pick<Transport, 'onmessage' | 'send'>;

/**
 * tools/call requests the SDK answers itself (an unknown tool, input its schema refuses), by id:
 * kept with the refused calls (audit.ts: their size and digest, apart from the calls that ran)
 * when answered, since no tool handler saw them.
 */
export function auditRefusals(s: SessionState, hasEventsWait: boolean): { answered(id: string | number): void; watch(transport: Wire): void } {
  const pending = new Map<string | number, { tool: string; args: unknown }>();
  const known = (name: string) => s.tools.some((t) => t.name === name) || (hasEventsWait && name === 'events_wait');
  return {
    answered: (id) => void pending.delete(id),
    watch(transport) {
      const receive = transport.onmessage;
      const send = transport.send.bind(transport);
      transport.onmessage = (message, extra) => {
        if ('method' in message && message.method === 'tools/call' && 'id' in message) {
          const params = (message.params ?? {}) as { name?: unknown; arguments?: unknown };
          const tool = String(params.name).slice(0, 100);
          // An unknown tool is a protocol error (MCP's tools, "Error Handling"): -32602, audited.
          if (!known(tool)) {
            const refuse = () => send({ jsonrpc: '2.0', id: message.id, error: { code: -32602, message: `unknown tool: ${tool}` } });
            void s.audit
              .refused({ session: s.id, now: s.ctx.clock.now(), tool, reason: 'unknown_tool', args: params.arguments })
              .catch(auditFailed(s))
              .then(refuse, refuse);
            return;
          }
          if (params.arguments !== null && typeof params.arguments === 'object' && Object.hasOwn(params.arguments, '__proto__')) {
            // JSON.parse keeps a `__proto__` key, but the SDK's copy of the arguments drops it before
            // the schema sees it: refused here in the words the schema refuses any other undeclared key with.
            const text = `MCP error -32602: Input validation error: Invalid arguments for tool ${tool}: Unrecognized key: "__proto__"`;
            const answer = () => send({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text }], isError: true } });
            void s.audit
              .refused({ session: s.id, now: s.ctx.clock.now(), tool, reason: 'invalid_input', args: params.arguments })
              .catch(auditFailed(s))
              .then(answer, answer);
            return;
          }
          pending.set(message.id, { tool, args: params.arguments });
        }
        receive?.(message, extra);
      };
      transport.send = async (message, options) => {
        // tools/list as sent: without what says nothing (describe.ts).
        compactToolList(message);
        const id = 'id' in message && !('method' in message) ? message.id : undefined;
        const refused = id === undefined || id === null ? undefined : pending.get(id);
        if (refused) {
          pending.delete(id!);
          await s.audit
            .refused({ session: s.id, now: s.ctx.clock.now(), tool: refused.tool, reason: 'invalid_input', args: refused.args })
            .catch(auditFailed(s));
        }
        return send(message, options);
      };
    },
  };
}

/** The MCP server, until stdin ends (the calls in flight answered first) or Ctrl-C. */
export async function serve(opts: ServeOptions, ctx: Context, tree: RootSpec, runOther: RunInProcess): Promise<void> {
  const session = checkSession(opts, ctx);
  const [{ McpServer }, z] = await Promise.all([import('@modelcontextprotocol/sdk/server/mcp.js'), import('zod')]);
  const s = sessionState(session, opts, ctx, tree, runOther, await sessionProfile(ctx));
  const confirmation = opts.confirmOver !== undefined ? ` A call priced over ${dollars(opts.confirmOver)} is put to the person first.` : '';
  const server = new McpServer(
    { name: 'svc', version: ctx.version },
    {
      // The SDK's default validator (Ajv, built with its formats when the server is made) checks
      // only answers to elicitation; svc's one question (confirm.ts) has one answer shape, checked
      // by its own few lines, which saves that start-up time.
      jsonSchemaValidator: { getValidator: approvalValidator },
      // Log messages: what svc does on its own in the session (a live call it ends at the cap).
      capabilities: { logging: {} },
      instructions:
        s.session.mode === 'live'
          ? `svc in LIVE mode: billed tools are priced before each call and refused once the session would pass ${dollars(s.session.maxSpend!)}; a live call's every minute counts, and svc ends a call before a minute the cap cannot cover.${confirmation}`
          : 'svc in test mode: nothing is billed; objects are the test-mode ones.',
    },
  );
  const asker: Asker = {
    canElicit: () => server.server.getClientCapabilities()?.elicitation !== undefined,
    elicit: (params, abort) => server.server.elicitInput(params, { signal: abort, timeout: 10 * 60_000 }),
  };
  const hasEventsWait = s.tools.some((t) => t.name === 'events_list');
  const refusedBySdk = auditRefusals(s, hasEventsWait);
  const registered = new Map<string, { description?: string }>();
  for (const tool of s.tools) {
    const handle = server.registerTool(
      tool.name,
      {
        title: tool.leaf.decl.tool!.title,
        description: tool.description,
        inputSchema: inputSchema(z, tool),
        outputSchema: outputSchema(z, tool),
        annotations: annotations(tool),
      },
      (input, extra) => {
        refusedBySdk.answered(extra.requestId);
        return runTool(s, tool, input ?? {}, extra.signal, asker);
      },
    );
    registered.set(tool.name, handle);
  }
  /** Aborted when the session ends: what it still reads from the service (events_wait's stream, the prices) stops with it. */
  const sessionEnd = new AbortController();
  // The prices the billable tools' descriptions state, read once. Set in place, not by
  // update(): that would tell the client its list changed, which it never saw.
  const describePrices = async () => {
    const prices = await readPrices(() => ctx.api(), sessionEnd.signal);
    if (!prices) return;
    s.prices = [...prices.values()];
    for (const priced of toolsOf(tree, session, { prices })) {
      const tool = s.tools.find((t) => t.name === priced.name);
      const handle = registered.get(priced.name);
      if (tool && handle) handle.description = tool.description = priced.description;
    }
  };
  const eventsWait = hasEventsWait
    ? registerEventsWait(s, server, z, { sessionEnd: sessionEnd.signal, started: (id) => refusedBySdk.answered(id) })
    : undefined;
  // What the session reads from the service (prices, events_wait's position), read once
  // initialize is answered: the handshake never waits for the network; the transport holds
  // every request after initialize until it is done.
  // A service that does not answer holds nothing past READY_WITHIN_MS: the tools are then
  // listed without their prices, and events_wait's first wait waits for its position.
  const prepare = async () => {
    // In the background, as one of the session's calls: its end waits for it.
    const recovered = recoverLeftOpen(s, server).catch(() => {});
    s.running.add(recovered);
    void recovered.finally(() => s.running.delete(recovered));
    const waited = new AbortController();
    await Promise.race([Promise.all([describePrices(), eventsWait?.start()]), ctx.clock.sleep(READY_WITHIN_MS, waited.signal).catch(() => {})]);
    waited.abort();
  };

  const transport = await contextTransport(ctx.io, ctx.signal, prepare);
  const ended = new Promise<string>((resolve) => {
    // stdin closed: the session's end begins at once, with answers still in flight (endSession).
    transport.oninputend = () => resolve('stdin was closed');
    transport.onclose = () => resolve(endedBy(ctx.signal));
  });
  await server.connect(transport);
  refusedBySdk.watch(transport);
  const say = (text: string) => {
    ctx.io.stderr.write(`svc mcp: ${text}\n`);
    void server.sendLoggingMessage({ level: 'warning', logger: 'svc', data: `svc mcp: ${text}.` }).catch(() => {});
  };
  s.minutes = s.ledger
    ? new MinuteMeter({ ledger: s.ledger, clock: ctx.clock, end: (id, why) => endCallForCap(s, server, id, why), read: (id) => callNow(s, id), say })
    : undefined;
  // The server's own note goes to stderr: stdout is the protocol's alone.
  ctx.io.stderr.write(
    `svc mcp: ${s.tools.length + (hasEventsWait ? 1 : 0)} tools, ${s.session.mode} mode${opts.allowWrite ? ', writes allowed' : ', read-only'}${s.ledger ? `, spending cap ${dollars(s.ledger.capUnits)}` : ''}; audit log ${s.audit.path}\n`,
  );
  let why = 'the session ended';
  try {
    why = await ended;
  } finally {
    await endSession(s, why, () => transport.allAnswered());
    sessionEnd.abort();
    await server.close().catch(() => {});
    await s.audit.flushRefused().catch(auditFailed(s));
    // Last: while it is held, no other session takes this one's calls for left behind.
    await s.release();
  }
}

/**
 * What sessions known to be dead left open (session.ts leftOpen), once initialize is answered
 * (reading the audit log is no part of the handshake): a session that may write, made as the
 * same credential in the same mode, asks their lost creates again with their keys and ends
 * every call they left running, as their own session would have; the rest is said. Said on
 * stderr and to the assistant (a log message).
 */
async function recoverLeftOpen(s: SessionState, server: Pick<McpServerType, 'sendLoggingMessage'>): Promise<void> {
  const left = await leftOpen(s.audit.dir, s.id);
  if (!left.calls.length && !left.lost.length && !left.unfinished.length) return;
  const owner = await s.owner();
  const ours = (entry: { owner?: string; mode: string }) =>
    s.session.allowWrite && owner !== undefined && entry.owner === owner && entry.mode === s.session.mode;
  const ended: string[] = [];
  const calls = left.calls.filter(({ entry }) => !ours(entry)).map(({ id }) => id);
  const lost: string[] = [];
  const reasked: string[] = [];
  const bound = boundedSignal(s, ENDS_WITHIN_MS * 2);
  for (const entry of left.lost) {
    const tool = s.tools.find((t) => t.name === entry.tool);
    let input: TypedInput | undefined;
    try {
      input = tool && ours(entry) ? typedInput(tool, entry.args) : undefined;
    } catch {
      input = undefined;
    }
    const asked =
      tool && input
        ? await reask(
            s,
            { tool: entry.tool, path: tool.path.join(' '), input, args: entry.args, key: entry.key },
            `session ${entry.session} ended before its answer came`,
            bound.signal,
          )
        : undefined;
    const reserved = entry.price_asked !== null ? `, ${dollars(centsToUnits(entry.price_asked))} reserved` : '';
    if (asked === undefined) lost.push(`${entry.tool} (session ${entry.session}${reserved}, Idempotency-Key ${entry.key})`);
    else reasked.push(asked);
  }
  const toEnd = [...new Set([...left.calls.filter(({ entry }) => ours(entry)).map(({ id }) => id), ...reasked])];
  for (const id of toEnd) {
    const result = await endLiveCall(s, id, 'left running by a svc mcp session that has ended', bound.signal);
    if (!result.isError || reportOf(result)?.status === 409) ended.push(id);
    else calls.push(id);
  }
  bound.done();
  const note = leftOpenNote({ calls, lost, unfinished: left.unfinished, ended });
  if (!note) return;
  s.ctx.io.stderr.write(`svc mcp: ${note}\n`);
  await server.sendLoggingMessage({ level: 'warning', logger: 'svc', data: `svc mcp: ${note}.` }).catch(() => {});
}

/** A signal that aborts after `ms` or when the process ends for good; `done` lets go of its timer. */
function boundedSignal(s: SessionState, ms: number): { signal: AbortSignal; done(): void } {
  const bound = new AbortController();
  const waited = new AbortController();
  void s.ctx.clock.sleep(ms, waited.signal).then(
    () => bound.abort(new Error(`the service did not answer within ${ms / 1000} s`)),
    () => {},
  );
  return {
    signal: bound.signal,
    done: () => {
      waited.abort();
      bound.abort();
    },
  };
}

/**
 * A create whose answer was lost, sent again with its Idempotency-Key (the service answers what
 * the first made, and makes nothing more; while it still handles the first, 409, asked again
 * within `signal`'s bound): audited as svc mcp's own call; the live call it made, now the
 * session's to end. The call's id, undefined when none was learnt.
 */
async function reask(s: SessionState, create: PendingCreate, why: string, signal: AbortSignal): Promise<string | undefined> {
  const result = await ownCall(
    s,
    { name: create.tool, key: create.key },
    { ...create.args, by: 'svc mcp', why: `asked again with its Idempotency-Key: ${why}` },
    signal,
    async (callSignal, settled) => {
      settled.sent = true;
      for (;;) {
        const ran = await s.run(create.path, create.input, callSignal, true, create.key);
        if (ran.exitCode === 0) return resultOf(structuredOf(ran.stdout));
        const failed = failureOf(ran);
        if (reportOf(failed)?.status !== 409 || callSignal.aborted) return failed;
        await s.ctx.clock.sleep(200, callSignal).catch(() => {});
        if (callSignal.aborted) return failed;
      }
    },
  );
  if (typeof reportOf(result)?.status === 'number' || !result.isError) s.pending.delete(create.key);
  return result.isError ? undefined : noteLiveCall(s, result.structuredContent);
}

/** The creates of live calls whose answer never came, asked again with their keys, together, within ENDS_WITHIN_MS. */
async function reaskPending(s: SessionState, why: string): Promise<void> {
  if (s.pending.size === 0) return;
  const bound = boundedSignal(s, ENDS_WITHIN_MS);
  await Promise.all([...s.pending.values()].map((create) => reask(s, create, `the session ended before its answer came: ${why}`, bound.signal)));
  bound.done();
  if (s.pending.size)
    s.ctx.io.stderr.write(
      `svc mcp: no answer came for ${[...s.pending.values()].map((c) => `${c.tool} (Idempotency-Key ${c.key})`).join(', ')}, asked again too: the next svc mcp session of this credential that may write asks again by the key and ends what was made\n`,
    );
}

/** How long answers still in flight when stdin closes may take (once the live calls are ended) before they are abandoned. */
export const ANSWERS_WITHIN_MS = 5_000;
/** How long calls told to stop (abandoned) may take to write their result lines. */
export const ABANDONED_WITHIN_MS = 1_000;
/** How long svc waits for the live calls' ends, each time it ends them. */
export const ENDS_WITHIN_MS = 2_000;

/** Why the session's transport closed: a signal, stdout gone, Ctrl-C, or stdin's end with nothing in flight. */
function endedBy(signal: AbortSignal): string {
  if (!signal.aborted) return 'stdin was closed';
  const code = (signal.reason as { code?: unknown } | undefined)?.code;
  if (code === 'EPIPE') return 'stdout was closed by its reader';
  if (typeof code === 'string' && code.startsWith('SIG')) return `svc was told to end (${code})`;
  return 'svc was interrupted (Ctrl-C)';
}

/**
 * The session's end, however it came: its money first (the live calls it started are ended,
 * each written to the audit log), then the answers still in flight, finished within
 * ANSWERS_WITHIN_MS or abandoned (at once after a signal), then the calls those answers
 * started. Bounded: each step waits a few seconds at most.
 */
async function endSession(s: SessionState, why: string, allAnswered: () => Promise<void>): Promise<void> {
  s.minutes?.stopAll();
  await endLiveCalls(s, why);
  await settledWithin(s, [allAnswered()], ANSWERS_WITHIN_MS, s.halt.signal);
  s.halt.abort(new Error(why));
  await settledWithin(s, [...s.running], ABANDONED_WITHIN_MS);
  s.minutes?.stopAll();
  // Creates whose answer was lost to the end: learnt again by their keys, then ended with the rest.
  await reaskPending(s, why);
  await endLiveCalls(s, why);
}

/** Resolves once every promise has settled, `ms` has passed, or `cut` aborts. */
async function settledWithin(s: SessionState, running: Array<Promise<unknown>>, ms: number, cut?: AbortSignal): Promise<void> {
  if (running.length === 0 || cut?.aborted) return;
  const waited = new AbortController();
  const stop = () => waited.abort();
  cut?.addEventListener('abort', stop, { once: true });
  await Promise.race([Promise.allSettled([...running]), s.ctx.clock.sleep(ms, waited.signal).catch(() => {})]);
  cut?.removeEventListener('abort', stop);
  waited.abort();
}

/** Ends every live call the session started and has not seen end, together, within ENDS_WITHIN_MS. */
async function endLiveCalls(s: SessionState, why: string): Promise<void> {
  if (s.liveCalls.size === 0) return;
  const bound = new AbortController();
  const timer = s.ctx.clock.sleep(ENDS_WITHIN_MS, bound.signal).then(
    () => bound.abort(new Error(`the service did not answer within ${ENDS_WITHIN_MS / 1000} s`)),
    () => {},
  );
  await Promise.all([...s.liveCalls].map((id) => endLiveCall(s, id, `the session ended: ${why}`, bound.signal)));
  bound.abort();
  await timer;
}

/**
 * svc's own end of a live call, audited as a `calls_end` of the session (its arguments say
 * why); the call is forgotten once ended or found ended already.
 */
async function endLiveCall(s: SessionState, id: string, why: string, signal: AbortSignal): Promise<CallToolResult> {
  const result = await ownCall(s, { name: 'calls_end', ends: true }, { id, by: 'svc mcp', why }, signal, async (callSignal, settled) => {
    settled.sent = true;
    const ran = await s.own('calls end', { id }, callSignal);
    return ran.exitCode === 0 ? resultOf(structuredOf(ran.stdout)) : failureOf(ran);
  });
  if (!result.isError || reportOf(result)?.status === 409) {
    s.liveCalls.delete(id);
    s.minutes?.stop(id);
  }
  return result;
}

/** A live call as the service has it now (a read of svc mcp's own, not audited); undefined when it cannot be read. */
async function callNow(s: SessionState, id: string): Promise<{ status: string; ended_at: string | null } | undefined> {
  const ran = await s.own('calls get', { id }, s.halt.signal);
  if (ran.exitCode !== 0) return undefined;
  const { status, ended_at: endedAt } = structuredOf(ran.stdout) as { status?: unknown; ended_at?: unknown };
  return typeof status === 'string' ? { status, ended_at: typeof endedAt === 'string' ? endedAt : null } : undefined;
}

/** A live call the cap has no room for: ended, and the assistant told (a log message) as well as the audit log. */
async function endCallForCap(s: SessionState, server: Pick<McpServerType, 'sendLoggingMessage'>, id: string, why: string): Promise<void> {
  const result = await endLiveCall(s, id, why, s.halt.signal);
  const outcome = result.isError ? `could not be ended (${reportOf(result)?.message ?? 'failed'})` : 'was ended';
  await server
    .sendLoggingMessage({
      level: 'warning',
      logger: 'svc',
      data: `svc mcp: the call ${id} ${outcome}: ${why} (${dollars(s.ledger!.spent)} of ${dollars(s.ledger!.capUnits)} spent).`,
    })
    .catch(() => {});
}
