// A session of `svc mcp`: what was fixed when it started (its mode, cap, profile and base URL,
// through the runner it was given), and the one path every tool call takes (callTool): the
// audit's intent line before anything is done, the act, the result line.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from '../../context.js';
import type { Leaf, RootSpec, RunInProcess } from '../define.js';
import { configDir } from '../../config/paths.js';
import { chooseProfileName } from '../../credentials/resolve.js';
import { EXIT, UsageError } from '../../errors.js';
import { createPacer, pacedDuration } from '../calls/pacer.js';
import { AuditLog, AuditNewerFormatError, idsIn, loggedArgs, readAudit, type AuditEntry, type AuditLine } from './audit.js';
import { centsToUnits, dollars, Ledger } from './budget.js';
import type { MinuteMeter } from './minutes.js';
import { ownInput, type TypedInput } from './invoke.js';
import { reportOf, toolError, type Ran } from './result.js';
import { leavesOf, toolsOf } from './tools.js';
import type { Session, ToolSpec } from './tool-spec.js';

/**
 * A call that would wait longer than this for the pace of the rate limit is refused at once
 * instead. A time, not a count: a burst that the limit clears at once is never refused.
 */
export const MAX_PACED_WAIT_MS = 5_000;

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

/** The session a tool call runs in: what was fixed when it started, and its running state. */
export interface SessionState {
  ctx: Context;
  session: Session;
  tools: ToolSpec[];
  audit: AuditLog;
  /** A random id every audit line of the session carries. */
  readonly id: string;
  ledger: Ledger | undefined;
  /** Billed calls priced above this (units) are put to the person before anything is reserved. */
  confirmOver: number | undefined;
  /** Runs one command of the tree in-process, its output captured. */
  run(path: string, input: TypedInput, signal: AbortSignal, yes?: boolean): Promise<Ran>;
  /** Runs a command svc mcp needs for itself, its input named by the declaration's keys (invoke.ts ownInput). */
  own(path: string, named: Record<string, unknown>, signal: AbortSignal): Promise<Ran>;
  /** One start more within the service's rate limit, or a tool error when too many wait already. */
  paced(signal: AbortSignal): Promise<CallToolResult | null>;
  /** Live calls this session started, ended when it ends. */
  liveCalls: Set<string>;
  calls: number;
  /**
   * Aborted when the session stops its tool calls (its end: stdin closed and the grace for
   * answers past, a signal, stdout gone); ctx.signal aborts it too.
   */
  halt: AbortController;
  /** Tool calls under way, settled once their result line is written. */
  running: Set<Promise<unknown>>;
  /** The minutes of the live calls of a live session (minutes.ts), once the server is up. */
  minutes?: MinuteMeter | undefined;
}

/** The session's mode and limits, refused when they contradict each other (before anything is read from the service). */
export function checkSession(opts: ServeOptions, ctx: Context): Session {
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
  return { mode, allowWrite: opts.allowWrite, ...(opts.maxSpend !== undefined ? { maxSpend: opts.maxSpend } : {}) };
}

/**
 * The profile the session's tools run with, chosen once when it starts (--profile, SVC_PROFILE,
 * else the default profile then): switching the default later (svc auth switch) does not move
 * them to another organization. None when the chosen profile does not exist yet (each tool
 * then says what is missing) or config.json cannot be read (each tool says why).
 */
export async function sessionProfile(ctx: Context): Promise<string | undefined> {
  try {
    const config = await ctx.config.read();
    const name = chooseProfileName(ctx, config);
    return Object.hasOwn(config.profiles, name) ? name : undefined;
  } catch {
    return undefined;
  }
}

/** The state of a session checkSession allowed, its tools run with `profile` (sessionProfile). */
export function sessionState(
  session: Session,
  opts: ServeOptions,
  ctx: Context,
  tree: RootSpec,
  runOther: RunInProcess,
  profile: string | undefined,
): SessionState {
  const leaves = new Map<string, Leaf>(leavesOf(tree).map(({ path, leaf }) => [path.join(' '), leaf]));
  // The service's limit (600 a minute, docs/contract.md) unless the organization has been given another.
  const perMinute = Number(ctx.env.SVC_MCP_REQUESTS_PER_MINUTE ?? '') || undefined;
  const pace = perMinute && perMinute > 10 ? { limit: perMinute } : {};
  const pacer = createPacer(ctx.clock, pace);
  let waiting = 0;
  let id: string | undefined;
  return {
    ctx,
    session,
    tools: toolsOf(tree, session, {}),
    audit: new AuditLog(configDir(ctx.env)),
    // Drawn at the first audit line, not at start-up (randomness loads node:crypto).
    get id() {
      return (id ??= Buffer.from(ctx.random.bytes(6)).toString('hex'));
    },
    ledger: session.maxSpend !== undefined ? new Ledger(session.maxSpend) : undefined,
    confirmOver: opts.confirmOver,
    liveCalls: new Set(),
    calls: 0,
    halt: haltedWith(ctx.signal),
    running: new Set(),
    async run(path, input, signal, yes = false) {
      let stdout = '';
      let stderr = '';
      const leaf = leaves.get(path)!;
      const exitCode = await runOther(
        { leaf, name: path, args: input.args, flags: input.flags, mode: session.mode, yes, ...(profile !== undefined ? { profile } : {}) },
        { stdout: (chunk) => void (stdout += chunk), stderr: (chunk) => void (stderr += chunk) },
        signal,
      );
      return { exitCode, stdout, stderr };
    },
    own(path, named, signal) {
      return this.run(path, ownInput(leaves.get(path)!.decl, named), signal);
    },
    async paced(signal) {
      if (pacedDuration(waiting + 1, pace) > MAX_PACED_WAIT_MS)
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
    },
  };
}

/** What the result line of a call says beyond its outcome. */
export interface Settled {
  price_asked: number | null;
  spent?: number;
  /**
   * Writes the call's `priced` line (the price reserved, in cents) before a billed request is
   * sent: a call that never finishes, its session killed (kill -9), still shows what it may have
   * cost (`svc mcp log`, and the next session's leftOpen).
   */
  priced(cents: number): Promise<void>;
}

/** A controller aborted with `signal` (the process's end), or before it by the session itself. */
function haltedWith(signal: AbortSignal): AbortController {
  const halt = new AbortController();
  if (signal.aborted) halt.abort(signal.reason);
  else signal.addEventListener('abort', () => halt.abort(signal.reason), { once: true });
  return halt;
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
  const call = whileEither(clientSignal, s.halt.signal, (signal) => audited(s, { ...tool, writes }, args, signal, act));
  s.running.add(call);
  void call.finally(() => s.running.delete(call)).catch(() => {});
  return call;
}

/**
 * One call of svc mcp's own (a live call it ends), audited as a tool call is: its intent line
 * first, then its result, and carried past rotations as every call that acted is. `signal`
 * alone stops it, so it still runs while the session ends.
 */
export function ownCall(
  s: SessionState,
  tool: { name: string },
  args: Record<string, unknown>,
  signal: AbortSignal,
  act: (signal: AbortSignal, settled: Settled) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  return audited(s, { ...tool, writes: true }, args, signal, act);
}

async function audited(
  s: SessionState,
  tool: { name: string; writes: boolean },
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
  try {
    await s.audit.append({ ...line('intent'), args: loggedArgs(args), ...(tool.writes ? { writes: true as const } : {}) });
  } catch (error) {
    return toolError(
      'audit_unwritable',
      `nothing was done: svc mcp writes each call to its audit log before making it, and could not (${(error as Error).message})`,
      // A newer svc's log is left as it is: the fix is that svc, not the folder's permissions.
      error instanceof AuditNewerFormatError ? (error.hint ?? null) : `make ${s.audit.dir} writable by this user`,
    );
  }
  const settled: Settled = {
    price_asked: null,
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
  await s.audit
    .append({
      ...line('result'),
      result: outcomeOf(result, s.halt.signal, signal),
      price_asked: settled.price_asked,
      ids,
      ...(settled.spent !== undefined ? { spent: settled.spent } : {}),
    })
    .catch((error: Error) => s.ctx.io.stderr.write(`svc mcp: the audit log's result line for call ${call} could not be written: ${error.message}\n`));
  return result;
}

/** What earlier sessions left behind, from the audit log: calls still open, and billed calls that never finished. */
export interface LeftOpen {
  /** Live calls an earlier session started and no session recorded ending. */
  calls: string[];
  /** Billed calls sent (their reservation written) with no result: `translate (session …, $0.04)`. */
  unfinished: string[];
}

/**
 * Reads the audit log in `dir` for what sessions other than `own` left open: a session killed
 * (kill -9) ends nothing, so its calls are named to the next one. The calls as `svc mcp log`
 * shows them (audit.ts readAudit: lines joined, calls carried past rotations included): a call
 * started with no end recorded, by the call ids its lines recorded (id fields only), and a
 * billed call priced (its `priced` line) with no result. Nothing when the log cannot be read.
 */
export function leftOpen(dir: string, own: string): LeftOpen {
  let entries: AuditEntry[];
  try {
    entries = readAudit(dir);
  } catch {
    return { calls: [], unfinished: [] };
  }
  const started = new Set<string>();
  const unfinished: string[] = [];
  for (const entry of entries) {
    if (!entry.session || entry.session === own) continue;
    if (entry.result === 'unfinished' && entry.price_asked !== null)
      unfinished.push(`${entry.tool} (session ${entry.session}, ${dollars(centsToUnits(entry.price_asked))})`);
    const id = entry.ids.find((i) => i.startsWith('call_'));
    if (!id) continue;
    if (entry.tool === 'calls_end' && (entry.result === 'ok' || entry.result === 'conflict')) started.delete(id);
    else if ((entry.tool === 'calls_start' || entry.tool === 'calls_dial') && entry.result === 'ok') started.add(id);
  }
  return { calls: [...started], unfinished };
}

/** What the person and the assistant are told of it when the session starts; '' when nothing was left. */
export function leftOpenNote({ calls, unfinished }: LeftOpen): string {
  const parts: string[] = [];
  if (calls.length)
    parts.push(
      `an earlier svc mcp session ended without ending ${calls.length === 1 ? 'this call' : 'these calls'} (it was killed): ${calls.join(', ')}; each may still be running, and billed in live mode, until ended (calls_end, or svc calls end ID)`,
    );
  if (unfinished.length) parts.push(`billed calls an earlier session sent and never saw answered (their price may have been drawn): ${unfinished.join(', ')}`);
  return parts.join('. ');
}
