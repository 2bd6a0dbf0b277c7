// Shared set-up for the resource command suites: one emulator on port 0 per file, a
// throwaway config dir, and `svc(argv)` running the real CLI in-process with an API key
// of the chosen mode. `direct()` talks to the emulator over HTTP to arrange state
// (posting chat messages while a stream runs, making 100+ objects quickly).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';

export type Mode = 'test' | 'live';
type Emulator = Awaited<ReturnType<typeof startEmulator>>;
type RunOptions = NonNullable<Parameters<typeof runCli>[1]>;

export interface Harness {
  readonly emulator: Emulator;
  readonly configDir: string;
  svc(argv: string[], opts?: { mode?: Mode; tty?: boolean; stdin?: string; env?: Record<string, string>; extra?: Partial<RunOptions> }): ReturnType<typeof runCli>;
  direct<T = any>(method: string, path: string, body?: unknown, mode?: Mode): Promise<{ status: number; body: T }>;
  control<T = any>(method: string, path: string, body?: unknown): Promise<T>;
  stats(): Promise<{ requests: number; rate_limited: number }>;
  /** How many requests reached the emulator while fn ran (its own stats calls discounted). */
  requestsDuring(fn: () => Promise<void>): Promise<number>;
}

/** Registers beforeAll/afterAll for the file and returns a handle filled in by then. */
export function useEmulator(): Harness {
  let emulator: Emulator | undefined;
  let configDir = '';
  const required = (): Emulator => {
    if (!emulator) throw new Error('the emulator is not started yet (use the harness inside tests)');
    return emulator;
  };
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
    configDir = mkdtempSync(join(tmpdir(), 'svc-resources-'));
  });
  afterAll(async () => {
    await emulator?.close();
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
    async control(method, path, body) {
      const response = await fetch(required().url + path, {
        method,
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      const text = await response.text();
      return text ? JSON.parse(text) : undefined;
    },
    async stats() {
      return this.control('GET', '/_emulator/stats');
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
