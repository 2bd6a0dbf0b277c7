// What the runtime (the process, or a test) hands every invocation, apart from the
// terminal (src/io/io.ts). Types only: services import these, never src/context.ts.
import type { Mode } from './constants.js';
import type { GLOBAL_FLAGS } from './globals.js';

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

type Declared = typeof GLOBAL_FLAGS;
type ValueFlag<K extends keyof Declared> = Declared[K] extends { value: string } ? K : never;

/**
 * The global flags as a command's context holds them (src/shared/globals.ts): a flag with a
 * value when given, each switch a boolean, and `--test`/`--live` as the mode.
 */
export type GlobalOptions = { [K in keyof Declared as ValueFlag<K>]?: string } & {
  [K in keyof Declared as K extends ValueFlag<K> | 'test' | 'live' ? never : K]: boolean;
} & { mode?: Mode };
