import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { testCaFile } from './test/helpers/test-ca.js';

// The test processes trust the tests' own CA as users trust the emulator's: through
// NODE_EXTRA_CA_CERTS, read when each process starts (test/helpers/test-ca.ts).
process.env.NODE_EXTRA_CA_CERTS = testCaFile();

/** The files that replace a module of Node's (vi.mock): each runs in a process of its own. */
const REPLACES_MODULES = ['test/events/disk-full.test.ts', 'test/core/lock-leftovers.test.ts'];
const NOT_HERE = ['test/real/**', 'test/standalone/**'];

export default defineConfig({
  // The in-process suites run the jq users run: the bundle's (scripts/bundle.mjs patches jq-wasm),
  // built by the global setup. (The package as published fails after about 300 filters in one
  // process, and a worker runs many files in one process.)
  resolve: { alias: { 'jq-wasm': new URL('./dist/lib/jq-wasm.cjs', import.meta.url).pathname } },
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // The files mostly wait on the processes and servers they start, so one worker more than
    // the cores keeps them busy (vitest's default is one fewer: a single worker on two cores).
    maxWorkers: availableParallelism() + 1,
    globalSetup: ['test/helpers/build.ts'],
    projects: [
      // A worker runs file after file in one process: no test changes process.env, a global
      // or a timer, and every file starts its own servers, HOME and config folder, so what
      // stays loaded is only svc's modules (loading them again for each file was half the run).
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: [...NOT_HERE, ...REPLACES_MODULES], isolate: false } },
      { extends: true, test: { name: 'isolated', include: REPLACES_MODULES } },
    ],
  },
});
