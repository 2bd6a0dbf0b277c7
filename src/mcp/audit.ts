// The audit log of `svc mcp`, in svc's config folder (made 0700 on first use), each file 0600.
// A tool call is two lines: its intent, written BEFORE the tool acts (a call whose intent
// cannot be written is not made), then its result (`ok`, `refused`, `failed`, `cancelled`,
// `disconnected`, or svc's error code); a billed call has a third between them, its price as
// reserved, so a call that never finished still shows what it may have cost. Every line names
// its session and carries the hash of the line written before it, and `mcp-audit.head` the
// hashes of the first and last lines retained, so `svc mcp log --verify` can tell a log that was
// altered or cut anywhere, the oldest file's first lines too. A session that finds the log not
// matching its head writes a break line saying so before its own, which --verify reports until
// the person accepts it (`--accept-break`). One writer at a time across sessions (a file lock
// around append and rotation); past MAX_BYTES the file becomes `.1`.
//
// Calls refused before they reached a command (an unknown tool, input a schema refuses) are
// kept apart, in `mcp-refused.ndjson`, bounded on their own and without their arguments: no
// number of them can push a call that ran out of the log.
//
// Each line names its format version (AUDIT_FORMAT): a log holding a line of a newer format is
// neither read, appended to nor rotated by this svc (docs/design.md, Distribution).
import { closeSync, constants, fstatSync, ftruncateSync, readSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { lazyRequire } from '../node-require.js';
import { withFileLock, withFileLockSync } from '../config/lock.js';
import { openOwnFile, readOwnFile, tightenOwnFile } from '../files/own-file.js';
import { ConfigError, NewerFormatFileError } from '../errors.js';
import { redactText } from '../io/redact.js';
import { formatVersion } from '../shared/format-version.js';
import { ID_PREFIX } from '../contract/constants.js';

/** Bearer tokens and JWT-shaped strings: secrets whatever issued them. */
const BEARER = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi;
const JWT = /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g;

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

/** A whole value that is an object id of the API (docs/contract.md "Conventions"). */
const WHOLE_ID = new RegExp(`^(?:${Object.values(ID_PREFIX).join('|')})[A-Za-z0-9]{4,}$`);
/** No call keeps more ids than this; nor is a value searched past this many fields. */
const MAX_IDS = 50;
const MAX_FIELDS_SEARCHED = 10_000;

/** Whether a field names ids: `id`, `call_id`, `ids`, `participant_ids`. */
const idField = (key: string) => key === 'id' || key === 'ids' || key.endsWith('_id') || key.endsWith('_ids');

/**
 * The ids a call touched: the values of id fields (`id`, `…_id`, `ids`, `…_ids`) in its
 * arguments and its result, the outermost first (an object's own id before its children's),
 * never ids written inside a text (a translation, a message), which anyone could have written.
 */
export function idsIn(...values: unknown[]): string[] {
  const ids = new Set<string>();
  const queue: unknown[] = [...values];
  let searched = 0;
  const take = (value: unknown) => {
    if (typeof value === 'string' && WHOLE_ID.test(value) && ids.size < MAX_IDS) ids.add(value);
  };
  for (let at = 0; at < queue.length && searched < MAX_FIELDS_SEARCHED && ids.size < MAX_IDS; at++) {
    const value = queue[at];
    if (value === null || typeof value !== 'object') continue;
    for (const [key, field] of Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value)) {
      searched += 1;
      if (idField(key)) {
        if (Array.isArray(field)) field.forEach(take);
        else take(field);
      }
      if (field !== null && typeof field === 'object') queue.push(field);
    }
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

/** The head file is written in place at this size (its JSON padded), never truncated. */
const HEAD_BYTES = 256;
const HASH = /^[0-9a-f]{64}$/;

/** The head file; null when there is none, every hash '' when it is not svc's. */
function readHead(path: string): Head | null {
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
interface ChainCheck {
  unchained: number;
  found: Found[];
  /** The last break line of any kind, and the last the person wrote (-1: none). */
  lastBreak: number;
  lastAccepted: number;
}

function isBreak(value: unknown): value is BreakLine {
  return (value as Partial<BreakLine> | null | undefined)?.phase === 'break';
}

function checkChain(lines: ReadLine[], head: Head | null): ChainCheck {
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
function headOf(lines: ReadLine[]): Head {
  const current = lines.find((l) => !l.rotated);
  return { first: lines[0] ? hashOf(lines[0].text) : '', current: current ? hashOf(current.text) : '', last: lines.length ? hashOf(lines.at(-1)!.text) : '' };
}

/** What `--verify` reports: the problems since the person last accepted the log, and the breaks sessions found since. */
function reported(lines: ReadLine[], check: ChainCheck): string[] {
  const problems = check.found.filter((f) => f.at < 0 || f.at > check.lastAccepted).map((f) => f.text);
  lines.forEach(({ value }, index) => {
    if (index <= check.lastAccepted || !isBreak(value) || value.by !== 'session') return;
    problems.push(
      `line ${index + 1}: on ${value.time}, a session found the log did not match its head and went on from there: ${(value.problems ?? []).join('; ')}`,
    );
  });
  return problems;
}

/** The part of the log an append writes with: the open file, its size, the head. */
interface Writing {
  fd: number;
  size: number;
  head: Head;
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

/** A session's refusals within REFUSED_WINDOW_MS of the last line written: one line, with their count. */
interface RefusedBatch {
  time: string;
  session: string;
  count: number;
  tools: Set<string>;
  reasons: Set<string>;
  args_chars: number;
  args_sha256: string;
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

/** A batch's tools and reasons keep no more names than this. */
const MAX_NAMES = 5;

export class AuditLog {
  readonly path: string;
  readonly refusedPath: string;
  private readonly headPath: string;
  /** This session's appends, in order: the file lock orders them against other sessions. */
  private queue: Promise<unknown> = Promise.resolve();
  /** When this session last wrote a refusal line, and the refusals since. */
  private refusedAt = -Infinity;
  private batch: RefusedBatch | undefined;

  constructor(readonly dir: string) {
    this.path = join(dir, AUDIT_FILE);
    this.headPath = join(dir, HEAD_FILE);
    this.refusedPath = join(dir, REFUSED_FILE);
  }

  /**
   * The current file as far as this session has read it for a newer svc's lines (its inode and
   * size), so each append reads only what was added since; undefined before the first append.
   */
  private checked: { ino: number; size: number } | undefined;

  /**
   * Appends `line` (its version and `prev` filled in); rejects, writing nothing, when the log
   * cannot be written or holds a line of a newer format (AuditNewerFormatError). The first
   * append of a session, and one after the file was replaced or its head removed, checks the
   * whole log against its head first: a log that does not match gets a break line before
   * `line`, which `--verify` reports until the person accepts it.
   */
  append(line: Omit<AuditLine, 'prev' | 'version'>): Promise<void> {
    const next = this.queue.then(() => withFileLockSync(this.path, () => this.appendLocked(line)));
    this.queue = next.catch(() => {});
    if (this.batch && Date.parse(line.time) - this.refusedAt >= REFUSED_WINDOW_MS) void this.flushRefused().catch(() => {});
    return next;
  }

  /** A call that acted, kept in the acts file (never rotated), after this session's earlier lines. */
  act(entry: AuditEntry & { call: number }): Promise<void> {
    const next = this.queue.then(() => appendAct(this.dir, entry));
    this.queue = next.catch(() => {});
    return next;
  }

  /**
   * The person's word that the log as it is now is the one to check from (`svc mcp log
   * --verify --accept-break`): a break line naming what was found, the head pinned to the
   * lines as they are. The problems accepted; none (and nothing written) when the log is intact.
   */
  acceptBreak(time: string): Promise<string[]> {
    const next = this.queue.then(() =>
      withFileLock(this.path, async () => {
        const lines = readAuditLines(this.dir);
        const acts = verifyActs(this.dir);
        const problems = [...reported(lines, checkChain(lines, readHead(this.headPath))), ...acts];
        if (problems.length === 0) return problems;
        this.write({ phase: 'break', by: 'person', time, problems }, headOf(lines));
        // The acts as they are now are the ones checked from: the acceptance, naming what was found, is a line of the log.
        if (acts.length) await withFileLock(join(this.dir, ACTS_FILE), async () => pinActs(this.dir));
        return problems;
      }),
    );
    this.queue = next.catch(() => {});
    return next;
  }

  private appendLocked(line: Omit<AuditLine, 'prev' | 'version'>): void {
    this.write(line, undefined);
  }

  /** Writes `line` chained to the head (read, and the log checked against it, when `pinned` is not given). */
  private write(line: Omit<AuditLine, 'prev' | 'version'> | Omit<BreakLine, 'prev' | 'version'>, pinned: Head | undefined): void {
    const writing: Writing = { fd: this.openForAppend(), size: 0, head: pinned ?? { first: '', current: '', last: '' } };
    try {
      const { size, known } = this.refuseNewer(writing.fd);
      writing.size = size;
      if (!pinned) {
        // Read after the newer-format check: a newer svc's head file is not this svc's to read.
        const head = readHead(this.headPath);
        writing.head = head ?? writing.head;
        if (!known || head === null || head.legacy) this.opening(writing, head, line);
      }
      this.writeLine(writing, line);
      const { ino, size: written } = fstatSync(writing.fd);
      this.checked = { ino, size: written };
      this.writeHead(writing.head);
    } finally {
      if (writing.fd >= 0) closeSync(writing.fd);
    }
  }

  /**
   * The log checked whole against its head: when they do not match (since the last break),
   * a break line naming what was found, and the chain goes on from the lines as they are.
   * Never a head rebuilt silently from whatever line is last.
   */
  private opening(writing: Writing, head: Head | null, line: { session?: string | undefined; time: string }): void {
    const lines = readAuditLines(this.dir);
    const check = checkChain(lines, head);
    const problems = check.found.filter((f) => f.at < 0 || f.at > check.lastBreak).map((f) => f.text);
    writing.head = headOf(lines);
    if (problems.length) this.writeLine(writing, { phase: 'break', by: 'session', session: line.session, time: line.time, problems });
  }

  /** One line appended, linked to the head's last; past MAX_BYTES the file becomes `.1` first. */
  private writeLine(writing: Writing, line: object): void {
    const text = JSON.stringify({ version: AUDIT_FORMAT, prev: writing.head.last, ...line });
    const bytes = Buffer.from(`${text}\n`);
    const hash = hashOf(text);
    const { head } = writing;
    let first = head.first || hash;
    if (writing.size > 0 && writing.size + bytes.length > MAX_BYTES) {
      // The file the rotation drops: its calls that acted go on, in the new file's first line.
      const carried = carriedCalls(parsedLines(readLogFile(`${this.path}.1`) ?? '', `${this.path}.1`));
      closeSync(writing.fd);
      writing.fd = -1;
      renameSync(this.path, `${this.path}.1`);
      writing.fd = this.openForAppend();
      writing.size = 0;
      // The oldest retained line is now the one the rotated file starts with.
      writing.head = { ...head, first: head.current || hash, current: '' };
      if (carried.length) this.writeLine(writing, { phase: 'carried', time: (line as { time?: string }).time ?? '', calls: carried });
      return this.writeLine(writing, line);
    }
    writeWhole(writing.fd, bytes, writing.size, 'the MCP audit log');
    writing.head = { first, current: writing.size === 0 ? hash : head.current || hash, last: hash };
    writing.size += bytes.length;
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
   * it read); the current file's size, and whether it is the one this session read.
   */
  private refuseNewer(fd: number): { size: number; known: boolean } {
    const { ino, size } = fstatSync(fd);
    const known = this.checked !== undefined && this.checked.ino === ino && this.checked.size <= size;
    const from = known ? this.checked!.size : 0;
    // A rotation would replace the rotated file: a newer svc's lines there are kept too.
    if (!known) parsedLines(readLogFile(`${this.path}.1`) ?? '', `${this.path}.1`);
    const added = Buffer.alloc(size - from);
    const read = readSync(fd, added, 0, added.length, from);
    parsedLines(added.subarray(0, read).toString('utf8'), this.path);
    return { size, known };
  }

  private writeHead(head: Head): void {
    // Always the same length: written over the last one in place (truncating a file is slow on some file systems).
    const file = openOwnFile(this.headPath, constants.O_WRONLY | constants.O_CREAT, { what: 'the MCP audit log head' });
    try {
      tightenOwnFile(file);
      const { first, current, last } = head;
      const bytes = Buffer.from(`${JSON.stringify({ first, current, last }).padEnd(HEAD_BYTES - 1)}\n`);
      const wrote = writeSync(file, bytes, 0, bytes.length, 0);
      if (wrote !== bytes.length) throw new Error(`only ${wrote} of the ${bytes.length} bytes of the MCP audit log head could be written (is the disk full?)`);
    } finally {
      closeSync(file);
    }
  }

  /**
   * A call refused before it reached a command (an unknown tool, input its schema or its
   * declaration refuses), kept apart from the calls that ran, so no number of refusals pushes
   * them out: its size and a digest, never its arguments, and a session's refusals within
   * REFUSED_WINDOW_MS of its last line are one line, with their count.
   */
  refused(refusal: Refusal): Promise<void> {
    const json = JSON.stringify(refusal.args ?? null) ?? '';
    const batch = this.batch ?? {
      time: new Date(refusal.now).toISOString(),
      session: refusal.session,
      count: 0,
      tools: new Set<string>(),
      reasons: new Set<string>(),
      args_chars: 0,
      args_sha256: '',
    };
    batch.count += 1;
    if (batch.tools.size < MAX_NAMES) batch.tools.add(String(loggedValue(refusal.tool.slice(0, 100))));
    if (batch.reasons.size < MAX_NAMES) batch.reasons.add(refusal.reason);
    batch.args_chars += json.length;
    batch.args_sha256 = hashOf(json).slice(0, 16);
    this.batch = batch;
    if (refusal.now - this.refusedAt < REFUSED_WINDOW_MS) return Promise.resolve();
    this.refusedAt = refusal.now;
    return this.flushRefused();
  }

  /** The refusals not written yet, as one line (at the end of a session, or when the next line comes). */
  flushRefused(): Promise<void> {
    const batch = this.batch;
    if (!batch) return Promise.resolve();
    this.batch = undefined;
    const line: RefusedLine = { version: AUDIT_FORMAT, ...batch, tools: [...batch.tools], reasons: [...batch.reasons] };
    return withFileLockSync(this.refusedPath, () => {
      const bytes = Buffer.from(`${JSON.stringify(line)}\n`);
      let fd = openOwnFile(this.refusedPath, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, {
        what: 'the MCP refused calls',
        maxBytes: MAX_READ_BYTES,
      });
      try {
        tightenOwnFile(fd);
        if (fstatSync(fd).size + bytes.length > MAX_REFUSED_BYTES) {
          closeSync(fd);
          fd = -1;
          renameSync(this.refusedPath, `${this.refusedPath}.1`);
          fd = openOwnFile(this.refusedPath, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, { what: 'the MCP refused calls' });
          tightenOwnFile(fd);
        }
        writeWhole(fd, bytes, fstatSync(fd).size, 'the MCP refused calls');
      } finally {
        if (fd >= 0) closeSync(fd);
      }
    });
  }
}

/** The acts file's head: the hash of its last line and how many it has, so removing or cutting the file shows. */
interface ActsHead {
  last: string;
  lines: number;
  /** What the first line kept links to: '' unless the person accepted a file cut at its start. */
  first?: string;
}

function readActsHead(dir: string): ActsHead | null {
  const text = readOwnFile(join(dir, ACTS_HEAD_FILE), { what: 'the MCP acts head', maxBytes: 4096 })?.trim();
  if (text === undefined) return null;
  try {
    const { last, lines, first } = JSON.parse(text) as Partial<ActsHead>;
    return {
      last: typeof last === 'string' && HASH.test(last) ? last : '',
      lines: Number.isSafeInteger(lines) ? lines! : -1,
      ...(typeof first === 'string' && HASH.test(first) ? { first } : {}),
    };
  } catch {
    return { last: '', lines: -1 };
  }
}

/** Appends one act to the acts file in `dir`, chained to its last line, and moves its head on; under the file's lock. */
export function appendAct(dir: string, entry: AuditEntry & { call: number }): Promise<void> {
  const path = join(dir, ACTS_FILE);
  return withFileLockSync(path, () => {
    const head = readActsHead(dir) ?? { last: '', lines: 0 };
    const fd = openOwnFile(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT, { what: 'the MCP acts', maxBytes: MAX_READ_BYTES });
    try {
      tightenOwnFile(fd);
      const text = JSON.stringify({ version: AUDIT_FORMAT, prev: head.last, ...entry });
      writeWhole(fd, Buffer.from(`${text}\n`), fstatSync(fd).size, 'the MCP acts');
      const headFd = openOwnFile(join(dir, ACTS_HEAD_FILE), constants.O_WRONLY | constants.O_CREAT, { what: 'the MCP acts head' });
      try {
        tightenOwnFile(headFd);
        const moved = { last: hashOf(text), lines: Math.max(0, head.lines) + 1, ...(head.first ? { first: head.first } : {}) };
        const bytes = Buffer.from(`${JSON.stringify(moved).padEnd(HEAD_BYTES - 1)}\n`);
        if (writeSync(headFd, bytes, 0, bytes.length, 0) !== bytes.length) throw new Error('the MCP acts head could not be written whole (is the disk full?)');
      } finally {
        closeSync(headFd);
      }
    } finally {
      closeSync(fd);
    }
  });
}

/** The acts head moved to the acts file as it is (the person accepted it). */
function pinActs(dir: string): void {
  const lines = readActLines(dir);
  const fd = openOwnFile(join(dir, ACTS_HEAD_FILE), constants.O_WRONLY | constants.O_CREAT, { what: 'the MCP acts head' });
  try {
    tightenOwnFile(fd);
    const prev = (lines[0]?.value as Partial<ActLine> | undefined)?.prev;
    const pinned = { last: lines.length ? hashOf(lines.at(-1)!.text) : '', lines: lines.length, ...(prev ? { first: prev } : {}) };
    const bytes = Buffer.from(`${JSON.stringify(pinned).padEnd(HEAD_BYTES - 1)}\n`);
    if (writeSync(fd, bytes, 0, bytes.length, 0) !== bytes.length) throw new Error('the MCP acts head could not be written whole (is the disk full?)');
  } finally {
    closeSync(fd);
  }
}

/** The acts kept, oldest first, as written and parsed. */
export function readActLines(dir: string): ReadLine[] {
  const path = join(dir, ACTS_FILE);
  return parsedLines(readLogFile(path) ?? '', path);
}

/** The acts file checked whole: each line chained to the one before, the last and the count the head's. */
export function verifyActs(dir: string): string[] {
  const lines = readActLines(dir);
  const head = readActsHead(dir);
  const problems: string[] = [];
  lines.forEach(({ value }, index) => {
    if (value === undefined) problems.push(`${ACTS_FILE} line ${index + 1} is not a line svc wrote (it does not parse)`);
    const expected = index === 0 ? (head?.first ?? '') : hashOf(lines[index - 1]!.text);
    if ((value as Partial<ActLine> | undefined)?.prev !== expected)
      problems.push(`${ACTS_FILE} line ${index + 1} does not follow ${index === 0 ? 'nothing (lines were removed from its start)' : `line ${index}`}`);
  });
  if (!head) {
    if (lines.length) problems.push(`the acts' head file (${ACTS_HEAD_FILE}) is missing`);
    return problems;
  }
  if (head.lines !== lines.length || (lines.length > 0 && head.last !== hashOf(lines.at(-1)!.text)))
    problems.push(
      lines.length === 0
        ? `${ACTS_FILE} was removed: svc recorded ${head.lines} acts in it`
        : `${ACTS_FILE} holds ${lines.length} acts, but svc wrote ${head.lines} (it was cut, or a line was changed)`,
    );
  return problems;
}

/**
 * Appends `bytes` to the file at `fd` (now `size` long) whole, or not at all: a line cut short
 * (a full disk) is taken back off, and the write fails, so no act is made on a line that is
 * not there and no cut line is later taken for tampering.
 */
function writeWhole(fd: number, bytes: Buffer, size: number, what: string): void {
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

function isCarried(value: unknown): value is CarriedLine {
  return (value as Partial<CarriedLine> | null | undefined)?.phase === 'carried' && Array.isArray((value as CarriedLine).calls);
}

/** The calls of a file that acted, or may have (unfinished), with those it carried itself: the newest within MAX_CARRIED_BYTES. */
function carriedCalls(lines: ReadLine[]): Array<AuditEntry & { call: number }> {
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
