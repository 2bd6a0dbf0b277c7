// Secret storage (docs/design.md "Credentials"): what every store offers (secret-store.ts). The OS
// keychain (keychain-store.ts, reached through keychain-backend.ts), a 0600 credentials.json
// without one (file-store.ts), the two combined as commands use them (fallback-store.ts), and
// memory for tests (memory-store.ts); their words in store-errors.ts. The exports below keep one
// import path for the callers outside this folder.
export * from './secret-store.js';
export * from './store-errors.js';
export * from './keychain-backend.js';
export * from './keychain-store.js';
export * from './file-store.js';
export * from './memory-store.js';
export * from './fallback-store.js';
