// What a refused write means: a full disk (or quota), or a file system that will not let this
// user write there. Plain facts of the error, so the CLI and the emulator word them alike.
import { dirname } from 'node:path';

/** The disk (or the user's quota) is full: said as such, with what to do. */
export function isDiskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/** A full disk, in the one wording every file of svc's uses: the file, and where to free space. */
export function diskFullWords(path: string, dir: string = dirname(path)): { message: string; hint: string } {
  return { message: `cannot write ${path}: the disk is full`, hint: `free space on the disk that holds ${dir}` };
}

/** A write refused by the file system itself (read-only, or not ours to write), as opposed to a full disk or a bug. */
export function isUnwritable(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'EROFS' || code === 'EACCES' || code === 'EPERM';
}
