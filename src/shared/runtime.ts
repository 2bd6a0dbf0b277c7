// What the runtime (the process, or a test) hands every invocation, apart from the
// terminal (src/io/io.ts). Types only: services import these, never src/context.ts.

export type Env = Readonly<Record<string, string | undefined>>;

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export interface Random {
  bytes(n: number): Uint8Array;
}

export interface Browser {
  /** Opens the URL in the user's browser; rejects when no browser can be opened. */
  open(url: string): Promise<void>;
}

/** The global flags as a command's context holds them (declared and read in src/shared/globals.ts). */
export type { GlobalOptions } from './globals.js';

/**
 * Runs `keep` with Ctrl-C, SIGTERM and SIGHUP held back until it ends (for a bounded time,
 * said on stderr), a second Ctrl-C meanwhile too: what it stores would otherwise be lost (a
 * new token pair, its old one spent).
 */
export type Uninterruptible = <T>(keep: () => Promise<T>) => Promise<T>;
/**
 * From now until the returned function is called, Ctrl-C does not end the process: the command
 * goes on ending what it started (`what` finishes "svc: still stopping once …", said once).
 * Its first Ctrl-C still stops it through ctx.signal, which is what hastens its end.
 */
export type KeepEnding = (what: string) => () => void;
