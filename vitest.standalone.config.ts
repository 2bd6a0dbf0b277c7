import { defineConfig } from 'vitest/config';

// svc without Node: the standalone binaries and the .deb (scripts/test-standalone.sh).
export default defineConfig({
  test: {
    include: ['test/standalone/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    pool: 'forks',
    // Two files at a time: each works in a folder of its own (an apt root, a throwaway user, a
    // copy of the tree for the second build), and the longest, standalone.test.ts, mostly waits
    // on the builds and the programs it starts. scripts/test-standalone.sh builds release/ first.
    maxWorkers: 2,
  },
});
