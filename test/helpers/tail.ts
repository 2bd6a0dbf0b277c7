// `svc events tail`'s tests share one emulator a file (the stream's keepalive short) and these
// helpers: the CLI in-process with its output visible while it runs, events published, the
// tail's connection awaited.
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { expect } from 'vitest';
import { useStreamEmulator } from './emulator.js';
import { execute } from '../../src/main.js';
import type { Runtime } from '../../src/cli/context.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { tempConfigDir } from './cli.js';

/** The file's emulator (started before its tests) and the helpers its tests use. */
export function useTailSuite() {
  const { emu, plane } = useStreamEmulator();

  const publish = (type: string, count: number, mode: 'test' | 'live' = 'test') => plane().publishEvents({ org_id: emu().seed.org_id, mode, type, count });

  /** Waits until `n` event streams are open (the tail has connected), failing after a while. */
  const streamsOpen = (n = 1) => plane().streamsOpen(n);

  const keyEnv = (key = emu().seed.keys.test) => ({ SVC_API_KEY: key, SVC_BASE_URL: emu().url });
  const ndjson = (stdout: string) =>
    stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id: string; type: string; object: string; livemode: boolean; data: { n?: number } });

  /** The CLI in-process with its output visible while it runs (runCli only returns it at the end). */
  function startCli(argv: string[], opts: { signal?: AbortSignal; beforeWrite?: () => void } = {}) {
    let stdout = '';
    let stderr = '';
    const configDir = tempConfigDir();
    const runtime: Runtime = {
      env: { HOME: configDir, SVC_CONFIG_DIR: configDir, ...keyEnv() },
      stdout: {
        isTTY: false,
        write(chunk) {
          opts.beforeWrite?.();
          stdout += chunk;
        },
      },
      stderr: { isTTY: false, write: (chunk) => void (stderr += chunk) },
      stdin: { isTTY: false, readAll: async () => '', lines: async function* () {} },
      clock: { now: () => Date.now(), sleep: (ms, signal) => delay(ms, undefined, { signal }) },
      random: { bytes: (n) => new Uint8Array(randomBytes(n)) },
      browser: { open: async () => {} },
      signal: opts.signal ?? new AbortController().signal,
      secrets: new MemorySecretStore(),
    };
    return { done: execute(argv, runtime), stdout: () => stdout, stderr: () => stderr };
  }

  async function until(condition: () => boolean, what = 'condition'): Promise<void> {
    for (let i = 0; i < 500; i++) {
      if (condition()) return;
      await delay(10);
    }
    throw new Error(`${what} not met after 5 s`);
  }

  function expectStrictlyIncreasingUnique(ids: string[]): void {
    expect(new Set(ids).size).toBe(ids.length);
    // Event ids are fixed-width, so their order as strings is their order of publication.
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
  }
  return { emu, plane, publish, streamsOpen, keyEnv, ndjson, startCli, until, expectStrictlyIncreasingUnique };
}
