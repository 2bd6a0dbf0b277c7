// The emulator for tests: started in-process on port 0, plus its control plane
// (/_emulator, api-contract.md) to arrange keys, balances, faults and revocations.
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';

export interface TestEmulator {
  emulator: RunningEmulator;
  url: string;
  /** The seed of the last reset: org "Acme", one test and one live key with all scopes. */
  seed: RunningEmulator['seed'];
  /** Calls the control plane; throws when it does not answer 2xx. */
  control<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  /** A new key of the seed org (or `org`), with only these scopes when given. */
  makeKey(mode: 'test' | 'live', scopes?: string[], org?: string): Promise<{ id: string; key: string }>;
  reset(): Promise<void>;
  close(): Promise<void>;
}

export async function testEmulator(): Promise<TestEmulator> {
  const emulator = await startEmulator({ port: 0 });
  const control = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${emulator.url}/_emulator${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`control ${method} ${path}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  const t: TestEmulator = {
    emulator,
    url: emulator.url,
    get seed() {
      return emulator.seed;
    },
    control,
    makeKey: (mode, scopes, org) => control('POST', `/orgs/${org ?? emulator.seed.org_id}/keys`, scopes ? { mode, scopes } : { mode }),
    reset: async () => {
      await control('POST', '/reset');
    },
    close: () => emulator.close(),
  };
  return t;
}
