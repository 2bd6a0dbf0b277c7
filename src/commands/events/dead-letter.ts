// `--dead-letter FILE`: a delivery given up on, appended as one NDJSON line that `events
// replay` reads back (the event, where it was going, how it failed).
import { closeSync, writeSync } from 'node:fs';
import type { DeliveryReport } from './delivery.js';
import { openAppendFile } from './record.js';

export interface DeadLetter {
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
  return { event, url, status: d.status, error: d.error ?? null, attempts: d.attempts, failed_at: new Date(now).toISOString() };
}

/**
 * Appends one letter, opening the file each time (letters are rare) through the own-file
 * guard, so it is still a regular file and not a link; throws when it cannot.
 */
export function appendDeadLetter(path: string, letter: DeadLetter): void {
  const fd = openAppendFile('--dead-letter', path);
  try {
    writeSync(fd, JSON.stringify(letter) + '\n');
  } finally {
    closeSync(fd);
  }
}
