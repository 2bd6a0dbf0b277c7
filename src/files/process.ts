// Whether the process that left a file behind (a lock's holder, a temp file's writer) still
// runs, and, on Linux, when it started and whether it is stopped: a pid alone may since name
// another process, its start time tells them apart.
import { readFileSync } from 'node:fs';

/** Whether a process with this pid exists (EPERM: it does, under another user). */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A running process as /proc tells it: when it started (ms since the epoch) and whether it is stopped (SIGSTOP, Ctrl-Z). */
export interface ProcessFacts {
  startedMs: number;
  stopped: boolean;
}

/** What /proc says of `pid`; null where there is no /proc (not Linux), or no such process. */
export function processFacts(pid: number): ProcessFacts | null {
  if (process.platform !== 'linux') return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses): state first, start time 20th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const bootSeconds = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    // Clock ticks since boot; USER_HZ is 100 on every Linux Node runs on.
    const startedMs = (bootSeconds + Number(fields[19]) / 100) * 1000;
    return { startedMs, stopped: fields[0] === 'T' || fields[0] === 't' };
  } catch {
    return null;
  }
}

/** When this process started (ISO time), as a record of it names it. */
export function startedAt(now = Date.now()): string {
  return new Date(now - Math.round(process.uptime() * 1000)).toISOString();
}

/** How far a recorded start may be from the process's own (a record rounds process.uptime()). */
export const STARTED_AT_SLACK_MS = 2_000;

/** Whether `pid` is the process a record made at its start names: same pid, same start (where /proc tells; else the pid alone). */
export function sameProcess(pid: number, recordedStart: string): boolean {
  if (!processRuns(pid)) return false;
  const facts = processFacts(pid);
  const recorded = Date.parse(recordedStart);
  if (!facts || Number.isNaN(recorded) || Number.isNaN(facts.startedMs)) return true;
  return Math.abs(facts.startedMs - recorded) < STARTED_AT_SLACK_MS;
}
