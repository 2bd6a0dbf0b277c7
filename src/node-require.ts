// Loads a Node built-in, or the keychain's CommonJS addon, synchronously when first needed.
// The bundle is CommonJS (scripts/build.mjs), where an `await import()` of these would start
// Node's ESM loader, about 10 ms a run; `require` costs nothing extra.
import { createRequire } from 'node:module';

/** Every module svc loads this way, with its type: add a row to load another. */
export interface LazyModules {
  'node:child_process': typeof import('node:child_process');
  'node:crypto': typeof import('node:crypto');
  'node:fs/promises': typeof import('node:fs/promises');
  'node:http': typeof import('node:http');
  'node:https': typeof import('node:https');
  'node:os': typeof import('node:os');
  'node:readline': typeof import('node:readline');
  'node:timers/promises': typeof import('node:timers/promises');
  '@napi-rs/keyring': typeof import('@napi-rs/keyring');
}

const load = createRequire(import.meta.url);

/** The module `name`, typed, loaded (once; Node caches it) on the first call. */
export function lazyRequire<N extends keyof LazyModules>(name: N): LazyModules[N] {
  return load(name) as LazyModules[N];
}
