// `events tail --record FILE`: every event received, appended to FILE as NDJSON (one
// event per line, as the API sent it) and written out per event, so that a crash loses
// nothing already printed. `svc events replay FILE` reads it back.
import { closeSync, openSync, writeSync } from 'node:fs';
import { UsageError } from '../../errors.js';

export class EventRecorder {
  private constructor(
    private fd: number | undefined,
    readonly path: string,
  ) {}

  static open(path: string): EventRecorder {
    try {
      return new EventRecorder(openSync(path, 'a'), path);
    } catch (error) {
      throw new UsageError(`--record ${path}: cannot open it for appending (${(error as Error).message})`);
    }
  }

  /** One event's JSON (a single line). A synchronous write: in the file before the next event is read. */
  append(line: string): void {
    if (this.fd === undefined) return;
    writeSync(this.fd, line + '\n');
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}
