// The audit log's lines as written on disk: their format version, the files they are kept in,
// their shapes, and the few operations on a file that every part of the log shares (reading a
// file of it whole and parsed, a line's hash, a line appended whole or not at all).
import { ftruncateSync, writeSync } from 'node:fs';
import { lazyRequire } from '../node-require.js';
import { readOwnFile } from '../files/own-file.js';
import { NewerFormatFileError } from '../errors.js';
import { formatVersion } from '../shared/format-version.js';

/**
 * The format of the log's lines. 1: svc 0.1.0's, one line per call (its result), with no
 * version, session or link; a line without a version is read by its shape. 2: a call's intent
 * and result lines, each with `version`, its session and the hash of the line before (`prev`),
 * the head file the hash of the last line. 3: a billed call's `priced` line, `break` lines,
 * and a head naming the first retained line too (JSON: `first`, `current`, `last`).
 */
export const AUDIT_FORMAT = 3;

export const AUDIT_FILE = 'mcp-audit.ndjson';
export const HEAD_FILE = 'mcp-audit.head';
export const REFUSED_FILE = 'mcp-refused.ndjson';
/**
 * Every call that acted, one line each when its result is known, chained by hashes as the log
 * is and never rotated: no rotation, and no file removed but this one (which its head then
 * names), takes an act out of the record. Reads and refusals never come here.
 */
export const ACTS_FILE = 'mcp-acts.ndjson';
export const ACTS_HEAD_FILE = 'mcp-acts.head';
export const MAX_BYTES = 512 * 1024;
/** The refused calls' file, past which it becomes `.1`: at most twice this is kept. */
export const MAX_REFUSED_BYTES = 128 * 1024;
/** A carried line keeps the newest calls that acted within this many bytes: older ones give way to newer ones that acted, never to calls that did not. */
export const MAX_CARRIED_BYTES = 128 * 1024;
/**
 * Whether a call acted or may have: its result line says (the service's answer decides it);
 * a call with no result may have. Only lines of an svc that did not write `acted` are read by
 * their result, through the refusals that svc itself made before sending.
 */
export function actedOrMay(entry: Pick<AuditEntry, 'acted' | 'result'>): boolean {
  if (typeof entry.acted === 'boolean') return entry.acted;
  return !EARLIER_DID_NOTHING.has(entry.result);
}
/** What an earlier svc's result lines (with no `acted`) said when nothing was sent, or the service refused. */
const EARLIER_DID_NOTHING = new Set([
  'usage',
  'spend_cap',
  'declined',
  'confirmation_unavailable',
  'not_priceable',
  'rate_limited',
  'audit_unwritable',
  'invalid_input',
  'not_found',
]);
/** A session's refusals closer together than this after its last refused line are one line, with their count. */
export const REFUSED_WINDOW_MS = 1_000;
/** No file of the log is read past this (a hand-edited file can be anything). */
export const MAX_READ_BYTES = 64 * 1024 * 1024;
/** A head file is written in place at this size (its JSON padded), never truncated. */
export const HEAD_BYTES = 256;
/** sha256 in hex, as a head holds it. */
export const HASH = /^[0-9a-f]{64}$/;

/** The results a call's second line can say, besides svc's error codes. */
export type Outcome = 'ok' | 'refused' | 'failed' | 'cancelled' | 'disconnected' | (string & {});

export interface AuditLine {
  version: typeof AUDIT_FORMAT;
  /** sha256 (hex) of the line written before this one; '' for the first line of a log. */
  prev: string;
  session: string;
  /** The call's number in its session: its intent and result lines share it. */
  call: number;
  phase: 'intent' | 'priced' | 'result';
  time: string;
  tool: string;
  mode: 'test' | 'live';
  args?: Record<string, unknown>;
  /** On the intent line of a tool that may change or charge: the call is carried past rotations when it acted. */
  writes?: true;
  /** The Idempotency-Key its create is sent with, written before it is sent: the create can be asked again by it. */
  key?: string;
  /** Who the session's creates are made as (a digest of its credential): only the same may ask them again. */
  owner?: string;
  /** An intent written after the act (an end made when the log could not take its intent first). */
  late?: true;
  /**
   * On a result line: whether the call acted, by the service's answer: sent and answered 2xx, or
   * sent and not answered (it may have); false when never sent or refused by the service.
   */
  acted?: boolean;
  result?: Outcome;
  /** What the call was priced at before it was made, in cents; null when not billed. */
  price_asked?: number | null;
  ids?: string[];
  /** Live sessions: the session's own charges after the call, in cents. */
  spent?: number;
}

/**
 * A line saying the log did not match its head when a session opened it (`by: 'session'`), or
 * that the person accepted the log as it is (`by: 'person'`, `svc mcp log --verify --accept-break`).
 */
export interface BreakLine {
  version: typeof AUDIT_FORMAT;
  prev: string;
  phase: 'break';
  by: 'session' | 'person';
  session?: string;
  time: string;
  problems: string[];
}

/**
 * The calls that acted (or may have: unfinished) in a file a rotation drops, written as the first
 * line of the new file, so no flood of calls that did nothing pushes them out of the log.
 */
export interface CarriedLine {
  version: typeof AUDIT_FORMAT;
  prev: string;
  phase: 'carried';
  time: string;
  calls: Array<AuditEntry & { call: number }>;
}

/** One call as `svc mcp log` shows it: its intent joined with its result (`unfinished` when none was written). */
export interface AuditEntry {
  time: string;
  session: string;
  tool: string;
  mode: 'test' | 'live';
  args: Record<string, unknown>;
  price_asked: number | null;
  result: string;
  ids: string[];
  spent?: number;
  key?: string;
  owner?: string;
  acted?: boolean;
}

/** A line of the acts file: one call that acted, whole, chained to the line before. */
export interface ActLine extends AuditEntry {
  version: typeof AUDIT_FORMAT;
  prev: string;
  call: number;
}

/** A file of the log holding a line of a newer format: nothing of the log is read or written. */
export class AuditNewerFormatError extends NewerFormatFileError {
  constructor(path: string, found: number) {
    super('the MCP audit log', path, found, AUDIT_FORMAT);
  }
}

/** A line of the log as read: its text, and its value (undefined when it does not parse). */
export interface ReadLine {
  text: string;
  value: unknown;
  /** Read from the rotated file (`.1`). */
  rotated: boolean;
}

/** The lines of one file's text, each parsed; throws AuditNewerFormatError at a line of a newer format. */
export function parsedLines(text: string, path: string): ReadLine[] {
  const lines: ReadLine[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      value = undefined; // A line cut by a crash mid-write: the others still count.
    }
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      const format = formatVersion((value as { version?: unknown }).version, AUDIT_FORMAT, 1);
      if (format.kind === 'newer') throw new AuditNewerFormatError(path, format.version);
    }
    lines.push({ text: line, value, rotated: path.endsWith('.1') });
  }
  return lines;
}

export function hashOf(line: string): string {
  // node:crypto at the first line, not at start-up: svc mcp answers initialize before it writes any.
  return lazyRequire('node:crypto').createHash('sha256').update(line).digest('hex');
}

/** A file of the log, whole; null when there is none. */
export function readLogFile(path: string): string | null {
  return readOwnFile(path, { what: 'the MCP audit log', maxBytes: MAX_READ_BYTES });
}

/** A refusal, as the refused calls' file keeps it: the size and digest of its arguments, never the arguments. */
export interface Refusal {
  session: string;
  /** The clock's time, in ms. */
  now: number;
  tool: string;
  reason: string;
  args: unknown;
}

export interface RefusedLine {
  version: typeof AUDIT_FORMAT;
  time: string;
  session: string;
  count: number;
  tools: string[];
  reasons: string[];
  /** Every refused call's arguments together, in characters of JSON. */
  args_chars: number;
  /** The first 16 hex digits of the sha256 of the last call's arguments as JSON. */
  args_sha256: string;
}

/**
 * Appends `bytes` to the file at `fd` (now `size` long) whole, or not at all: a line cut short
 * (a full disk) is taken back off, and the write fails, so no act is made on a line that is
 * not there and no cut line is later taken for tampering.
 */
export function writeWhole(fd: number, bytes: Buffer, size: number, what: string): void {
  let wrote = 0;
  try {
    wrote = writeSync(fd, bytes);
  } catch (error) {
    ftruncateQuietly(fd, size);
    throw error;
  }
  if (wrote === bytes.length) return;
  ftruncateQuietly(fd, size);
  throw new Error(`only ${wrote} of the ${bytes.length} bytes of a line of ${what} could be written (is the disk full?)`);
}

function ftruncateQuietly(fd: number, size: number): void {
  try {
    ftruncateSync(fd, size);
  } catch {
    // Left as cut: --verify names the line that does not parse.
  }
}

export function isBreak(value: unknown): value is BreakLine {
  return (value as Partial<BreakLine> | null | undefined)?.phase === 'break';
}

export function isCarried(value: unknown): value is CarriedLine {
  return (value as Partial<CarriedLine> | null | undefined)?.phase === 'carried' && Array.isArray((value as CarriedLine).calls);
}
