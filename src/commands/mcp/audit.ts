// The audit log of `svc mcp`, in svc's config folder (made 0700 on first use), each file 0600.
// A tool call is two lines: its intent, written BEFORE the tool acts (a call whose intent
// cannot be written is not made), then its result (`ok`, `refused`, `failed`, `cancelled`,
// `disconnected`, or svc's error code). Every line names its session and carries the hash of
// the line written before it, and `mcp-audit.head` the hash of the last one, so `svc mcp log
// --verify` can tell a log that was altered or cut. One writer at a time across sessions (a
// file lock around append and rotation); past MAX_BYTES the file becomes `.1`.
//
// Each line names its format version (AUDIT_FORMAT): a log holding a line of a newer format is
// neither read, appended to nor rotated by this svc (docs/design.md, Distribution).
import { closeSync, constants, fstatSync, readSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { lazyRequire } from '../../node-require.js';
import { withFileLock } from '../../config/lock.js';
import { openOwnFile, readOwnFile, tightenOwnFile } from '../../config/own-file.js';
import { ConfigError, NewerFormatFileError } from '../../errors.js';
import { redactText } from '../../io/redact.js';
import { formatVersion } from '../../shared/format-version.js';
import { ID_PREFIX } from '../../contract/constants.js';

/** An object id of the API (docs/contract.md "Conventions"), anywhere in a text. */
const ID = new RegExp(`\\b(?:${Object.values(ID_PREFIX).join('|')})[A-Za-z0-9]{4,}\\b`, 'g');
/** Bearer tokens and JWT-shaped strings: secrets whatever issued them. */
const BEARER = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi;
const JWT = /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g;

/**
 * The format of the log's lines. 1: svc 0.1.0's, one line per call (its result), with no
 * version, session or link; a line without a version is read by its shape. 2: a call's intent
 * and result lines, each with `version`, its session and the hash of the line before (`prev`).
 * The head file holds the hash of the last line and has no format of its own.
 */
export const AUDIT_FORMAT = 2;

export const AUDIT_FILE = 'mcp-audit.ndjson';
export const HEAD_FILE = 'mcp-audit.head';
export const MAX_BYTES = 512 * 1024;
/** An argument's text longer than this is cut in the log, with its size said. */
const MAX_LOGGED_STRING = 200;
/**
 * A call's logged arguments are no longer than this as JSON, so no line comes near MAX_BYTES
 * and no call can rotate the log's history away on its own.
 */
const MAX_LOGGED_ARGS = 4096;
/** A logged value nests no deeper, and a list or object keeps no more members. */
const MAX_DEPTH = 4;
const MAX_MEMBERS = 20;
/** No file of the log is read past this (a hand-edited file can be anything). */
const MAX_READ_BYTES = 64 * 1024 * 1024;

/** The results a call's second line can say, besides svc's error codes. */
export type Outcome = 'ok' | 'refused' | 'failed' | 'cancelled' | 'disconnected' | (string & {});

export interface AuditLine {
  version: typeof AUDIT_FORMAT;
  /** sha256 (hex) of the line written before this one; '' for the first line of a log. */
  prev: string;
  session: string;
  /** The call's number in its session: its intent and result lines share it. */
  call: number;
  phase: 'intent' | 'result';
  time: string;
  tool: string;
  mode: 'test' | 'live';
  args?: Record<string, unknown>;
  result?: Outcome;
  /** What the call was priced at before it was made, in cents; null when not billed. */
  price_asked?: number | null;
  ids?: string[];
  /** Live sessions: the session's own charges after the call, in cents. */
  spent?: number;
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
function parsedLines(text: string, path: string): ReadLine[] {
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

function redacted(text: string): string {
  return redactText(text).replace(BEARER, '$1…').replace(JWT, 'eyJ…(a JWT)');
}

/** A value as it may be kept: secrets redacted at every depth, long texts cut with their size, bounded in depth and members. */
export function loggedValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    const cut = value.length > MAX_LOGGED_STRING * 4 ? value.slice(0, MAX_LOGGED_STRING * 4) : value;
    const clean = redacted(cut);
    return value.length > MAX_LOGGED_STRING ? `${clean.slice(0, MAX_LOGGED_STRING)}… (${value.length} characters)` : clean;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return `(${Array.isArray(value) ? 'a list' : 'an object'}, not kept)`;
  if (Array.isArray(value)) {
    const kept = value.slice(0, MAX_MEMBERS).map((v) => loggedValue(v, depth + 1));
    return value.length > MAX_MEMBERS ? [...kept, `… (${value.length} items)`] : kept;
  }
  const entries = Object.entries(value);
  const kept = entries.slice(0, MAX_MEMBERS).map(([k, v]) => [redacted(k).slice(0, 100), loggedValue(v, depth + 1)]);
  if (entries.length > MAX_MEMBERS) kept.push(['…', `${entries.length} properties`]);
  return Object.fromEntries(kept);
}

export function loggedArgs(args: unknown): Record<string, unknown> {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return args === undefined ? {} : withinSize({ value: loggedValue(args) });
  return withinSize(loggedValue(args) as Record<string, unknown>);
}

/** The first properties that fit in MAX_LOGGED_ARGS, and the size of the whole. */
function withinSize(logged: Record<string, unknown>): Record<string, unknown> {
  const size = JSON.stringify(logged).length;
  if (size <= MAX_LOGGED_ARGS) return logged;
  const note = `the arguments were ${size} characters as logged; the rest is not kept`;
  const kept: Record<string, unknown> = {};
  let used = JSON.stringify({ '…': note }).length;
  for (const [key, value] of Object.entries(logged)) {
    const entry = JSON.stringify({ [key]: value }).length - 1;
    if (used + entry > MAX_LOGGED_ARGS) break;
    kept[key] = value;
    used += entry;
  }
  kept['…'] = note;
  return kept;
}

/** Ids in a command's JSON output or its arguments: `call_…`, `chat_…`, `evt_…`, … */
export function idsIn(...values: unknown[]): string[] {
  const ids = new Set<string>();
  const text = values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v ?? null))).join(' ');
  for (const [id] of text.matchAll(ID)) {
    if (ids.size >= 50) break;
    ids.add(id);
  }
  return [...ids];
}

/** sha256 in hex. */
const HASH_CHARS = 64;

export function hashOf(line: string): string {
  // node:crypto at the first line, not at start-up: svc mcp answers initialize before it writes any.
  return lazyRequire('node:crypto').createHash('sha256').update(line).digest('hex');
}

/** A file of the log, whole; null when there is none. */
function readLogFile(path: string): string | null {
  return readOwnFile(path, { what: 'the MCP audit log', maxBytes: MAX_READ_BYTES });
}

export class AuditLog {
  readonly path: string;
  private readonly headPath: string;
  /** This session's appends, in order: the file lock orders them against other sessions. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly dir: string) {
    this.path = join(dir, AUDIT_FILE);
    this.headPath = join(dir, HEAD_FILE);
  }

  /**
   * The current file as far as this session has read it for a newer svc's lines (its inode and
   * size), so each append reads only what was added since; undefined before the first append.
   */
  private checked: { ino: number; size: number } | undefined;

  /**
   * Appends `line` (its version and `prev` filled in); rejects, writing nothing, when the log
   * cannot be written or holds a line of a newer format (AuditNewerFormatError).
   */
  append(line: Omit<AuditLine, 'prev' | 'version'>): Promise<void> {
    const next = this.queue.then(() => withFileLock(this.path, async () => this.appendLocked(line)));
    this.queue = next.catch(() => {});
    return next;
  }

  private appendLocked(line: Omit<AuditLine, 'prev' | 'version'>): void {
    let fd = this.openForAppend();
    try {
      const size = this.refuseNewer(fd);
      // Read after the check: a newer svc's head file is not this svc's to read.
      const text = JSON.stringify({ version: AUDIT_FORMAT, prev: this.headHash(), ...line });
      const bytes = Buffer.from(`${text}\n`);
      if (size > 0 && size + bytes.length > MAX_BYTES) {
        closeSync(fd);
        fd = -1;
        renameSync(this.path, `${this.path}.1`);
        fd = this.openForAppend();
      }
      writeSync(fd, bytes);
      const { ino, size: written } = fstatSync(fd);
      this.checked = { ino, size: written };
      this.writeHead(text);
    } finally {
      if (fd >= 0) closeSync(fd);
    }
  }

  /** The current file, opened to append and to read what other sessions appended. */
  private openForAppend(): number {
    const fd = openOwnFile(this.path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT, { what: 'the MCP audit log', maxBytes: MAX_READ_BYTES });
    tightenOwnFile(fd);
    return fd;
  }

  /**
   * Throws AuditNewerFormatError when the log holds a line of a newer format, reading only what
   * this session has not read yet (all of it, and the rotated file, when the file is not the one
   * it read); returns the current file's size.
   */
  private refuseNewer(fd: number): number {
    const { ino, size } = fstatSync(fd);
    const known = this.checked !== undefined && this.checked.ino === ino && this.checked.size <= size;
    const from = known ? this.checked!.size : 0;
    // A rotation would replace the rotated file: a newer svc's lines there are kept too.
    if (!known) parsedLines(readLogFile(`${this.path}.1`) ?? '', `${this.path}.1`);
    const added = Buffer.alloc(size - from);
    const read = readSync(fd, added, 0, added.length, from);
    parsedLines(added.subarray(0, read).toString('utf8'), this.path);
    return size;
  }

  private writeHead(text: string): void {
    // A hash is always the same length: written over the last one in place (truncating a file is slow on some file systems).
    const head = openOwnFile(this.headPath, constants.O_WRONLY | constants.O_CREAT, { what: 'the MCP audit log head' });
    try {
      tightenOwnFile(head);
      writeSync(head, `${hashOf(text)}\n`, 0);
    } finally {
      closeSync(head);
    }
  }

  /** The hash of the last line written, from the head file, else the log's own last line. */
  private headHash(): string {
    const head = readOwnFile(this.headPath, { what: 'the MCP audit log head', maxBytes: 1024 })?.slice(0, HASH_CHARS);
    if (head) return head;
    const last = (readLogFile(this.path) ?? '').trimEnd().split('\n').at(-1);
    return last ? hashOf(last) : '';
  }
}

/**
 * Every line kept, oldest first (the rotated file, then the current one), as written and
 * parsed; throws AuditNewerFormatError when a line is of a newer format.
 */
export function readAuditLines(dir: string): ReadLine[] {
  const path = join(dir, AUDIT_FILE);
  return [`${path}.1`, path].flatMap((file) => parsedLines(readLogFile(file) ?? '', file));
}

/** Every call kept, oldest first: intent and result joined; lines that do not parse are skipped. */
export function readAudit(dir: string): AuditEntry[] {
  const calls = new Map<string, AuditEntry>();
  for (const { value } of readAuditLines(dir)) {
    const line = value as AuditLine | null | undefined;
    if (line === undefined) continue; // A line cut by a crash mid-write: the others still count.
    if (typeof line?.session !== 'string' || (line.phase !== 'intent' && line.phase !== 'result')) {
      // An earlier svc wrote each call as one line, with no session: kept as it is.
      const earlier = line as unknown as Partial<AuditEntry> | null;
      if (typeof earlier?.tool === 'string' && typeof earlier.result === 'string')
        calls.set(`earlier#${calls.size}`, { session: '', args: {}, ids: [], price_asked: null, ...earlier } as AuditEntry);
      continue;
    }
    const key = `${line.session}#${line.call}`;
    const entry = calls.get(key) ?? {
      time: line.time,
      session: line.session,
      tool: line.tool,
      mode: line.mode,
      args: {},
      price_asked: null,
      result: 'unfinished',
      ids: [],
    };
    if (line.phase === 'intent') entry.args = line.args ?? {};
    else {
      entry.result = line.result ?? 'unfinished';
      entry.price_asked = line.price_asked ?? null;
      entry.ids = line.ids ?? [];
      if (line.spent !== undefined) entry.spent = line.spent;
    }
    calls.set(key, entry);
  }
  return [...calls.values()];
}

/** Whether each line's `prev` is the hash of the one before, and the last line is the head: the problems found, none when intact. */
export function verifyAudit(dir: string): { lines: number; unchained: number; problems: string[] } {
  const lines = readAuditLines(dir);
  const problems: string[] = [];
  /** Lines an earlier svc wrote before it chained them: only at the start of the log. */
  let unchained = 0;
  lines.forEach(({ value }, index) => {
    const line = value as Partial<AuditLine> | null | undefined;
    if (line === undefined) {
      problems.push(`line ${index + 1} is not a line svc wrote (it does not parse)`);
      return;
    }
    if (unchained === index && line !== null && typeof line === 'object' && !('prev' in line)) {
      unchained += 1;
      return;
    }
    // The rotated file's first line follows one rotated away: its link cannot be checked. A
    // first line outside it links to nothing, or the rotated file was there.
    if (index === 0 && !lines[0]!.rotated && line?.prev !== '')
      problems.push(`line 1 follows a line that is not kept: the rotated file (${AUDIT_FILE}.1) was removed, or lines were removed from the start`);
    if (index > 0 && line?.prev !== hashOf(lines[index - 1]!.text))
      problems.push(`line ${index + 1} does not follow line ${index} (a line was changed, removed or added)`);
  });
  const head = readOwnFile(join(dir, HEAD_FILE), { what: 'the MCP audit log head', maxBytes: 1024 })?.trimEnd();
  const last = lines.at(-1)?.text;
  // A log of svc 0.1.0's lines alone was never linked, and has no head file.
  if (last !== undefined && head !== hashOf(last) && (head || unchained < lines.length))
    problems.push(head ? 'the log ends before the last line svc wrote (it was cut) or its last line was changed' : 'the head file (mcp-audit.head) is missing');
  if (last === undefined && head) problems.push('the log is empty, but svc wrote lines to it (it was removed or cut)');
  return { lines: lines.length, unchained, problems };
}
