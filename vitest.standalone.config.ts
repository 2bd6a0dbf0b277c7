import { defineConfig } from 'vitest/config';

// svc without Node: the standalone binaries and the .deb (scripts/test-standalone.sh).
export default defineConfig({
  test: {
    include: ['test/standalone/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
