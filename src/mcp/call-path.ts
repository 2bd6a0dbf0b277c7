// The one path every tool call of a session takes, and svc mcp's own calls too: the audit's
// intent line before anything is done (nothing is done when it cannot be written, but an end),
// the act, then the result line saying whether the call acted, by the service's answer.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { EXIT, UsageError } from '../errors.js';
import { AuditNewerFormatError, idsIn, loggedArgs, type AuditLine } from './audit.js';
import { reportOf, toolError } from './result.js';
import type { SessionState } from './session.js';

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

/** What the result line of a call says beyond its outcome. */
export interface Settled {
  price_asked: number | null;
  spent?: number;
  /** The Idempotency-Key the call's create is sent with (tools that write), on its intent line before it is sent. */
  key?: string;
  /** Set when the call's request is sent to the service: a call never sent did not act. */
  sent?: boolean;
  /**
   * Writes the call's `priced` line (the price reserved, in cents) before a billed request is
   * sent: a call that never finishes, its session killed (kill -9), still shows what it may have
   * cost (`svc mcp log`, and the next session's leftOpen).
   */
  priced(cents: number): Promise<void>;
}

/**
 * Whether a call acted, by the service's answer: sent, and answered 2xx, or not answered (it
 * may have acted), or answered 5xx (a gateway may answer so after the service acted). A call
 * never sent, or one the service refused (4xx), did not.
 */
function actedBy(settled: Settled, result: CallToolResult): boolean {
  if (!settled.sent) return false;
  if (!result.isError) return true;
  // A usage error is svc's own, raised before anything is sent.
  if (reportOf(result)?.exit_code === EXIT.usage) return false;
  const status = reportOf(result)?.status;
  return typeof status !== 'number' || status >= 500;
}

/** The result line's outcome: the tool's own, or why it stopped. */
function outcomeOf(result: CallToolResult, sessionSignal: AbortSignal, signal: AbortSignal): string {
  // The session stopping (Ctrl-C, stdout gone) aborts the SDK's handlers too: that is no client's cancel.
  if (signal.aborted) return sessionSignal.aborted ? 'disconnected' : 'cancelled';
  if (!result.isError) return 'ok';
  return reportOf(result)?.code ?? 'failed';
}

/**
 * The tool-call path: the intent line written (or nothing done, and the tool says why), the
 * input read by the declarations, the command run (`act`, priced and reserved when billed),
 * then the result line. The call stops when its client cancels it or the session halts.
 */
export function callTool(
  s: SessionState,
  tool: { name: string },
  args: unknown,
  clientSignal: AbortSignal,
  act: (signal: AbortSignal, settled: Settled) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  // A tool that may change or charge: its call is carried past rotations (audit.ts), whatever floods the log after it.
  const writes = s.tools.some((t) => t.name === tool.name && !t.readOnly);
  // An end is never refused for want of a log line (ownCall says why).
  const ends = s.tools.some((t) => t.name === tool.name && t.leaf.decl.tool?.destructive === true && t.leaf.decl.tool.idempotent === true);
  const call = whileEither(clientSignal, s.halt.signal, (signal) => audited(s, { ...tool, writes, ends }, args, signal, act));
  s.running.add(call);
  void call.finally(() => s.running.delete(call)).catch(() => {});
  return call;
}

/**
 * One call of svc mcp's own (a live call it ends, a create it asks again with its `key`),
 * audited as a tool call is: its intent line first, then its result, and carried past
 * rotations as every call that acted is. `signal` alone stops it, so it still runs while the
 * session ends. An end (`ends`) is made even when its intent cannot be written: it is then
 * recorded after the fact when the log takes it, and said on stderr.
 */
export function ownCall(
  s: SessionState,
  tool: { name: string; ends?: boolean; key?: string },
  args: Record<string, unknown>,
  signal: AbortSignal,
  act: (signal: AbortSignal, settled: Settled) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  return audited(s, { ...tool, writes: true, ends: tool.ends === true }, args, signal, act);
}

async function audited(
  s: SessionState,
  tool: { name: string; writes: boolean; ends: boolean; key?: string | undefined },
  args: unknown,
  signal: AbortSignal,
  act: (signal: AbortSignal, settled: Settled) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const call = ++s.calls;
  const line = (phase: AuditLine['phase']) => ({
    session: s.id,
    call,
    phase,
    time: new Date(s.ctx.clock.now()).toISOString(),
    tool: tool.name,
    mode: s.session.mode,
  });
  // Each create of a call that writes has its key, on the intent line before it is sent: the
  // create can be asked again with it (its answer lost), by this session or the next.
  const key = tool.key ?? (tool.writes ? `svcmcp_${s.id}_${call}` : undefined);
  const owner = key ? await s.owner() : undefined;
  await s.claim();
  const intent = {
    ...line('intent'),
    args: loggedArgs(args),
    ...(tool.writes ? { writes: true as const } : {}),
    ...(key ? { key } : {}),
    ...(owner ? { owner } : {}),
  };
  let late = false;
  try {
    await s.audit.append(intent);
  } catch (error) {
    if (!tool.ends)
      return toolError(
        'audit_unwritable',
        `nothing was done: svc mcp writes each call to its audit log before making it, and could not (${(error as Error).message})`,
        // A newer svc's log is left as it is: the fix is that svc, not the folder's permissions.
        error instanceof AuditNewerFormatError ? (error.hint ?? null) : `make ${s.audit.dir} writable by this user`,
      );
    // Ending stops a charge: it is done all the same, and recorded after the fact if the log takes it.
    late = true;
    s.ctx.io.stderr.write(
      `svc mcp: ${tool.name} ${JSON.stringify(intent.args)} is made without its audit line first (${(error as Error).message}); it is written after, if the log takes it\n`,
    );
  }
  const settled: Settled = {
    price_asked: null,
    ...(key ? { key } : {}),
    priced: (cents) => s.audit.append({ ...line('priced'), price_asked: cents }),
  };
  let result: CallToolResult;
  try {
    result = await act(signal, settled);
  } catch (error) {
    const usage = error instanceof UsageError;
    result = toolError(
      usage ? 'usage' : 'failed',
      usage ? error.message : `unexpected failure: ${(error as Error).message}`,
      null,
      null,
      usage ? EXIT.usage : EXIT.failure,
    );
  }
  const ids = idsIn(args, result.isError ? undefined : result.structuredContent);
  const acted = actedBy(settled, result);
  const outcome = outcomeOf(result, s.halt.signal, signal);
  const resultLine = {
    ...line('result'),
    result: outcome,
    price_asked: settled.price_asked,
    ids,
    ...(settled.spent !== undefined ? { spent: settled.spent } : {}),
    ...(tool.writes || settled.price_asked !== null ? { acted } : {}),
  };
  const written = (late ? s.audit.append({ ...intent, late: true }) : Promise.resolve())
    .then(() => s.audit.append(resultLine))
    .then(() => {
      if (!acted || !(tool.writes || settled.price_asked !== null)) return;
      const { session, call: number, tool: name, mode, result: said, price_asked: price, ids: touched } = resultLine;
      return s.audit.act({
        time: intent.time,
        session,
        call: number,
        tool: name,
        mode,
        args: intent.args,
        price_asked: price,
        result: said,
        ids: touched,
        ...(key ? { key } : {}),
        ...(owner ? { owner } : {}),
        ...(settled.spent !== undefined ? { spent: settled.spent } : {}),
        acted,
      });
    });
  await written.catch((error: Error) =>
    s.ctx.io.stderr.write(
      `svc mcp: the audit log's ${late ? 'lines' : 'result line'} for call ${call} (${tool.name}${ids.length ? ` ${ids.join(', ')}` : ''}: ${outcomeOf(result, s.halt.signal, signal)}) could not be written: ${error.message}\n`,
    ),
  );
  return result;
}
