// `events tail --record FILE`: every event received, appended to FILE as NDJSON (one
// event per line, as the API sent it) and written out per event, so that a crash loses
// nothing already printed. `svc events replay FILE` reads it back.
//
// The files `events tail` writes (record, dead letter, checkpoint) are opened or tried when
// it starts, before the stream is opened, so a path that cannot be written fails at once
// (exit 2, naming it) rather than after events were consumed. Whatever is at such a path must
// be a regular file (src/files/own-file.ts): a FIFO, device or link is refused unread.
import { closeSync, constants, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CliError, EXIT, UsageError } from '../errors.js';
import { diskFullWords, isDiskFull } from '../files/disk.js';
import { openOwnFile, OwnFileRefusedError, tightenOwnFile } from '../files/own-file.js';

const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT;

/** Why a file of `flag` cannot be used, in words, as a usage error naming it. */
export function unusableFile(flag: string, path: string, error: unknown): UsageError {
  if (error instanceof OwnFileRefusedError) return new UsageError(error.message, 'give the path of a regular file');
  const code = (error as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT'
      ? 'its folder does not exist'
      : code === 'EACCES' || code === 'EPERM'
        ? 'permission denied'
        : code === 'EISDIR'
          ? 'it is a folder'
          : code === 'ENXIO'
            ? 'it is a FIFO or device, not a regular file'
            : code === 'EROFS'
              ? 'the file system is read-only'
              : (error as Error).message;
  return new UsageError(`${flag} ${path}: cannot write it (${why})`, 'give a path in a folder you can write to');
}

/**
 * A write to one of the tail's files failed: a full disk in the wording every file of svc's
 * uses (the file, and where to free space); any other error as it was.
 */
export function writeFailure(path: string, error: unknown): unknown {
  if (!isDiskFull(error)) return error;
  const { message, hint } = diskFullWords(path, dirname(resolve(path)));
  return new CliError(message, EXIT.failure, hint);
}

/**
 * Opens FILE for appending (created 0600 if missing): a regular file, not followed through a
 * link, its permissions tightened on the descriptor if group or others could read it.
 */
export function openAppendFile(flag: string, path: string): number {
  let fd: number;
  try {
    fd = openOwnFile(path, APPEND, { what: flag });
  } catch (error) {
    throw unusableFile(flag, path, error);
  }
  try {
    tightenOwnFile(fd);
  } catch {
    // Not ours to change (another owner): writing is still allowed.
  }
  return fd;
}

/** Checks at start that FILE can be appended to (the dead letter, appended to when a delivery is given up). */
export function checkAppendFile(flag: string, path: string): void {
  closeSync(openAppendFile(flag, path));
}

export class EventRecorder {
  private constructor(
    private fd: number | undefined,
    readonly path: string,
  ) {}

  static open(path: string): EventRecorder {
    return new EventRecorder(openAppendFile('--record', path), path);
  }

  /** One event's JSON (a single line). A synchronous write: in the file before the next event is read. */
  append(line: string): void {
    if (this.fd === undefined) return;
    try {
      writeSync(this.fd, line + '\n');
    } catch (error) {
      throw writeFailure(this.path, error);
    }
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}
