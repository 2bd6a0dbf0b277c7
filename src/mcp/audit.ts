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
import { closeSync, constants, fstatSync, readSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { withFileLock, withFileLockSync } from '../config/lock.js';
import { openOwnFile, tightenOwnFile } from '../files/own-file.js';
import { appendAct, pinActs, verifyActs } from './audit-acts.js';
import { loggedValue } from './audit-args.js';
import { checkChain, headOf, readHead, reported, type Head } from './audit-chain.js';
import {
  ACTS_FILE,
  AUDIT_FILE,
  AUDIT_FORMAT,
  HEAD_BYTES,
  HEAD_FILE,
  MAX_BYTES,
  MAX_READ_BYTES,
  MAX_REFUSED_BYTES,
  REFUSED_FILE,
  REFUSED_WINDOW_MS,
  hashOf,
  parsedLines,
  readLogFile,
  writeWhole,
  type AuditEntry,
  type AuditLine,
  type BreakLine,
  type Refusal,
  type RefusedLine,
} from './audit-format.js';
import { carriedCalls, readAuditLines } from './audit-read.js';

export { appendAct, readActLines, verifyActs } from './audit-acts.js';
export { idsIn, loggedArgs, loggedValue } from './audit-args.js';
export { verifyAudit, type Head } from './audit-chain.js';
export {
  ACTS_FILE,
  ACTS_HEAD_FILE,
  AUDIT_FILE,
  AUDIT_FORMAT,
  AuditNewerFormatError,
  HEAD_FILE,
  MAX_BYTES,
  MAX_CARRIED_BYTES,
  MAX_REFUSED_BYTES,
  REFUSED_FILE,
  REFUSED_WINDOW_MS,
  actedOrMay,
  hashOf,
  type ActLine,
  type AuditEntry,
  type AuditLine,
  type BreakLine,
  type CarriedLine,
  type Outcome,
  type ReadLine,
  type Refusal,
  type RefusedLine,
} from './audit-format.js';
export { readAudit, readAuditLines, readRefused } from './audit-read.js';

/** The part of the log an append writes with: the open file, its size, the head. */
interface Writing {
  fd: number;
  size: number;
  head: Head;
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
