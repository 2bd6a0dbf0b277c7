// A full disk while svc takes a lock: the lock's record file is created, then cannot be
// filled (ENOSPC, as a full disk answers). The failure is said, and no zero-byte
// `.config.json.lock.<pid>.<rand>` is left in the user's config folder, whether the lock
// failed or, on the next try, was taken.
import { promises, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { acquireFileLock, withFileLock } from '../../src/config/lock.js';
import { writeFileAtomic } from '../../src/files/atomic.js';
import { tempConfigDir } from '../helpers/cli.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** writeFile as a full disk does it: the file appears, empty, and the write fails. */
function diskFullOnce(): void {
  const real = promises.writeFile.bind(promises);
  vi.spyOn(promises, 'writeFile').mockImplementationOnce(async (path) => {
    await real(path as string, '');
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  });
}

describe('lock files on a full disk', () => {
  it('a lock that fails for a full disk says so and leaves no temp file; the next one, taken, leaves none either', async () => {
    const dir = tempConfigDir();
    const target = join(dir, 'config.json');
    diskFullOnce();
    await expect(withFileLock(target, async () => 'never')).rejects.toThrow(`cannot write ${target}: the disk is full`);
    expect(readdirSync(dir)).toEqual([]);

    const release = await acquireFileLock(target);
    await release();
    expect(readdirSync(dir).filter((name) => name.includes('.lock.'))).toEqual([]);
  });

  it("a lock record left by an earlier process that is gone is removed by the next write; a running one's stays", async () => {
    const dir = tempConfigDir();
    const gone = '.config.json.lock.999999999.0badc0de';
    const mine = `.config.json.lock.${process.pid}.0badc0de`;
    writeFileSync(join(dir, gone), '');
    writeFileSync(join(dir, mine), '');
    await writeFileAtomic(join(dir, 'config.json'), '{}\n');
    expect(readdirSync(dir).sort()).toEqual([mine, 'config.json'].sort());
  });
});
