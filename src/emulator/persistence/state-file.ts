// The state file of `svc emulator --state FILE` as it is read: line 1 a snapshot (the export
// document, with the dashboard's session secret beside it), each later line one change (a
// record put or deleted, an event published, the sequence and clock, or a reset), replayed in
// order onto an emptied world. journal.ts writes it.
import { copyFileSync, rmSync } from 'node:fs';
import { eventFromJson, eventLogByKey, retain, seqOfEventId } from '../events.js';
import { empty } from '../state.js';
import type { PersistedCollection, State } from '../state.js';
import { PERSISTED } from '../state.js';
import { importDocument, InvalidDocumentError, NewerFormatError, parseRow, rebuildIndexes, refuseNewer } from './document.js';
import { newerFormatMessage } from '../../shared/format-version.js';

/** The state file's own format (its first line's "svc_emulator_state"); the snapshot is a document of its own version. */
export const STATE_FILE_FORMAT = 1;
export class StateFileError extends Error {
  constructor(
    readonly path: string,
    message: string,
    /** Set when the file was written by a newer svc: the CLI reports that one way for every file. */
    readonly newer?: { found: number; newest: number },
  ) {
    super(message);
  }
}

export interface LoadSummary {
  path: string;
  /** false: the file did not exist and was created from the seed (or an import). */
  loaded: boolean;
  orgs: { id: string; name: string }[];
  keys: number;
  apps: number;
  events: number;
  /** Things the user should know (a dropped incomplete last record). */
  notices: string[];
}

/** Keeps the file as it was beside it (FILE.torn); a copy the disk cut short is removed. */
export function copyTorn(path: string): void {
  try {
    copyFileSync(path, `${path}.torn`);
  } catch (error) {
    rmSync(`${path}.torn`, { force: true });
    throw error;
  }
}

/** The sequence and the clock: the two facts outside the collections. */
export function metaLine(state: State): string {
  return JSON.stringify({ meta: { seq: state.seq, clock_offset_ms: state.clock.offsetMs() } });
}

export const fieldByName = new Map<string, PersistedCollection>((Object.keys(PERSISTED) as PersistedCollection[]).map((field) => [PERSISTED[field], field]));

export function summarize(state: State): Omit<LoadSummary, 'path' | 'loaded' | 'notices'> {
  let events = 0;
  for (const log of state.eventLogs.values()) events += Math.min(log.events.length, 10_000);
  return {
    orgs: [...Map.prototype.values.call(state.orgs)].map((org) => ({ id: org.id, name: org.name })),
    keys: state.keys.size,
    apps: state.apps.size,
    events,
  };
}

/** Applies a state file to an emptied state; answers whether its last line was incomplete. */
export function replay(path: string, text: string, state: State): boolean {
  const end = text.lastIndexOf('\n');
  const torn = end !== text.length - 1;
  const lines = (end < 0 ? '' : text.slice(0, end)).split('\n');
  if (end < 0 || lines[0] === '') {
    throw new StateFileError(path, `the state file ${path} is incomplete or empty (no snapshot line); it was left as it is`);
  }
  let lineNumber = 0;
  try {
    for (const line of lines) {
      lineNumber++;
      const record = JSON.parse(line) as Record<string, unknown>;
      if (lineNumber === 1) {
        refuseNewer(record.svc_emulator_state, STATE_FILE_FORMAT);
        if (record.svc_emulator_state !== STATE_FILE_FORMAT || typeof record.snapshot !== 'object')
          throw new InvalidDocumentError('not an svc emulator state file (no snapshot)');
        importDocument(state, record.snapshot);
        const secret = typeof record.session_secret === 'string' ? Buffer.from(record.session_secret, 'base64url') : null;
        // A file without one (svc 0.1.0's) keeps the secret this start made.
        if (secret?.length === 32) state.sessionSecret = secret;
      } else if (typeof record.put === 'string') {
        const [field, key, value] = parseRow(record.put, record.row);
        (state[field] as Map<string, unknown>).set(key, value);
      } else if (typeof record.del === 'string') {
        const [field] = [fieldByNameOrThrow(record.del)];
        (state[field] as Map<string, unknown>).delete(String(record.key));
      } else if (typeof record.event === 'string') {
        const event = record.e as { id?: unknown; type?: unknown };
        const seq = seqOfEventId(String(event?.id));
        if (seq === null || typeof event.type !== 'string') throw new InvalidDocumentError('an event record without an event id and type');
        retain(eventLogByKey(state, record.event), eventFromJson(seq, String(event.id), event.type, JSON.stringify(event)));
        state.seq = Math.max(state.seq, seq);
      } else if (record.meta && typeof record.meta === 'object') {
        const meta = record.meta as { seq?: unknown; clock_offset_ms?: unknown };
        if (typeof meta.seq === 'number') state.seq = Math.max(state.seq, meta.seq);
        if (typeof meta.clock_offset_ms === 'number') state.clock.restoreOffset(meta.clock_offset_ms);
      } else if (record.reset === true) {
        empty(state);
      } else {
        throw new InvalidDocumentError('an unknown record');
      }
    }
  } catch (error) {
    if (error instanceof NewerFormatError) {
      const { message, hint } = newerFormatMessage('the emulator state file', path, error.found, error.newest);
      throw new StateFileError(path, `${message}: ${hint}`, { found: error.found, newest: error.newest });
    }
    const reason = error instanceof SyntaxError ? 'not JSON' : (error as Error).message;
    throw new StateFileError(path, `the state file ${path} is corrupt at line ${lineNumber} (${reason}); it was left as it is: fix it or move it away`);
  }
  rebuildIndexes(state);
  return torn;
}

function fieldByNameOrThrow(collection: string): PersistedCollection {
  const field = fieldByName.get(collection);
  if (!field) throw new InvalidDocumentError(`unknown collection ${JSON.stringify(collection)}`);
  return field;
}
