// The audit log read back: every line kept (the rotated file, then the current one), the calls
// they record (intent, price and result joined), the calls a rotation carries on, the refusals.
import { join } from 'node:path';
import { readActLines } from './audit-acts.js';
import {
  AUDIT_FILE,
  MAX_CARRIED_BYTES,
  REFUSED_FILE,
  actedOrMay,
  isBreak,
  isCarried,
  parsedLines,
  readLogFile,
  type ActLine,
  type AuditEntry,
  type AuditLine,
  type ReadLine,
  type RefusedLine,
} from './audit-format.js';

/**
 * Every line kept, oldest first (the rotated file, then the current one), as written and
 * parsed; throws AuditNewerFormatError when a line is of a newer format.
 */
export function readAuditLines(dir: string): ReadLine[] {
  const path = join(dir, AUDIT_FILE);
  return [`${path}.1`, path].flatMap((file) => parsedLines(readLogFile(file) ?? '', file));
}

/** The refused calls kept, oldest first; lines that do not parse are skipped. */
export function readRefused(dir: string): RefusedLine[] {
  const path = join(dir, REFUSED_FILE);
  return [`${path}.1`, path]
    .flatMap((file) => parsedLines(readLogFile(file) ?? '', file))
    .map(({ value }) => value as RefusedLine)
    .filter((line) => typeof line?.count === 'number' && Array.isArray(line.tools));
}

/** Every call kept, oldest first: intent and result joined; lines that do not parse are skipped. */
export function readAudit(dir: string): AuditEntry[] {
  const calls = new Map<string, AuditEntry>();
  for (const { value } of readAuditLines(dir)) {
    if (isCarried(value)) {
      for (const { call, ...entry } of value.calls) if (!calls.has(`${entry.session}#${call}`)) calls.set(`${entry.session}#${call}`, entry);
      continue;
    }
    const line = value as AuditLine | null | undefined;
    if (line === undefined || isBreak(line)) continue; // A line cut by a crash mid-write: the others still count.
    if (typeof line?.session !== 'string' || !['intent', 'priced', 'result'].includes(line.phase)) {
      // An earlier svc wrote each call as one line, with no session: kept as it is.
      const earlier = line as unknown as Partial<AuditEntry> | null;
      if (typeof earlier?.tool === 'string' && typeof earlier.result === 'string')
        calls.set(`earlier#${calls.size}`, { session: '', args: {}, ids: [], price_asked: null, ...earlier } as AuditEntry);
      continue;
    }
    const key = `${line.session}#${line.call}`;
    calls.set(key, joined(calls.get(key), line));
  }
  // The acts file holds every call that acted: one the rotated files no longer hold is still shown.
  for (const { value } of readActLines(dir)) {
    const act = value as Partial<ActLine> | undefined;
    if (typeof act?.session !== 'string' || typeof act.call !== 'number' || typeof act.tool !== 'string') continue;
    const key = `${act.session}#${act.call}`;
    const { version: _version, prev: _prev, call: _call, ...entry } = act as ActLine;
    const known = calls.get(key);
    if (!known || known.result === 'unfinished') calls.set(key, entry);
  }
  // Calls carried past a rotation come before the lines of the files kept: in the order they were made.
  return [...calls.values()].sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
}

/** A call's entry with one more of its lines (intent, price, result) joined in. */
function joined(before: AuditEntry | undefined, line: AuditLine): AuditEntry {
  const entry: AuditEntry = before ?? {
    time: line.time,
    session: line.session,
    tool: line.tool,
    mode: line.mode,
    args: {},
    price_asked: null,
    result: 'unfinished',
    ids: [],
  };
  if (line.phase === 'intent') {
    entry.args = line.args ?? {};
    if (typeof line.key === 'string') entry.key = line.key;
    if (typeof line.owner === 'string') entry.owner = line.owner;
  } else if (line.phase === 'priced') entry.price_asked = line.price_asked ?? null;
  else {
    entry.result = line.result ?? 'unfinished';
    entry.price_asked = line.price_asked ?? entry.price_asked;
    entry.ids = line.ids ?? [];
    if (line.spent !== undefined) entry.spent = line.spent;
    if (typeof line.acted === 'boolean') entry.acted = line.acted;
  }
  return entry;
}

/** The calls of a file that acted, or may have (unfinished), with those it carried itself: the newest within MAX_CARRIED_BYTES. */
export function carriedCalls(lines: ReadLine[]): Array<AuditEntry & { call: number }> {
  const calls = new Map<string, AuditEntry & { call: number; writes: boolean }>();
  for (const { value } of lines) {
    if (isCarried(value)) {
      for (const entry of value.calls) calls.set(`${entry.session}#${entry.call}`, { ...entry, writes: true });
      continue;
    }
    const line = value as AuditLine | undefined;
    if (typeof line?.session !== 'string' || typeof line.call !== 'number' || !['intent', 'priced', 'result'].includes(line.phase)) continue;
    const key = `${line.session}#${line.call}`;
    const before = calls.get(key);
    const writes = line.phase === 'intent' ? line.writes === true : (before?.writes ?? false);
    calls.set(key, { ...joined(before, line), call: line.call, writes });
  }
  const acted = [...calls.values()].filter((e) => (e.writes || e.price_asked !== null) && actedOrMay(e)).map(({ writes: _writes, ...entry }) => entry);
  const kept: typeof acted = [];
  let size = 0;
  for (const entry of acted.reverse()) {
    size += JSON.stringify(entry).length + 1;
    if (size > MAX_CARRIED_BYTES) break;
    kept.unshift(entry);
  }
  return kept;
}
