// `svc emulator --state FILE`: the world kept in one file, so that a restart keeps the org, its
// keys, apps, connections and everything else.
//
// Why a journal and not SQLite: node:sqlite exists only from Node 22.5 (behind a flag before
// 22.13), and svc supports Node >= 20.18; a native SQLite module would cost an install step for
// every user. A JSON-lines journal needs nothing but node:fs and stays readable.
//
// The file: line 1 is a snapshot (the export document), each later line one change: a record
// put or deleted, an event published, the sequence and clock, or a reset. Every request's
// changes are appended and fdatasync'ed BEFORE its answer leaves (server.ts), so a client never
// sees a 2xx for a change that a kill -9 can lose. On start the file is replayed, then rewritten
// as a single snapshot (temp file, fsync, rename), and again whenever the appended changes
// outgrow the snapshot, so the file stays bounded like the state itself.
//
// A write the disk refuses (ENOSPC) is cut back (ftruncate) to where it began, so no half line
// is ever followed by more. A commit that fails puts the world back to the file's synced part,
// which holds every change answered 2xx: the request is answered 507 (500 for another error),
// nothing of it is kept, so a retry is safe; a running request whose change that undid fails too.
// A crash can only leave the last line incomplete (that request was never answered): it is
// dropped, reported, and the file as it was is kept beside it as FILE.torn. Anything else that
// does not parse is reported with the path and line, and the file is never written.
//
// This file is the writer; state-file.ts reads the file back (replay), state-lock.ts keeps one
// emulator per file, and the atomic rewrite is the file toolkit's (src/files/).
import { AsyncLocalStorage } from 'node:async_hooks';
import { closeSync, existsSync, fdatasyncSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { HttpError } from '../errors.js';
import { empty, endUnauthorizedStreams } from '../state.js';
import type { EmulatorEvent, State, StateJournal } from '../state.js';
import { encodeRow, exportDocument } from './document.js';
import { copyTorn, fieldByName, metaLine, replay, STATE_FILE_FORMAT, StateFileError, summarize, type LoadSummary } from './state-file.js';
import { StateLock } from './state-lock.js';
import { isDiskFull } from '../../files/disk.js';
import { writeFileAtomicSync } from '../../files/atomic.js';

/** Buffered event lines written out (without sync) during a long burst, so the buffer stays small. */
const WRITE_EVERY_LINES = 4096;
/** Compact when the appended changes pass this many bytes and twice the last snapshot's size. */
const COMPACT_AFTER_BYTES = 64 * 1024 * 1024;

/** How the journal appends to its file and syncs it: node:fs, or in tests a disk that fills up. */
export interface JournalWrites {
  /** Writes from `offset` to the end of `buffer` (or part of it); answers how many bytes it wrote. */
  writeSync(fd: number, buffer: Buffer, offset: number): number;
  fdatasyncSync(fd: number): void;
}

const NODE_WRITES: JournalWrites = { writeSync: (fd, buffer, offset) => writeSync(fd, buffer, offset), fdatasyncSync };

/** One request as the journal follows it: whether it changed the world, and whether that change was undone. */
interface RequestMarks {
  changed: boolean;
  undone: boolean;
}

export class FileJournal implements StateJournal {
  #fd = -1;
  #state: State | null = null;
  #watching = 0;
  #pending = new Map<string, Set<string>>();
  #lines: string[] = [];
  #unsynced = false;
  #meta = '';
  /** Bytes of the file's snapshot line, then bytes appended after it, then of those the synced ones. */
  #snapshotBytes = 0;
  #appendedBytes = 0;
  #syncedBytes = 0;
  /** Where a failed write left the file to be cut back to (appended bytes kept) before anything more is appended. */
  #cutBackTo: number | null = null;
  /** A burst's early write failed: its lines wait for the request's commit. */
  #burstWriteFailed = false;
  /** Why the last commit failed: what a request whose change it undid is told. */
  #lastFailure: unknown = null;
  /** The seed as of the last sync: an undone reset must not leave its keys shown. */
  #syncedSeed: State['seed'] = null;
  /** The world could not be read back after a failed write: every request is refused until a restart. */
  #broken: string | null = null;
  #requests = new AsyncLocalStorage<RequestMarks>();
  #running = new Set<RequestMarks>();
  #lock: StateLock;

  constructor(
    readonly path: string,
    readonly writes: JournalWrites = NODE_WRITES,
  ) {
    this.#lock = new StateLock(path);
  }

  get watching(): boolean {
    return this.#watching > 0;
  }

  mark(collection: string, key: string): void {
    this.#noteChange();
    let keys = this.#pending.get(collection);
    if (!keys) this.#pending.set(collection, (keys = new Set()));
    keys.add(key);
  }

  reset(): void {
    this.#noteChange();
    this.#pending.clear();
    if (this.#state) this.#lines.push('{"reset":true}');
  }

  event(logKey: string, event: EmulatorEvent): void {
    if (!this.#state) return;
    this.#noteChange();
    this.#lines.push(`{"event":${JSON.stringify(logKey)},"e":${event.json}}`);
    if (this.#lines.length >= WRITE_EVERY_LINES && !this.#burstWriteFailed) {
      try {
        this.#writeOut();
      } catch {
        // The lines are kept; the request's commit writes them or undoes the request.
        this.#burstWriteFailed = true;
      }
    }
  }

  #noteChange(): void {
    const marks = this.#requests.getStore();
    if (marks) marks.changed = true;
  }

  /**
   * Runs one request; its changes (and any other request's so far) are on disk when this
   * resolves. When they cannot be written, the world is put back to what the file holds and the
   * request fails (507 for a full disk), as does every running request whose change that undid.
   */
  async request(changesState: boolean, handle: () => Promise<void>): Promise<void> {
    if (this.#broken) throw new HttpError(500, this.#broken);
    const marks: RequestMarks = { changed: false, undone: false };
    this.#running.add(marks);
    try {
      if (changesState) this.#watching++;
      try {
        await this.#requests.run(marks, handle);
      } finally {
        if (changesState) this.#watching--;
      }
      // Undone while it ran, then changed more (a burst's later slices): that goes too.
      if (marks.undone && marks.changed) this.#undo();
      else this.commit();
      if (marks.undone) throw this.#notKept(this.#lastFailure);
    } finally {
      this.#running.delete(marks);
    }
  }

  /** Writes the marked records as they are now, the events and the meta, and syncs; on failure undoes them and throws the answer. */
  commit(): void {
    const state = this.#state;
    if (!state) return;
    const pending = this.#pending;
    this.#pending = new Map();
    for (const [collection, keys] of pending) {
      const field = fieldByName.get(collection)!;
      const map = state[field] as Map<string, unknown>;
      for (const key of keys) {
        const value = Map.prototype.get.call(map, key);
        this.#lines.push(
          value === undefined ? JSON.stringify({ del: collection, key }) : JSON.stringify({ put: collection, row: encodeRow(field, key, value) }),
        );
      }
    }
    const meta = metaLine(state);
    // Also on its own: a clock move changes no record.
    if (meta !== this.#meta) {
      this.#lines.push(meta);
      this.#meta = meta;
    }
    try {
      this.#writeOut();
      if (!this.#unsynced) return;
      this.writes.fdatasyncSync(this.#fd);
    } catch (error) {
      this.#lastFailure = error;
      this.#undo();
      throw this.#notKept(error);
    }
    this.#unsynced = false;
    this.#syncedBytes = this.#appendedBytes;
    this.#syncedSeed = state.seed;
    this.#burstWriteFailed = false;
    if (this.#appendedBytes > Math.max(COMPACT_AFTER_BYTES, 2 * this.#snapshotBytes)) this.#compactIfRoom();
  }

  #writeOut(): void {
    if (this.#lines.length === 0) return;
    this.#cutBack();
    const buffer = Buffer.from(`${this.#lines.join('\n')}\n`);
    let offset = 0;
    try {
      while (offset < buffer.length) offset += this.writes.writeSync(this.#fd, buffer, offset);
    } catch (error) {
      // Never a half line in the file: cut back to where this write began (a call that failed may
      // have written some too); the lines stay buffered.
      this.#cutBackTo = this.#appendedBytes;
      this.#tryCutBack();
      throw error;
    }
    this.#lines = [];
    this.#appendedBytes += buffer.length;
    this.#unsynced = true;
  }

  #cutBack(): void {
    if (this.#cutBackTo === null) return;
    ftruncateSync(this.#fd, this.#snapshotBytes + this.#cutBackTo);
    this.#appendedBytes = this.#cutBackTo;
    this.#cutBackTo = null;
  }

  #tryCutBack(): void {
    try {
      this.#cutBack();
    } catch {
      // Tried again before the next write, and at close.
    }
  }

  /**
   * Puts the world back to what the file holds up to its last sync, which is everything answered
   * 2xx: the unsynced lines are dropped, and every running request that changed something is
   * marked undone (it will be answered as a failure).
   */
  #undo(): void {
    for (const marks of this.#running) {
      if (marks.changed) marks.undone = true;
      marks.changed = false;
    }
    this.#lines = [];
    this.#pending.clear();
    this.#unsynced = false;
    this.#burstWriteFailed = false;
    this.#cutBackTo = this.#syncedBytes;
    this.#tryCutBack();
    try {
      this.#reload();
    } catch (error) {
      this.#broken = `the emulator could not read its state file ${this.path} back after a failed write (${(error as Error).message}); restart it`;
      throw new HttpError(500, this.#broken);
    }
  }

  /** Replaces the world's records, events and sequence with the file's synced part; streams, the seed and the control plane's arrangements stay. */
  #reload(): void {
    const state = this.#state!;
    const text = readFileSync(this.path)
      .subarray(0, this.#snapshotBytes + this.#syncedBytes)
      .toString('utf8');
    const { subscribers, approvals, faults, rateWindows, sessions, authorizeRequests, stats, seq } = state;
    const seed = this.#syncedSeed;
    state.subscribers = new Set();
    // Detached meanwhile, so that emptying and replaying record nothing.
    this.#state = null;
    try {
      empty(state);
      replay(this.path, text, state);
    } finally {
      this.#state = state;
      Object.assign(state, { subscribers, seed, approvals, faults, rateWindows, sessions, authorizeRequests, stats });
      // An id once given out is never given again, though its event was undone.
      state.seq = Math.max(state.seq, seq);
      this.#pending.clear();
      this.#meta = '';
    }
    endUnauthorizedStreams(state);
  }

  /** The answer to a request whose change could not be put on disk (and was undone). */
  #notKept(error: unknown): HttpError {
    const full = isDiskFull(error);
    const cause = full ? `the disk is full (${(error as NodeJS.ErrnoException).code})` : (error as Error | null)?.message;
    return new HttpError(
      full ? 507 : 500,
      `could not save the change to the state file ${this.path}: ${cause}; nothing of this request was kept: ${full ? 'free space on its disk, then ' : ''}send it again`,
    );
  }

  /** Compaction after a sync is housekeeping: on a full disk the journal as it is stays whole, and it is tried again later. */
  #compactIfRoom(): void {
    try {
      this.compact();
    } catch {
      // The temp file is removed by compact(); the appended journal is still the truth.
    }
  }

  /** Rewrites the file as one snapshot of the world: temp file, fsync, rename, fsync of the folder (src/files/atomic.ts). */
  compact(): void {
    const state = this.#state!;
    // The dashboard's session secret beside the snapshot, not in it: exports never show it. An
    // older svc of the same format ignores the field.
    const first = { svc_emulator_state: STATE_FILE_FORMAT, session_secret: state.sessionSecret.toString('base64url'), snapshot: exportDocument(state) };
    const buffer = Buffer.from(`${JSON.stringify(first)}\n`);
    // The toolkit's atomic write, through the journal's own writes (a disk that fills up, in tests).
    writeFileAtomicSync(this.path, buffer, { write: (fd, bytes, offset) => this.writes.writeSync(fd, bytes, offset), syncFolder: true });
    if (this.#fd >= 0) closeSync(this.#fd);
    this.#fd = openSync(this.path, 'a');
    // In bytes, not characters: a failed write is cut back to an offset in the file.
    this.#snapshotBytes = buffer.length;
    this.#appendedBytes = 0;
    this.#syncedBytes = 0;
    this.#cutBackTo = null;
    this.#meta = metaLine(state);
  }

  /**
   * Takes the file's lock, then loads it into `state` (or, when it does not exist, keeps the world
   * `create` makes and writes it), and starts journaling. Throws StateFileError with the path.
   */
  open(state: State, create: () => void): LoadSummary {
    try {
      return this.#open(state, create);
    } catch (error) {
      // A disk too full for the lock or the first snapshot: said as such; the file is left as it is.
      if (!isDiskFull(error)) throw error;
      throw new StateFileError(
        this.path,
        `cannot write the state file ${this.path}: the disk is full; it was left as it is: free space on the disk that holds ${dirname(this.path)}`,
      );
    }
  }

  #open(state: State, create: () => void): LoadSummary {
    this.#lock.acquire();
    try {
      const notices: string[] = [];
      const loaded = existsSync(this.path);
      if (loaded) {
        const text = readFileSync(this.path, 'utf8');
        empty(state);
        const torn = replay(this.path, text, state);
        if (torn) {
          copyTorn(this.path);
          notices.push(`${this.path}: dropped an incomplete last record (a write cut short, never answered); the file as it was is kept in ${this.path}.torn`);
        }
      } else {
        create();
      }
      this.#pending.clear();
      this.#state = state;
      // Journal from here on: a clean snapshot first, so the file starts compact.
      this.compact();
      this.#syncedSeed = state.seed;
      return { path: this.path, loaded, ...summarize(state), notices };
    } catch (error) {
      this.#state = null;
      this.#lock.release();
      throw error;
    }
  }

  /** Loads the file into `state` for reading only (an export): locked meanwhile, never written. */
  read(state: State): LoadSummary {
    if (!existsSync(this.path)) throw new StateFileError(this.path, `no state file ${this.path}`);
    this.#lock.acquire();
    try {
      empty(state);
      const torn = replay(this.path, readFileSync(this.path, 'utf8'), state);
      const notices = torn ? [`${this.path}: its incomplete last record was left out`] : [];
      return { path: this.path, loaded: true, ...summarize(state), notices };
    } finally {
      this.#lock.release();
    }
  }

  close(): void {
    if (this.#state && this.#fd >= 0) {
      try {
        this.commit();
      } catch {
        // Nothing unsynced was answered 2xx, and the file is cut back to what was.
      } finally {
        this.#tryCutBack();
        closeSync(this.#fd);
        this.#fd = -1;
        this.#state = null;
      }
    }
    this.#lock.release();
  }
}
