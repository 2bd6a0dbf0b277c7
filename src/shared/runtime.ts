// What the runtime (the process, or a test) hands every invocation, apart from the
// terminal (src/io/io.ts). Types only: services import these, never src/context.ts.
import type { Mode } from './constants.js';

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

export interface GlobalOptions {
  profile?: string;
  mode?: Mode;
  json: boolean;
  baseUrl?: string;
  debug: boolean;
  color: boolean;
  yes: boolean;
}
