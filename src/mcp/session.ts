// A session of `svc mcp`: what was fixed when it started (its mode, cap, profile and base URL,
// through the runner it was given), and the one path every tool call takes (callTool): the
// audit's intent line before anything is done, the act, the result line.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from '../context.js';
import type { Leaf, RootSpec, RunInProcess } from '../kit/define.js';
import { join } from 'node:path';
import { configDir } from '../config/paths.js';
import { acquireFileLock, lockHeld } from '../config/lock.js';
import { makeDir } from '../config/writable.js';
import { chooseProfileName } from '../credentials/resolve.js';
import { EXIT, UsageError } from '../errors.js';
import { createPacer, pacedDuration } from '../kit/pacer.js';
import { AuditLog, AuditNewerFormatError, hashOf, idsIn, loggedArgs, readAudit, type AuditEntry, type AuditLine } from './audit.js';
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
  /** Runs one command of the tree in-process, its output captured; `key`: the Idempotency-Key of its first create. */
  run(path: string, input: TypedInput, signal: AbortSignal, yes?: boolean, key?: string): Promise<Ran>;
  /** Runs a command svc mcp needs for itself, its input named by the declaration's keys (invoke.ts ownInput). */
  own(path: string, named: Record<string, unknown>, signal: AbortSignal): Promise<Ran>;
  /** One start more within the service's rate limit, or a tool error when too many wait already. */
  paced(signal: AbortSignal): Promise<CallToolResult | null>;
  /** The service's prices, read once when the session starts: its billed calls' dry runs price from them. */
  prices?: ReadonlyArray<{ item: string; unit_amount: number; currency: string }>;
  /** Live calls this session started, ended when it ends. */
  liveCalls: Set<string>;
  /**
   * Creates of a live call sent and not answered (the answer lost to a signal, a close, the
   * network), by their Idempotency-Key: asked again with it at the session's end, and ended.
   */
  pending: Map<string, PendingCreate>;
  /** Who the session's creates are made as (a digest of its credential): another session may ask them again only as the same. */
  owner(): Promise<string | undefined>;
  /** The session's lock, taken with its first audit line and held until it ends: other sessions know it is alive by it. */
  claim(): Promise<void>;
  /** Lets the session's lock go (its end). */
  release(): Promise<void>;
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

/** A create of a live call sent and not answered yet. */
export interface PendingCreate {
  tool: string;
  /** The command's path and its typed input, sent again as they were. */
  path: string;
  input: TypedInput;
  args: Record<string, unknown>;
  key: string;
}

/** Where each session's lock is kept, in svc's folder. */
export const SESSIONS_DIR = 'mcp-sessions';

/** Whether the session `id` whose lines are in the log in `dir` is alive (its lock held). */
export function sessionAlive(dir: string, id: string): Promise<boolean> {
  return /^[0-9a-f]{1,64}$/.test(id) ? lockHeld(join(dir, SESSIONS_DIR, id)).catch(() => true) : Promise.resolve(false);
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
  let owner: Promise<string | undefined> | undefined;
  let lock: Promise<(() => Promise<void>) | undefined> | undefined;
  const dir = configDir(ctx.env);
  return {
    ctx,
    session,
    tools: toolsOf(tree, session, {}),
    audit: new AuditLog(dir),
    // Drawn at the first audit line, not at start-up (randomness loads node:crypto).
    get id() {
      return (id ??= Buffer.from(ctx.random.bytes(6)).toString('hex'));
    },
    ledger: session.maxSpend !== undefined ? new Ledger(session.maxSpend) : undefined,
    confirmOver: opts.confirmOver,
    liveCalls: new Set(),
    pending: new Map(),
    owner() {
      owner ??= ctx.resolveCredential().then(
        (c) => hashOf([c.baseUrl, c.kind, c.mode, c.kind === 'api_key' && c.apiKey ? c.apiKey : `profile:${c.profileName}`].join('\n')).slice(0, 16),
        () => undefined,
      );
      return owner;
    },
    claim() {
      // A folder that cannot take the lock cannot take the log either: the append says why.
      lock ??= makeDir(join(dir, SESSIONS_DIR)).then(
        () => acquireFileLock(join(dir, SESSIONS_DIR, this.id)).catch(() => undefined),
        () => undefined,
      );
      return lock.then(() => {});
    },
    async release() {
      const release = await lock;
      await release?.().catch(() => {});
    },
    calls: 0,
    halt: haltedWith(ctx.signal),
    running: new Set(),
    async run(path, input, signal, yes = false, key) {
      let stdout = '';
      let stderr = '';
      const leaf = leaves.get(path)!;
      const exitCode = await runOther(
        {
          leaf,
          name: path,
          args: input.args,
          flags: input.flags,
          mode: session.mode,
          yes,
          ...(profile !== undefined ? { profile } : {}),
          ...(key !== undefined ? { idempotencyKey: key } : {}),
          ...(this.prices ? { knownPrices: this.prices } : {}),
        },
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

/** A controller aborted with `signal` (the process's end), or before it by the session itself. */
function haltedWith(signal: AbortSignal): AbortController {
  const halt = new AbortController();
  if (signal.aborted) halt.abort(signal.reason);
  else signal.addEventListener('abort', () => halt.abort(signal.reason), { once: true });
  return halt;
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

/** Results that say no answer came: the call was sent (or may have been) and what it did is not known. */
export const NO_ANSWER = new Set(['unfinished', 'disconnected', 'cancelled']);
/** The tools whose create starts something billed by the minute until the call ends. */
export const CALL_CREATES = new Set(['calls_start', 'calls_dial']);

/**
 * Whether what a create made is known: it was answered 2xx, or refused (it made nothing). A
 * create with no answer (none written, cut off, the network, a 5xx) is not, however it ended.
 */
function learnt(entry: AuditEntry): boolean {
  if (entry.result === 'ok' || entry.acted === false) return true;
  return entry.acted === undefined && !NO_ANSWER.has(entry.result) && entry.result !== 'failed';
}

/** What sessions known to be dead left behind, from the audit log. */
export interface LeftOpen {
  /** Live calls a dead session started and no session recorded ending: the entry that started each. */
  calls: Array<{ id: string; entry: AuditEntry }>;
  /** Creates of a live call a dead session sent with its key and never saw answered (nor any session since). */
  lost: Array<AuditEntry & { key: string }>;
  /** Billed calls sent (their reservation written) with no result: `translate (session …, $0.04)`. */
  unfinished: string[];
}

/**
 * Reads the audit log in `dir` for what sessions other than `own`, and known to be dead (their
 * lock released: sessionAlive), left open: a session killed (kill -9) ends nothing, so its
 * calls are the next one's to end. The calls as `svc mcp log` shows them (audit.ts readAudit:
 * lines joined, calls carried past rotations included): a call started with no end recorded,
 * by the call ids its lines recorded (id fields only); a create of a call with its key and no
 * answer; a billed call priced with no result. Nothing when the log cannot be read. A live
 * session's calls are its own, never reported.
 */
export async function leftOpen(dir: string, own: string): Promise<LeftOpen> {
  let entries: AuditEntry[];
  try {
    entries = readAudit(dir);
  } catch {
    return { calls: [], lost: [], unfinished: [] };
  }
  const started = new Map<string, AuditEntry>();
  const answered = new Set<string>();
  const lost: Array<AuditEntry & { key: string }> = [];
  const unfinished: AuditEntry[] = [];
  for (const entry of entries) {
    if (entry.key && learnt(entry)) answered.add(entry.key);
    if (!entry.session) continue;
    if (entry.key && !learnt(entry) && CALL_CREATES.has(entry.tool)) lost.push(entry as AuditEntry & { key: string });
    else if (entry.result === 'unfinished' && entry.price_asked !== null) unfinished.push(entry);
    const id = entry.ids.find((i) => i.startsWith('call_'));
    if (!id) continue;
    if (entry.tool === 'calls_end' && (entry.result === 'ok' || entry.result === 'conflict')) started.delete(id);
    else if (CALL_CREATES.has(entry.tool) && entry.result === 'ok') started.set(id, entry);
  }
  const alive = new Map<string, Promise<boolean>>();
  const dead = async (session: string) => {
    if (session === own) return false;
    if (!alive.has(session)) alive.set(session, sessionAlive(dir, session));
    return !(await alive.get(session));
  };
  const keep = async <T extends { session: string }>(list: T[]) =>
    (await Promise.all(list.map(async (e) => ((await dead(e.session)) ? e : null)))).filter((e): e is Awaited<T> => e !== null);
  // One per key: every try of a create is the same create.
  const lostLeft = lost.filter((e, at) => !answered.has(e.key) && lost.findIndex((other) => other.key === e.key) === at);
  return {
    calls: (await keep([...started].map(([id, entry]) => ({ id, entry, session: entry.session })))).map(({ id, entry }) => ({ id, entry })),
    lost: await keep(lostLeft),
    unfinished: (await keep(unfinished.filter((e) => !e.key || !answered.has(e.key)))).map(
      (e) => `${e.tool} (session ${e.session}, ${dollars(centsToUnits(e.price_asked!))})`,
    ),
  };
}

/** What the person and the assistant are told of what was left, and of what this session ended of it; '' when nothing was left. */
export function leftOpenNote(left: { calls: string[]; lost: string[]; unfinished: string[]; ended: string[] }): string {
  const parts: string[] = [];
  if (left.ended.length)
    parts.push(
      `a svc mcp session that has ended (killed) left ${left.ended.length === 1 ? 'this call' : 'these calls'} running; this session ended ${left.ended.length === 1 ? 'it' : 'them'}: ${left.ended.join(', ')}`,
    );
  if (left.calls.length)
    parts.push(
      `a svc mcp session that has ended (killed) left ${left.calls.length === 1 ? 'this call' : 'these calls'} running: ${left.calls.join(', ')}; each may still be running, and billed in live mode, until ended (calls_end, or svc calls end ID)`,
    );
  if (left.lost.length)
    parts.push(
      `a svc mcp session that has ended sent ${left.lost.length === 1 ? 'this create' : 'these creates'} and never heard what was made (the same credential can learn it by sending it again with its Idempotency-Key): ${left.lost.join(', ')}`,
    );
  if (left.unfinished.length)
    parts.push(`billed calls an earlier session sent and never saw answered (their price may have been drawn): ${left.unfinished.join(', ')}`);
  return parts.join('. ');
}
