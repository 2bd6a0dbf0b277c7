// The audit log checked: each line's link to the one before, the first and last lines against
// the head file, the breaks sessions found and the person accepted, and the acts file beside it.
import { join } from 'node:path';
import { readActLines, verifyActs } from './audit-acts.js';
import { readAuditLines } from './audit-read.js';
import { readOwnFile } from '../files/own-file.js';
import { AUDIT_FILE, ACTS_FILE, HASH, HEAD_FILE, hashOf, isBreak, type ActLine, type AuditLine, type BreakLine, type ReadLine } from './audit-format.js';

/**
 * What the retained chain must start and end with (hashes; '' when not known): its first
 * line (the oldest file's first, moved on at rotation), the current file's first (which
 * becomes the oldest at the next rotation), and the last line written. A head of format 2
 * held the last line's hash alone (`legacy`).
 */
export interface Head {
  first: string;
  current: string;
  last: string;
  legacy?: true;
}

/** The head file; null when there is none, every hash '' when it is not svc's. */
export function readHead(path: string): Head | null {
  const text = readOwnFile(path, { what: 'the MCP audit log head', maxBytes: 4096 })?.trim();
  if (text === undefined) return null;
  if (HASH.test(text)) return { first: '', current: '', last: text, legacy: true };
  try {
    const { first, current, last } = JSON.parse(text) as Partial<Head>;
    const hash = (value: unknown) => (typeof value === 'string' && HASH.test(value) ? value : '');
    return { first: hash(first), current: hash(current), last: hash(last) };
  } catch {
    return { first: '', current: '', last: '' };
  }
}

/** A problem found in the log, at a line (its index) or of the whole (-1). */
interface Found {
  at: number;
  text: string;
}

/** The retained lines checked against each other and the head. */
export interface ChainCheck {
  unchained: number;
  found: Found[];
  /** The last break line of any kind, and the last the person wrote (-1: none). */
  lastBreak: number;
  lastAccepted: number;
}

export function checkChain(lines: ReadLine[], head: Head | null): ChainCheck {
  const found: Found[] = [];
  let unchained = 0;
  let lastBreak = -1;
  let lastAccepted = -1;
  lines.forEach(({ value }, index) => {
    const line = value as Partial<AuditLine> | Partial<BreakLine> | null | undefined;
    if (line === undefined) return void found.push({ at: index, text: `line ${index + 1} is not a line svc wrote (it does not parse)` });
    if (unchained === index && line !== null && typeof line === 'object' && !('prev' in line)) return void (unchained += 1);
    if (isBreak(line)) {
      lastBreak = index;
      if (line.by === 'person') lastAccepted = index;
    }
    if (index > 0 && line?.prev !== hashOf(lines[index - 1]!.text))
      found.push({ at: index, text: `line ${index + 1} does not follow line ${index} (a line was changed, removed or added)` });
  });
  const first = lines[0];
  if (first && head?.first && hashOf(first.text) !== head.first) {
    found.push({
      at: -1,
      text: first.rotated
        ? `line 1 is not the first line svc kept: lines were removed from the start of ${AUDIT_FILE}.1`
        : `line 1 is not the first line svc kept: the rotated file (${AUDIT_FILE}.1) was removed, or lines were removed from the start`,
    });
  } else if (first && !head?.first && unchained === 0 && !first.rotated && (first.value as Partial<AuditLine> | null)?.prev !== '') {
    // A head of format 2 names no first line: a first line outside the rotated file links to nothing, or that file was there.
    found.push({
      at: -1,
      text: `line 1 follows a line that is not kept: the rotated file (${AUDIT_FILE}.1) was removed, or lines were removed from the start`,
    });
  }
  const last = lines.at(-1)?.text;
  // A log of svc 0.1.0's lines alone was never linked, and has no head file.
  if (last !== undefined && head?.last !== hashOf(last) && (head || unchained < lines.length))
    found.push({
      at: -1,
      text: head ? 'the log ends before the last line svc wrote (it was cut) or its last line was changed' : 'the head file (mcp-audit.head) is missing',
    });
  if (last === undefined && head?.last) found.push({ at: -1, text: 'the log is empty, but svc wrote lines to it (it was removed or cut)' });
  return { unchained, found, lastBreak, lastAccepted };
}

/** The head the retained lines as they are now would have. */
export function headOf(lines: ReadLine[]): Head {
  const current = lines.find((l) => !l.rotated);
  return { first: lines[0] ? hashOf(lines[0].text) : '', current: current ? hashOf(current.text) : '', last: lines.length ? hashOf(lines.at(-1)!.text) : '' };
}

/** What `--verify` reports: the problems since the person last accepted the log, and the breaks sessions found since. */
export function reported(lines: ReadLine[], check: ChainCheck): string[] {
  const problems = check.found.filter((f) => f.at < 0 || f.at > check.lastAccepted).map((f) => f.text);
  lines.forEach(({ value }, index) => {
    if (index <= check.lastAccepted || !isBreak(value) || value.by !== 'session') return;
    problems.push(
      `line ${index + 1}: on ${value.time}, a session found the log did not match its head and went on from there: ${(value.problems ?? []).join('; ')}`,
    );
  });
  return problems;
}

/**
 * Whether the log is as svc wrote it: each line's `prev` the hash of the one before, the first
 * and last lines the head's, and no break a session found since the person last accepted the
 * log (`--accept-break`). The problems found, none when intact.
 */
export function verifyAudit(dir: string): { lines: number; unchained: number; problems: string[] } {
  const lines = readAuditLines(dir);
  const check = checkChain(lines, readHead(join(dir, HEAD_FILE)));
  const problems = [...reported(lines, check), ...verifyActs(dir), ...actsMissing(lines, readActLines(dir))];
  return { lines: lines.length, unchained: check.unchained, problems };
}

/** Calls the log's result lines say acted that the acts file does not hold (it was edited). */
function actsMissing(lines: ReadLine[], acts: ReadLine[]): string[] {
  const held = new Set(acts.map(({ value }) => `${(value as Partial<ActLine> | undefined)?.session}#${(value as Partial<ActLine> | undefined)?.call}`));
  const missing: string[] = [];
  for (const { value } of lines) {
    const line = value as Partial<AuditLine> | undefined;
    if (line?.phase === 'result' && line.acted === true && !held.has(`${line.session}#${line.call}`))
      missing.push(`${line.tool} (session ${line.session}, call ${line.call})`);
  }
  return missing.length ? [`${ACTS_FILE} lacks ${missing.length === 1 ? 'a call' : 'calls'} the log says acted: ${missing.slice(0, 5).join(', ')}`] : [];
}
