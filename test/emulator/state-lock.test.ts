// One emulator per state file (persistence/state-lock.ts, on the lock of src/files/lock.ts):
// the lock's record names its holder's pid and start, so a pid the system has given to another
// process since does not keep the file locked; an older emulator's lock (its pid alone) is
// honoured, and an older emulator can read the pid in ours.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StateLock } from '../../src/emulator/persistence/state-lock.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-state-lock-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the state file lock', () => {
  it('begins with its pid on a line of its own, and refuses a second emulator while held', () => {
    const path = join(dir, 'state.jsonl');
    const lock = new StateLock(path);
    lock.acquire();
    try {
      expect(Number.parseInt(readFileSync(`${path}.lock`, 'utf8'), 10)).toBe(process.pid);
      expect(() => new StateLock(path).acquire()).toThrow(`the state file ${path} is in use by another emulator (pid ${process.pid})`);
    } finally {
      lock.release();
    }
  });

  it('honours an older emulator lock holding a live pid alone', () => {
    const path = join(dir, 'state.jsonl');
    writeFileSync(`${path}.lock`, `${process.pid}\n`);
    expect(() => new StateLock(path).acquire()).toThrow(`(pid ${process.pid})`);
  });

  it.runIf(process.platform === 'linux')('takes over a lock whose pid now names a process that started at another time', () => {
    const path = join(dir, 'state.jsonl');
    const reused = { pid: process.pid, host: hostname(), started_at: '2001-01-01T00:00:00.000Z', acquired_at: '2001-01-01T00:00:01.000Z', token: '00' };
    writeFileSync(`${path}.lock`, `${process.pid}\n${JSON.stringify(reused)}\n`);
    const lock = new StateLock(path);
    lock.acquire();
    expect(readFileSync(`${path}.lock`, 'utf8')).not.toContain('2001-01-01');
    lock.release();
  });
});
