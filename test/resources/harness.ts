// Shared set-up for the resource command suites: one emulator on port 0 per file, a
// throwaway config dir, and `svc(argv)` running the real CLI in-process with an API key
// of the chosen mode. `direct()` talks to the emulator over HTTP to arrange state
// (posting chat messages while a stream runs, making 100+ objects quickly); `plane` is its
// control plane (test/helpers/emulator.ts, which also starts it).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { testEmulator, type ControlPlane, type EmulatorStats, type TestEmulator } from '../helpers/emulator.js';

export type Mode = 'test' | 'live';
type Emulator = RunningEmulator;
type RunOptions = NonNullable<Parameters<typeof runCli>[1]>;

export interface Harness {
  readonly emulator: Emulator;
  readonly configDir: string;
  svc(
    argv: string[],
    opts?: { mode?: Mode; tty?: boolean; stdin?: string; env?: Record<string, string>; extra?: Partial<RunOptions> },
  ): ReturnType<typeof runCli>;
  direct<T = any>(method: string, path: string, body?: unknown, mode?: Mode): Promise<{ status: number; body: T }>;
  /** The emulator's control plane, typed. */
  readonly plane: ControlPlane;
  control<T = any>(method: string, path: string, body?: unknown): Promise<T>;
  stats(): Promise<EmulatorStats>;
  /** How many requests reached the emulator while fn ran (its own stats calls discounted). */
  requestsDuring(fn: () => Promise<void>): Promise<number>;
}

/** Registers beforeAll/afterAll for the file and returns a handle filled in by then. */
export function useEmulator(): Harness {
  let running: TestEmulator | undefined;
  let configDir = '';
  const started = (): TestEmulator => {
    if (!running) throw new Error('the emulator is not started yet (use the harness inside tests)');
    return running;
  };
  const required = (): Emulator => started().emulator;
  beforeAll(async () => {
    running = await testEmulator();
    configDir = mkdtempSync(join(tmpdir(), 'svc-resources-'));
  });
  afterAll(async () => {
    await running?.close();
    rmSync(configDir, { recursive: true, force: true });
  });

  const keyOf = (mode: Mode) => required().seed.keys[mode];

  return {
    get emulator() {
      return required();
    },
    get configDir() {
      return configDir;
    },
    get plane() {
      return started().plane;
    },
    svc(argv, opts = {}) {
      const env: Record<string, string> = {
        SVC_API_KEY: keyOf(opts.mode ?? 'test'),
        SVC_BASE_URL: required().url,
        SVC_CONFIG_DIR: configDir,
        SVC_CREDENTIAL_STORE: 'file',
        CI: 'true',
        ...opts.env,
      };
      const run: RunOptions = { env, tty: opts.tty ?? false, configDir, ...opts.extra };
      if (opts.stdin !== undefined) run.stdin = opts.stdin;
      return runCli(argv, run);
    },
    async direct(method, path, body, mode = 'test') {
      const response = await fetch(required().url + path, {
        method,
        headers: { authorization: `Bearer ${keyOf(mode)}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    control(method, path, body) {
      return started().plane.request(method, path, body);
    },
    stats() {
      return started().plane.stats();
    },
    async requestsDuring(fn) {
      // Whether the stats request counts itself is the emulator's business: measure it.
      const first = (await this.stats()).requests;
      const before = (await this.stats()).requests;
      const selfCost = before - first;
      await fn();
      const after = (await this.stats()).requests;
      return after - before - selfCost;
    },
  };
}

/** The rows of tab-separated output. */
export function tsvRows(stdout: string): string[][] {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.split('\t'));
}
