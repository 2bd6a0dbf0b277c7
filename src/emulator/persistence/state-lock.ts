// One emulator per state file: FILE.lock, the lock of src/files/lock.ts. An emulator holds its
// file for as long as it runs and refreshes nothing, so its lock is judged by its holder's
// process alone: its pid and, where /proc tells, its start time, so a pid the system gave to
// another process since is told apart. A lock whose process is gone (a kill -9) is taken over;
// one whose process lives is refused. The record begins with the pid on a line of its own: an
// older emulator reads that line (and its own lock, that line alone, is read here).
import { createLockSync, currentHolder, holderRecord, judgeLock, lockPathOf, releaseLockSync, takeOverLock, type LockRules } from '../../files/lock.js';
import { OwnFileRefusedError } from '../../files/own-file.js';
import { StateFileError } from './state-file.js';

const RULES: LockRules = { staleMs: null, reusedPids: true, pidLine: true };

export class StateLock {
  readonly lockPath: string;
  /** The lock file's inode while this emulator holds it. */
  #ino: number | null = null;

  constructor(readonly path: string) {
    this.lockPath = lockPathOf(path);
  }

  acquire(): void {
    const record = holderRecord(currentHolder(), true);
    for (let attempt = 0; attempt < 2; attempt++) {
      this.#ino = createLockSync(this.lockPath, record);
      if (this.#ino !== null) return;
      const found = this.#judge();
      if (found.kind === 'live' && found.holder) {
        throw new StateFileError(
          this.path,
          `the state file ${this.path} is in use by another emulator (pid ${found.holder.pid}); stop it first, or use another --state file`,
        );
      }
      // The owner is gone: its lock is stale.
      if (found.kind === 'abandoned') takeOverLock(this.lockPath, found.ino);
    }
    throw new StateFileError(this.path, `could not lock the state file ${this.path} (${this.lockPath} keeps coming back)`);
  }

  #judge(): ReturnType<typeof judgeLock> {
    try {
      return judgeLock(this.lockPath, Date.now(), RULES);
    } catch (error) {
      if (error instanceof OwnFileRefusedError) throw new StateFileError(this.path, `could not lock the state file ${this.path}: ${error.message}`);
      throw error;
    }
  }

  release(): void {
    if (this.#ino === null) return;
    const ino = this.#ino;
    this.#ino = null;
    releaseLockSync(this.lockPath, ino);
  }
}
