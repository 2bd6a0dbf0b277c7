// Loads a Node built-in, or the keychain's CommonJS addon, synchronously when first needed.
// The bundle is CommonJS (scripts/build.mjs), where an `await import()` of these would start
// Node's ESM loader, about 10 ms a run; `require` costs nothing extra.
import { createRequire } from 'node:module';

export const requireNode = createRequire(import.meta.url);
