// A tool call as svc mcp makes it: its input typed by the declaration, then run (a billed one
// priced, put to the person, reserved and settled through the ledger), its creates sent with
// the call's Idempotency-Key, and the live calls it starts noted so the session can end them.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { EXIT, UsageError } from '../errors.js';
import { dollars, drawnFor, priceOf, unitsToCents } from './budget.js';
import { typedInput, type TypedInput } from './invoke.js';
import { failureOf, reportOf, toolError, type Ran } from './result.js';
import { callTool, type Settled } from './call-path.js';
import { CALL_CREATES } from './left-open.js';
import type { SessionState } from './session.js';
import type { ToolSpec } from './tool-spec.js';
import { inToolTerms } from './describe.js';
import { approved, type Asker } from './confirm.js';
import { fittedRun, pageOf, resultOf, structuredOf, withCarriedFilters } from './paging.js';

/** A command's result as the tool's: a list's page with its next cursor, its JSON as the text too (paging.ts). */
function successOf(ran: Ran, tool: ToolSpec): CallToolResult {
  return resultOf(pageOf(tool, ran));
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
  const plan = 'result' in priced && priced.result?.kind === 'dry-run' ? priced.result.value : undefined;
  if (!plan) return toolError('not_priceable', `${path} --dry-run did not say what the call would cost`, null);
  const price = priceOf(plan);
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
  if (ran.exitCode === 0) noteLiveCall(s, structuredOf(ran));
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
export function noteLiveCall(s: SessionState, answer: unknown): string | undefined {
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
export async function runTool(
  s: SessionState,
  tool: ToolSpec,
  args: Record<string, unknown>,
  clientSignal: AbortSignal,
  asker: Asker,
): Promise<CallToolResult> {
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
export const auditFailed = (s: SessionState) => (error: Error) =>
  void s.ctx.io.stderr.write(`svc mcp: a refused call could not be written to ${s.audit.refusedPath}: ${error.message}\n`);

/** Input a declaration refuses (a UsageError from typedInput) as a tool error, so its words can be put in the tool's terms too. */
function usageAsResult(error: unknown): CallToolResult {
  if (error instanceof UsageError) return toolError('usage', error.message, null, null, EXIT.usage);
  throw error;
}
