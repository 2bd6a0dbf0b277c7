// `events tail --checkpoint FILE`: the id of the last event handled (or, before the first
// event, the position the stream opened with, docs/contract.md "Events"), so that a tail
// started again (after a crash, a kill or a reboot) resumes right after it.
//
// "Handled" means printed and, with --forward-to, settled on every route that wants it
// (delivered, or given up and written to the dead-letter file). The file is replaced
// atomically after each handled event (temp file + rename: a kill leaves the old id or the
// new one, never a torn file), before the next delivery can start, so at most the event in
// flight at a kill is delivered again. fsync (for a power loss) is done at most once a
// second and at the end: after a power cut the file may lag by up to a second of events,
// which are then delivered again — repeats a handler drops by Svc-Event-Id, never losses.
import { closeSync, constants, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { NewerFormatFileError, UsageError } from '../errors.js';
import { openOwnFile, OwnFileRefusedError, readOwnFile } from '../files/own-file.js';
import { unusableFile, writeFailure } from './record.js';
import { isResumableId } from '../api/reconnect.js';
import { formatVersion } from '../shared/format-version.js';

/** The position before the first event of all (docs/contract.md "Events", Position frame). */
export const START_POSITION = 'start';

/** The format a checkpoint is written in ("version"); one without the field (as svc 0.1.0 wrote) is format 1. */
export const CHECKPOINT_FORMAT = 1;

export interface CheckpointFile {
  version: number;
  last_event_id: string;
  updated_at: string;
}

/** The id stored in FILE; undefined when the file does not exist yet. A FIFO, device, link or file over 1 MiB is refused unread. */
export function readCheckpoint(path: string): string | undefined {
  let text: string | null;
  try {
    text = readOwnFile(path, { what: '--checkpoint' });
  } catch (error) {
    if (error instanceof OwnFileRefusedError) throw unusableFile('--checkpoint', path, error);
    throw new UsageError(`--checkpoint ${path}: cannot read it (${(error as Error).message})`);
  }
  if (text === null) return undefined;
  // Never read as "start from the live events": that would silently skip what was missed.
  if (text.trim() === '') {
    throw new UsageError(`--checkpoint ${path} is empty`, 'delete it to start from the live events, or start after a known event with --since evt_…');
  }
  let newer: NewerFormatFileError | undefined;
  try {
    const parsed = JSON.parse(text) as Partial<CheckpointFile>;
    const format = formatVersion(parsed.version, CHECKPOINT_FORMAT, 1);
    if (format.kind === 'newer') newer = new NewerFormatFileError('the --checkpoint file', path, format.version, CHECKPOINT_FORMAT);
    const id = format.kind === 'readable' ? parsed.last_event_id : undefined;
    // Any id the tail stores (an event id, a position such as `start`): one a header can carry.
    if (typeof id === 'string' && isResumableId(id)) return id;
  } catch {
    // reported below
  }
  if (newer) throw newer;
  throw new UsageError(`--checkpoint ${path} is not a checkpoint file written by svc`, 'give another file, or delete this one to start from the live events');
}

function fsyncPath(path: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    fsyncSync(fd);
  } catch {
    // Best effort: some file systems refuse fsync on a directory.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export class CheckpointWriter {
  private written: string | undefined;
  private lastSyncAt = 0;
  private unsynced = false;
  private readonly temp: string;

  constructor(
    private readonly path: string,
    private readonly now: () => number,
    private readonly syncEveryMs = 1000,
  ) {
    this.temp = `${path}.${process.pid}.tmp`;
  }

  /**
   * A writer for FILE, checked at start: its folder takes the temporary file the writes go
   * through, so a path that cannot be written fails before any event is consumed.
   */
  static open(path: string, now: () => number): CheckpointWriter {
    const writer = new CheckpointWriter(path, now);
    try {
      closeSync(writer.openTemp());
      unlinkSync(writer.temp);
    } catch (error) {
      throw unusableFile('--checkpoint', path, error);
    }
    return writer;
  }

  /** The temporary file, emptied: a regular file, never a link followed to another. */
  private openTemp(): number {
    return openOwnFile(this.temp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, { what: '--checkpoint' });
  }

  /** Replaces the file with `id` (synchronously: nothing else runs between). */
  write(id: string): void {
    if (id === this.written) return;
    const body: CheckpointFile = { version: CHECKPOINT_FORMAT, last_event_id: id, updated_at: new Date(this.now()).toISOString() };
    const fd = this.openTemp();
    try {
      writeSync(fd, JSON.stringify(body) + '\n');
    } catch (error) {
      // The checkpoint keeps its last id; no half-written temporary file is left beside it.
      closeSync(fd);
      try {
        unlinkSync(this.temp);
      } catch {
        // Already gone: nothing is left behind either way.
      }
      throw writeFailure(this.path, error);
    }
    closeSync(fd);
    renameSync(this.temp, this.path);
    this.written = id;
    this.unsynced = true;
    if (this.now() - this.lastSyncAt >= this.syncEveryMs) this.sync();
  }

  /** Makes the last write durable (file and directory). */
  sync(): void {
    if (!this.unsynced) return;
    fsyncPath(this.path);
    fsyncPath(dirname(this.path));
    this.unsynced = false;
    this.lastSyncAt = this.now();
  }

  get last(): string | undefined {
    return this.written;
  }
}

/**
 * Which events are handled, in stream order: each is waited on by its routes (and its
 * printing); the checkpoint is the newest event with every event before it handled too.
 */
export class HandledTracker {
  private readonly queue: Array<{ id: string; seq: number; pending: number }> = [];
  private head = 0;
  private readonly byId = new Map<string, { id: string; seq: number; pending: number }>();
  private seq = 0;
  private printedSeq = 0;

  constructor(private readonly onHandled: (id: string) => void) {}

  /** A new event, waited on by `routes` deliveries (0: only its printing). Returns its sequence number. */
  add(id: string, routes: number): number {
    const entry = { id, seq: ++this.seq, pending: routes };
    this.queue.push(entry);
    if (routes > 0) this.byId.set(id, entry);
    return entry.seq;
  }

  /** One route settled this event (delivered or given up). */
  settled(id: string): void {
    const entry = this.byId.get(id);
    if (!entry) return;
    if (--entry.pending <= 0) this.byId.delete(id);
    this.advance();
  }

  /** Everything up to sequence number `seq` has been written to stdout. */
  printedThrough(seq: number): void {
    if (seq > this.printedSeq) this.printedSeq = seq;
    this.advance();
  }

  private advance(): void {
    let handled: string | undefined;
    while (this.head < this.queue.length) {
      const entry = this.queue[this.head]!;
      if (entry.pending > 0 || entry.seq > this.printedSeq) break;
      handled = entry.id;
      this.head++;
    }
    if (this.head > 4096) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
    if (handled !== undefined) this.onHandled(handled);
  }
}
