// Files svc keeps at paths of its own (config, credentials, locks, journals, checkpoints,
// records, dead letters): whatever was put at such a path, svc reads or writes it only if it
// is a regular file of bounded size, and repairs permissions on the opened file itself.
// docs/design.md "Credentials": a FIFO must not hang svc, a link to a device must not be read
// without limit, and a link to another file must never have that file's mode changed.
import { closeSync, constants, fchmodSync, fstatSync, openSync, readSync, type Stats } from 'node:fs';

/** The largest file of its own svc reads unless the caller says otherwise. */
export const OWN_FILE_MAX_BYTES = 1024 * 1024;

/** Why a path of svc's own was refused unread; callers turn it into their command's error. */
export class OwnFileRefusedError extends Error {
  constructor(
    readonly path: string,
    readonly reason: 'not-a-file' | 'too-large' | 'link',
    message: string,
  ) {
    super(message);
    this.name = 'OwnFileRefusedError';
  }
}

function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO';
  if (info.isDirectory()) return 'a directory';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

export interface OwnFileOptions {
  /** How the message names the file: "the credentials file", "the checkpoint". */
  what: string;
  /** Refuse a file larger than this (reads only); default OWN_FILE_MAX_BYTES. */
  maxBytes?: number;
  /**
   * Follow a symbolic link to a regular file (config.json kept in a dotfiles folder). Off for
   * files that hold or guard secrets, where a link is refused.
   */
  followLinks?: boolean;
}

/**
 * Opens `path` with `flags` (fs.constants) and checks the opened descriptor: a regular file,
 * and for reads no larger than the bound. O_NONBLOCK, so a FIFO at the path cannot hang the
 * open; O_NOFOLLOW (unless followLinks), so a symbolic link is refused rather than followed.
 * Throws ENOENT and other open errors as they are; OwnFileRefusedError for the rest.
 * The caller closes the descriptor.
 */
export function openOwnFile(path: string, flags: number, options: OwnFileOptions): number {
  let fd: number;
  try {
    const noFollow = options.followLinks ? 0 : (constants.O_NOFOLLOW ?? 0);
    fd = openSync(path, flags | (constants.O_NONBLOCK ?? 0) | noFollow, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP')
      throw new OwnFileRefusedError(
        path,
        'link',
        `${options.what} ${path} is a symbolic link; svc does not follow links at its own paths, so it was not opened`,
      );
    throw error;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new OwnFileRefusedError(path, 'not-a-file', `${options.what} ${path} is ${kindOf(info)}, not a regular file; it was not read`);
    const reading = (flags & (constants.O_WRONLY | constants.O_RDWR)) === 0 || (flags & constants.O_RDWR) !== 0;
    const maxBytes = options.maxBytes ?? OWN_FILE_MAX_BYTES;
    if (reading && info.size > maxBytes)
      throw new OwnFileRefusedError(path, 'too-large', `${options.what} ${path} is larger than ${Math.round(maxBytes / 1024)} KiB; it was not read`);
    return fd;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Reads a regular file of svc's own whole (see openOwnFile); null when there is none. */
export function readOwnFile(path: string, options: OwnFileOptions): string | null {
  let fd: number;
  try {
    fd = openOwnFile(path, constants.O_RDONLY, options);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const size = fstatSync(fd).size;
    const buffer = Buffer.alloc(size);
    const bytesRead = readSync(fd, buffer, 0, size, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Tightens an open file of svc's own to `mode` when group or others may read it, on the
 * descriptor (fchmod), so a link can never carry the change to another file. Returns the mode
 * it had when it was changed, else null.
 */
export function tightenOwnFile(fd: number, mode = 0o600): number | null {
  if (process.platform === 'win32') return null;
  const was = fstatSync(fd).mode & 0o777;
  if ((was & ~mode & 0o077) === 0) return null;
  fchmodSync(fd, mode);
  return was;
}
