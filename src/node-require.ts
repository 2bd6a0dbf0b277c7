// Loads a Node built-in, or the keychain's CommonJS addon, synchronously when first needed.
// The bundle is CommonJS (scripts/build.mjs), where an `await import()` of these would start
// Node's ESM loader, about 10 ms a run; `require` costs nothing extra. In the bundle this is
// the module's own `require`; only the ESM source (vitest) makes one with createRequire, so
// the bundle never loads node:module (on Node 20 that pulls in the ESM loader, ~3 ms).
export const requireNode: NodeJS.Require =
  typeof require === 'function' ? require : (process.getBuiltinModule('node:module') as typeof import('node:module')).createRequire(import.meta.url);
