import { defineConfig } from 'vitest/config';

// The real-component suites: the OS keychain (gnome-keyring over D-Bus) and a real browser.
export default defineConfig({
  test: {
    include: ['test/real/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    globalSetup: ['test/helpers/build.ts'],
    fileParallelism: false,
  },
});
