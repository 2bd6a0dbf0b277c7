// Whether anyone still reads the pipe on a descriptor, asked without writing to it: a write is
// how a process learns its reader has gone (EPIPE), and a quiet stream (`svc events tail |
// head -1` between events) would learn it only at its next event. Linux's /proc shows which
// processes hold the pipe and how; elsewhere, or for anything but a pipe, nothing is known.
import { fstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';

const readLink = (path: string): string | undefined => {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
};

/** The descriptor's access mode, from /proc/PID/fdinfo/FD (0 read, 1 write, 2 both). */
function accessMode(pid: string, fd: string): number | undefined {
  try {
    const flags = /^flags:\s*([0-7]+)/m.exec(readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'latin1'))?.[1];
    return flags === undefined ? undefined : parseInt(flags, 8) & 3;
  } catch {
    return undefined;
  }
}

/** The /proc path of a descriptor that reads the pipe `link`, among the processes /proc lets us see. */
function findReader(link: string): string | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // another user's, or gone
    }
    for (const fd of fds) {
      const path = `/proc/${pid}/fd/${fd}`;
      if (readLink(path) === link && accessMode(pid, fd) !== 1) return path;
    }
  }
  return undefined;
}

/**
 * A check for the reader of the pipe on `fd`: true once a reader seen before is gone and no
 * other can be seen. Undefined where it cannot be known (not Linux, not a pipe). A pipe whose
 * reader was never seen (another user's process, another PID namespace: a container's runtime)
 * is never said to be closed.
 */
export function pipeReaderCheck(fd: number): (() => boolean) | undefined {
  if (process.platform !== 'linux') return undefined;
  let link: string;
  try {
    const stat = fstatSync(fd);
    if (!stat.isFIFO()) return undefined;
    link = `pipe:[${stat.ino}]`;
  } catch {
    return undefined;
  }
  if (readLink(`/proc/self/fd/${fd}`) !== link) return undefined;
  let reader = findReader(link);
  let seen = reader !== undefined;
  return () => {
    if (reader !== undefined && readLink(reader) === link) return false;
    reader = findReader(link);
    if (reader !== undefined) seen = true;
    return seen && reader === undefined;
  };
}
