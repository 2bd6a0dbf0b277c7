import { defineConfig } from 'vitest/config';
import { testCaFile } from './test/helpers/test-ca.js';

// The test processes trust the tests' own CA as users trust the emulator's: through
// NODE_EXTRA_CA_CERTS, read when each process starts (test/helpers/test-ca.ts).
process.env.NODE_EXTRA_CA_CERTS = testCaFile();

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/real/**', 'test/standalone/**'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    globalSetup: ['test/helpers/build.ts'],
  },
});
