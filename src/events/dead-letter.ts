// `--dead-letter FILE`: a delivery given up on, appended as one NDJSON line that `events
// replay` reads back (the event, where it was going, how it failed). Each letter names its
// format version: a file holding a newer svc's letter is neither replayed nor appended to
// (docs/design.md, Distribution).
import { closeSync, constants, readSync, writeSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { openOwnFile } from '../files/own-file.js';
import { NewerFormatFileError } from '../errors.js';
import { formatVersion } from '../shared/format-version.js';
import type { DeliveryReport } from './delivery.js';
import { checkAppendFile, openAppendFile, writeFailure } from './record.js';

/**
 * The format of a letter: 1, the fields below. svc 0.1.0's letters, the same fields without
 * `version`, are format 1 too.
 */
export const DEAD_LETTER_FORMAT = 1;

export interface DeadLetter {
  version: typeof DEAD_LETTER_FORMAT;
  /** The event as it was to be delivered. */
  event: unknown;
  url: string;
  /** HTTP status of the last attempt, or null when there was no response. */
  status: number | null;
  error: string | null;
  attempts: number;
  failed_at: string;
}

/** The letter of a delivery given up on at `now` (ms). */
export function deadLetterOf(d: DeliveryReport, url: string, now: number): DeadLetter {
  let event: unknown = d.body;
  try {
    event = JSON.parse(d.body ?? 'null');
  } catch {
    // kept as the text it was
  }
  return { version: DEAD_LETTER_FORMAT, event, url, status: d.status, error: d.error ?? null, attempts: d.attempts, failed_at: new Date(now).toISOString() };
}

/**
 * Appends one letter, opening the file each time (letters are rare) through the own-file
 * guard, so it is still a regular file and not a link; throws when it cannot.
 */
export function appendDeadLetter(path: string, letter: DeadLetter): void {
  const fd = openAppendFile('--dead-letter', path);
  try {
    writeSync(fd, JSON.stringify(letter) + '\n');
  } catch (error) {
    throw writeFailure(path, error);
  } finally {
    closeSync(fd);
  }
}

/** Where the letters of `gaveUp` deliveries went: the file, but for the `lost` ones a write failure kept out. */
export function lettersWhere(path: string | undefined, gaveUp: number, lost: number): string {
  if (!path) return 'not kept';
  if (lost === 0) return `written to ${path}`;
  if (lost >= gaveUp) return `not written to ${path} (the warnings above say why)`;
  return `written to ${path}, but for ${lost} (the warnings above say why)`;
}

/**
 * The version a line names when it is a newer svc's letter, else undefined. Only a letter
 * carries svc's version: a recorded event (with an `id` and `type` of its own) is the API's.
 */
export function newerLetterVersion(value: unknown): number | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const format = formatVersion((value as { version?: unknown }).version, DEAD_LETTER_FORMAT, 1);
  return format.kind === 'newer' ? format.version : undefined;
}

/** A file holding a newer svc's letter: both versions and what to do. */
export function newerDeadLetterError(path: string, found: number): NewerFormatFileError {
  return new NewerFormatFileError('the dead-letter file', path, found, DEAD_LETTER_FORMAT);
}

/**
 * Checks at start that a dead-letter FILE can be appended to and holds no newer svc's letter,
 * read a chunk at a time (the file grows with every letter, and is not held whole).
 */
export function checkDeadLetterFile(path: string): void {
  checkAppendFile('--dead-letter', path);
  const fd = openOwnFile(path, constants.O_RDONLY, { what: '--dead-letter', maxBytes: Number.MAX_SAFE_INTEGER });
  try {
    const decoder = new StringDecoder('utf8');
    const chunk = Buffer.alloc(1024 * 1024);
    let rest = '';
    const check = (line: string) => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        return; // Not a letter svc wrote: replay says so when it meets it.
      }
      const newer = newerLetterVersion(value);
      if (newer !== undefined) throw newerDeadLetterError(path, newer);
    };
    for (let read = readSync(fd, chunk, 0, chunk.length, null); read > 0; read = readSync(fd, chunk, 0, chunk.length, null)) {
      const lines = (rest + decoder.write(chunk.subarray(0, read))).split('\n');
      rest = lines.pop()!;
      lines.forEach(check);
    }
    check(rest + decoder.end());
  } finally {
    closeSync(fd);
  }
}
