// The endpoint table moved to src/contract/endpoints.ts (shared with the emulator); the
// CLI-only default address stays here.
import { DEFAULT_EMULATOR_PORT } from '../contract/constants.js';

export * from '../contract/endpoints.js';

/** The spec gives the real address only as {base_url}: default to the local emulator. */
export const DEFAULT_BASE_URL = `http://127.0.0.1:${DEFAULT_EMULATOR_PORT}`;
