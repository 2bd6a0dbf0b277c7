import { availableParallelism } from 'node:os';
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
    // The files mostly wait on the processes and servers they start, so one worker more than
    // the cores keeps them busy (vitest's default is one fewer: a single worker on two cores).
    maxWorkers: availableParallelism() + 1,
    globalSetup: ['test/helpers/build.ts'],
  },
});
