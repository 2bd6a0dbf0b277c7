// A session of `svc mcp`: what was fixed when it started (its mode, cap, profile and base URL,
// through the runner it was given). The path every tool call takes is call-path.ts; what dead
// sessions left open, left-open.ts.
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
import { AuditLog, hashOf } from './audit.js';
import { Ledger } from './budget.js';
import type { MinuteMeter } from './minutes.js';
import { ownInput, type TypedInput } from './invoke.js';
import { toolError, type Ran } from './result.js';
import { leavesOf, toolsOf } from './tools.js';
import type { Session, ToolSpec } from './tool-spec.js';

/**
 * A call that would wait longer than this for the pace of the rate limit is refused at once
 * instead. A time, not a count: a burst that the limit clears at once is never refused.
 */
export const MAX_PACED_WAIT_MS = 5_000;

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
    run(path, input, signal, yes = false, key) {
      return runOther(
        {
          leaf: leaves.get(path)!,
          name: path,
          args: input.args,
          flags: input.flags,
          mode: session.mode,
          yes,
          ...(profile !== undefined ? { profile } : {}),
          ...(key !== undefined ? { idempotencyKey: key } : {}),
          ...(this.prices ? { knownPrices: this.prices } : {}),
        },
        signal,
      );
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

/** A controller aborted with `signal` (the process's end), or before it by the session itself. */
function haltedWith(signal: AbortSignal): AbortController {
  const halt = new AbortController();
  if (signal.aborted) halt.abort(signal.reason);
  else signal.addEventListener('abort', () => halt.abort(signal.reason), { once: true });
  return halt;
}
