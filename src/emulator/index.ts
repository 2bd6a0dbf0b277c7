// `startEmulator()`: the local implementation of the service, for `svc emulator` and tests.
//
// Choices where the spec and contract leave room (kept here so users of the emulator know):
// - Unknown body fields and unknown query parameters are rejected: 422 `extra_forbidden`, on every
//   route (those without parameters take none); a one-value parameter given twice is 422 too; a body
//   sent to end/close/release is 422 at ["body"] (an empty body or `{}` is accepted).
// - The authorize page's forms take only application/x-www-form-urlencoded (415), up to 16 KiB (413).
// - Loopback redirect URIs match any registered loopback URI with the same path: any port, and any of
//   127.0.0.1, [::1], localhost.
// - A stream ends when its access token expires (a timer on the emulator clock), not at the next keepalive.
// - A JSON body with another Content-Type is 415; malformed JSON is 422 (`json_invalid`);
//   JSON bodies are capped at 1 MiB and voice bodies at 10 MiB (413).
// - Prices: /v1/prices. Live mode checks the balance before a billable operation and refuses
//   (402) one it cannot cover in full; the balance never goes negative.
// - Translation is always the stand-in `[<to>] <text>`, and voice transcripts a placeholder,
//   in both modes (the emulator has no interpreter).
// - Rate limit: fixed 60 s windows of the emulator clock per API key / per (app, org).
// - A used refresh token presented again is invalid_grant and counted (refresh_reuse); it does
//   not revoke the connection, so a lost refresh race is visible in stats, not fatal.
// - `?type=` on events: exact type, or family `call`, `call.`, `call.*`; `*` = all.
// - stats.requests counts every request the emulator received, control plane included.
import type { AddressInfo } from 'node:net';
import { advancingClock } from './clock.js';
import type { AdvancingClock, EmulatorClock } from './clock.js';
import { createApp } from './server.js';
import { createState } from './state.js';
import type { Seed, State } from './state.js';

export type { EmulatorClock, AdvancingClock } from './clock.js';
export type { Seed, State } from './state.js';

export interface EmulatorOptions {
  /** 0 picks a free port. Default 0. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default: real time; POST /_emulator/clock adds an offset either way. */
  clock?: EmulatorClock;
  /** Interval of `: keepalive` comments on streams. Default 15 s (api-contract.md "Events"). */
  keepaliveMs?: number;
}

export interface RunningEmulator {
  /** http://HOST:PORT, no trailing slash; serves both {base_url} and {auth_url}. */
  url: string;
  port: number;
  /** The seed of the latest start or reset. */
  readonly seed: Seed;
  state: State;
  clock: AdvancingClock;
  close(): Promise<void>;
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  const { createAdaptorServer } = await import('@hono/node-server');
  const clock = advancingClock(opts.clock);
  const state = createState(clock, opts.keepaliveMs ?? 15_000);
  const app = createApp(state);
  const host = opts.host ?? '127.0.0.1';
  const server = createAdaptorServer({ fetch: app.fetch }) as import('node:http').Server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${urlHost(host)}:${port}`;
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    get seed() {
      return state.seed;
    },
    state,
    clock,
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const subscriber of [...state.subscribers]) subscriber.end();
        server.close(() => resolve());
        // Keep-alive and half-finished connections would otherwise hold close() open.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** A wildcard bind is reached through loopback; IPv6 literals need brackets in a URL. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
