// What sessions known to be dead left open, read from the audit log: live calls with no end
// recorded, creates sent with their key and never answered, billed calls with no result.
import { readAudit, type AuditEntry } from './audit.js';
import { centsToUnits, dollars } from './budget.js';
import { sessionAlive } from './session.js';

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
      `a svc mcp session that has ended sent ${left.lost.length === 1 ? 'this create' : 'these creates'} and never heard what was made (the same credential can learn it by sending it again with its Idempotency-Key; \`svc calls list --status active\` names the calls still running): ${left.lost.join(', ')}`,
    );
  if (left.unfinished.length)
    parts.push(`billed calls an earlier session sent and never saw answered (their price may have been drawn): ${left.unfinished.join(', ')}`);
  return parts.join('. ');
}
