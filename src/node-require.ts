// Loads a Node built-in, or the keychain's CommonJS addon, synchronously when first needed.
// The bundle is CommonJS (scripts/bundle.mjs), where an `await import()` of these would start
// Node's ESM loader. In the bundle this is the module's own `require`; only the ESM source
// (vitest) makes one with createRequire, so the bundle never loads node:module, which on
// Node 20 pulls in the ESM loader.
export const requireNode: NodeJS.Require =
  typeof require === 'function' ? require : (process.getBuiltinModule('node:module') as typeof import('node:module')).createRequire(import.meta.url);

/** Every module svc loads this way, with its type: add a row to load another. */
export interface LazyModules {
  'node:child_process': typeof import('node:child_process');
  'node:crypto': typeof import('node:crypto');
  'node:fs': typeof import('node:fs');
  'node:fs/promises': typeof import('node:fs/promises');
  'node:http': typeof import('node:http');
  'node:https': typeof import('node:https');
  'node:net': typeof import('node:net');
  'node:os': typeof import('node:os');
  'node:readline': typeof import('node:readline');
  'node:timers/promises': typeof import('node:timers/promises');
  'node:tls': typeof import('node:tls');
  'node:tty': typeof import('node:tty');
  '@napi-rs/keyring': typeof import('@napi-rs/keyring');
}

/** The module `name`, typed, loaded (once; Node caches it) on the first call. */
export function lazyRequire<N extends keyof LazyModules>(name: N): LazyModules[N] {
  return requireNode(name) as LazyModules[N];
}
