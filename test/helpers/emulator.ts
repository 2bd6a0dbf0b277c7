// The one emulator harness of the tests: an emulator started in-process on port 0, and
// the one client of its control plane (/_emulator, docs/contract.md "Emulator control
// plane") with a typed method per endpoint, to arrange keys, balances, apps, the clock,
// faults, approvals, events and stream drops, and to read the stats. Other helper files
// (test/emulator/helpers.ts, test/resources/harness.ts, test/auth/support.ts) delegate here.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { EmulatorOptions, RunningEmulator } from '../../src/emulator/index.js';

export type Seed = RunningEmulator['seed'];
export type Mode = 'test' | 'live';

/** GET /_emulator/stats: counters since the last reset. */
export interface EmulatorStats {
  requests: number;
  tokens_issued: number;
  refreshes: number;
  refresh_reuse: number;
  rate_limited: number;
  open_streams: number;
}

export interface Admin {
  email: string;
  password: string;
}

/** The control plane of one emulator; every method throws when the emulator does not answer 2xx. */
export class ControlPlane {
  constructor(readonly baseUrl: string) {}

  /** Any control-plane call; `path` is under /_emulator (a leading /_emulator is accepted too). */
  async request<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const under = path.startsWith('/_emulator/') ? path.slice('/_emulator'.length) : path;
    const response = await fetch(`${this.baseUrl}/_emulator${under}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`control ${method} /_emulator${under}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** Empty state, then the seed; answers the new seed. */
  reset(): Promise<Seed> {
    return this.request('POST', '/reset');
  }

  /** A new organization (balance 0 unless given) and its admin. */
  createOrg(
    name: string,
    opts: { balance?: number; admin_email?: string } = {},
  ): Promise<{ id: string; org_id: string; name: string; balance: number; admin: Admin }> {
    return this.request('POST', '/orgs', { name, ...opts });
  }

  /** A new key of `org`, with only these scopes when given; the key is shown once. */
  createKey(org: string, mode: Mode, scopes?: string[]): Promise<{ id: string; key: string }> {
    return this.request('POST', `/orgs/${org}/keys`, scopes ? { mode, scopes } : { mode });
  }

  async revokeKey(org: string, id: string): Promise<void> {
    await this.request('DELETE', `/orgs/${org}/keys/${id}`);
  }

  async setBalance(org: string, available: number): Promise<void> {
    await this.request('PUT', `/orgs/${org}/balance`, { available });
  }

  createApp(app: { name: string; redirect_uris: string[]; public?: boolean }): Promise<{ client_id: string; client_secret: string | null }> {
    return this.request('POST', '/apps', app);
  }

  /** Deletes the app: every connection to it ends. */
  async deleteApp(clientId: string): Promise<void> {
    await this.request('DELETE', `/apps/${clientId}`);
  }

  connections(org: string): Promise<{ data: Array<{ client_id: string; [more: string]: unknown }> }> {
    return this.request('GET', `/orgs/${org}/connections`);
  }

  /** The org disconnects the app. */
  async disconnect(org: string, clientId: string): Promise<void> {
    await this.request('DELETE', `/orgs/${org}/connections/${clientId}`);
  }

  /** Moves the emulator's clock forward. */
  async advanceClock(seconds: number): Promise<void> {
    await this.request('POST', '/clock', { advance_seconds: seconds });
  }

  /** The next `count` requests under `pathPrefix` fail with `status`. */
  async fault(pathPrefix: string, status: 429 | 502, count: number): Promise<void> {
    await this.request('POST', '/faults', { path_prefix: pathPrefix, status, count });
  }

  /** The next `count` requests under `pathPrefix` (of `method`, else any) are handled, and their answer held `ms`. */
  async delay(pathPrefix: string, ms: number, opts: { count?: number; method?: 'GET' | 'POST' } = {}): Promise<void> {
    await this.request('POST', '/faults', { path_prefix: pathPrefix, delay_ms: ms, count: opts.count ?? 1, ...(opts.method ? { method: opts.method } : {}) });
  }

  /** The next authorize request is answered at once as if this admin had clicked. */
  async approve(approval: { email: string; org_id: string; decision?: 'approve' | 'deny' }): Promise<void> {
    await this.request('POST', '/approvals', { decision: 'approve', ...approval });
  }

  /** Publishes `count` synthetic events at once; answers the first and last ids. */
  publishEvents(event: { org_id: string; mode: Mode; type: string; count: number }): Promise<{ first_id: string; last_id: string }> {
    return this.request('POST', '/events', event);
  }

  /** Cuts every open event stream's connection. */
  async dropStreams(): Promise<void> {
    await this.request('POST', '/streams/drop');
  }

  stats(): Promise<EmulatorStats> {
    return this.request('GET', '/stats');
  }

  /** Waits (bounded) until at most `n` event streams are open, e.g. a previous test's, still closing. */
  async streamsClosed(n = 0, ms = 10_000): Promise<void> {
    await this.until(async (s) => s.open_streams <= n, `at most ${n} open stream(s)`, ms);
  }

  /** Waits (bounded) until at least `n` event streams are open (a client has connected). */
  async streamsOpen(n = 1, ms = 10_000): Promise<void> {
    await this.until(async (s) => s.open_streams >= n, `${n} open stream(s)`, ms);
  }

  private async until(ok: (stats: EmulatorStats) => Promise<boolean>, what: string, ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    for (;;) {
      const stats = await this.stats();
      if (await ok(stats)) return;
      if (Date.now() > deadline) throw new Error(`${what}: not after ${ms} ms (open_streams ${stats.open_streams})`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

/** The control plane of a running emulator (or of one at `url`). */
export function controlPlane(emulator: RunningEmulator | { url: string } | string): ControlPlane {
  return new ControlPlane(typeof emulator === 'string' ? emulator : emulator.url);
}

export interface TestEmulator {
  emulator: RunningEmulator;
  url: string;
  /** The seed of the last start or reset: org "Acme", one test and one live key with all scopes. */
  seed: Seed;
  /** Its control plane, typed. */
  plane: ControlPlane;
  /** A raw control-plane call (path under /_emulator); throws when it does not answer 2xx. */
  control<T = any>(method: string, path: string, body?: unknown): Promise<T>;
  /** A new key of the seed org (or `org`), with only these scopes when given. */
  makeKey(mode: Mode, scopes?: string[], org?: string): Promise<{ id: string; key: string }>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** Starts a bare emulator on port 0 for a test (its control plane: `controlPlane(emulator)`); the caller closes it. */
export function startTestEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  return startEmulator({ port: 0, ...opts });
}

/** Starts an emulator on port 0 for a test, with its control plane at hand; the caller closes it. */
export async function testEmulator(opts: EmulatorOptions = {}): Promise<TestEmulator> {
  const emulator = await startTestEmulator(opts);
  const plane = controlPlane(emulator);
  return {
    emulator,
    url: emulator.url,
    get seed() {
      return emulator.seed;
    },
    plane,
    control: (method, path, body) => plane.request(method, path, body),
    makeKey: (mode, scopes, org) => plane.createKey(org ?? emulator.seed.org_id, mode, scopes),
    reset: async () => {
      await plane.reset();
    },
    close: () => emulator.close(),
  };
}

/**
 * One emulator for the test file (beforeAll/afterAll), with `resetEach` the seed again before
 * every test; the getter fails if used before it started.
 */
export function useTestEmulator(opts: EmulatorOptions & { resetEach?: boolean; startTimeoutMs?: number } = {}): () => TestEmulator {
  let running: TestEmulator | undefined;
  const { resetEach, startTimeoutMs, ...emulatorOptions } = opts;
  beforeAll(async () => {
    running = await testEmulator(emulatorOptions);
  }, startTimeoutMs);
  afterAll(async () => {
    await running?.close();
  });
  if (resetEach)
    beforeEach(async () => {
      await running?.reset();
    });
  return () => {
    if (!running) throw new Error('the emulator is not started yet (use it inside tests or hooks)');
    return running;
  };
}

/**
 * The event suites' emulator, one for the test file: short keepalives (a stream whose credential
 * expired ends at the next one), and before each test the seed again with no stream of an
 * earlier test still open, so stream counts are this test's alone. `emu` fails before it started.
 */
export function useStreamEmulator(): { emu: () => RunningEmulator; plane: () => ControlPlane } {
  let running: RunningEmulator | undefined;
  const emu = () => {
    if (!running) throw new Error('the emulator is not started yet (use it inside tests or hooks)');
    return running;
  };
  const plane = () => controlPlane(emu());
  beforeAll(async () => {
    running = await startTestEmulator({ keepaliveMs: 200 });
  });
  afterAll(async () => {
    await running?.close();
  });
  beforeEach(async () => {
    await plane().reset();
    await plane().dropStreams();
    await plane().streamsClosed();
  });
  return { emu, plane };
}
