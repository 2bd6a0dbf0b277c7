// How a session ends, and what it finds left open: its live calls ended first however it ends
// (each end audited), answers still in flight finished within a bound or abandoned, creates whose
// answer was lost asked again by their Idempotency-Key; and what dead sessions of the same
// credential left running, taken over once initialize is answered.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer as McpServerType } from '@modelcontextprotocol/sdk/server/mcp.js';
import { centsToUnits, dollars } from './budget.js';
import { typedInput, type TypedInput } from './invoke.js';
import { failureOf, reportOf } from './result.js';
import { ownCall } from './call-path.js';
import { leftOpen, leftOpenNote } from './left-open.js';
import type { PendingCreate, SessionState } from './session.js';
import { resultOf, structuredOf } from './paging.js';
import { noteLiveCall } from './run-tool.js';

/**
 * What sessions known to be dead left open (left-open.ts leftOpen), once initialize is answered
 * (reading the audit log is no part of the handshake): a session that may write, made as the
 * same credential in the same mode, asks their lost creates again with their keys and ends
 * every call they left running, as their own session would have; the rest is said. Said on
 * stderr and to the assistant (a log message).
 */
export async function recoverLeftOpen(s: SessionState, server: Pick<McpServerType, 'sendLoggingMessage'>): Promise<void> {
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
        : {};
    const reserved = entry.price_asked !== null ? `, ${dollars(centsToUnits(entry.price_asked))} reserved` : '';
    const refused = asked.refused ? `; sent again with the arguments the log keeps, the service refused it: ${asked.refused}` : '';
    if (asked.id === undefined) lost.push(`${entry.tool} (session ${entry.session}${reserved}, Idempotency-Key ${entry.key}${refused})`);
    else reasked.push(asked.id);
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
async function reask(s: SessionState, create: PendingCreate, why: string, signal: AbortSignal): Promise<{ id?: string; refused?: string }> {
  const result = await ownCall(
    s,
    { name: create.tool, key: create.key },
    { ...create.args, by: 'svc mcp', why: `asked again with its Idempotency-Key: ${why}` },
    signal,
    async (callSignal, settled) => {
      settled.sent = true;
      for (;;) {
        const ran = await s.run(create.path, create.input, callSignal, true, create.key);
        if (ran.exitCode === 0) return resultOf(structuredOf(ran));
        const failed = failureOf(ran);
        if (reportOf(failed)?.status !== 409 || callSignal.aborted) return failed;
        await s.ctx.clock.sleep(200, callSignal).catch(() => {});
        if (callSignal.aborted) return failed;
      }
    },
  );
  const report = reportOf(result);
  if (typeof report?.status === 'number' || !result.isError) s.pending.delete(create.key);
  if (!result.isError) return { id: noteLiveCall(s, result.structuredContent) };
  // Refused by the service (a key sent with other arguments: the log keeps a secret-looking text redacted): said with the create.
  return typeof report?.status === 'number' ? { refused: report.message } : {};
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
export function endedBy(signal: AbortSignal): string {
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
export async function endSession(s: SessionState, why: string, allAnswered: () => Promise<void>): Promise<void> {
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
    return ran.exitCode === 0 ? resultOf(structuredOf(ran)) : failureOf(ran);
  });
  if (!result.isError || reportOf(result)?.status === 409) {
    s.liveCalls.delete(id);
    s.minutes?.stop(id);
  }
  return result;
}

/** A live call as the service has it now (a read of svc mcp's own, not audited); undefined when it cannot be read. */
export async function callNow(s: SessionState, id: string): Promise<{ status: string; ended_at: string | null } | undefined> {
  const ran = await s.own('calls get', { id }, s.halt.signal);
  if (ran.exitCode !== 0) return undefined;
  const { status, ended_at: endedAt } = structuredOf(ran) as { status?: unknown; ended_at?: unknown };
  return typeof status === 'string' ? { status, ended_at: typeof endedAt === 'string' ? endedAt : null } : undefined;
}

/** A live call the cap has no room for: ended, and the assistant told (a log message) as well as the audit log. */
export async function endCallForCap(s: SessionState, server: Pick<McpServerType, 'sendLoggingMessage'>, id: string, why: string): Promise<void> {
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
