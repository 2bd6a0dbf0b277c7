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
//   (402) one it cannot cover in full; the balance never goes negative. A live call draws each
//   later minute as it begins, and ends when the balance cannot cover one (calls.ts).
// - Translation is always the stand-in `[<to>] <text>`, and voice transcripts a placeholder,
//   in both modes (the emulator has no interpreter).
// - Rate limit: fixed 60 s windows of the emulator clock per API key / per (app, org).
// - A used refresh token presented again is invalid_grant and counted (refresh_reuse); it does
//   not revoke the connection, so a lost refresh race is visible in stats, not fatal.
// - `?type=` on events: exact type, or family `call`, `call.`, `call.*`; `*` = all.
// - stats.requests counts every request the emulator received, control plane included.
// - GET /_emulator/state answers the whole world as the document --export writes (an extension).
// - Retention, stream backlog and authorize-page bounds: state.ts DEFAULT_LIMITS, events.ts.
import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { advancingClock } from './clock.js';
import type { AdvancingClock, EmulatorClock } from './clock.js';
import { boundHostnames } from './guards.js';
import { exportDocument, importDocument, writeDocumentFile } from './persistence/document.js';
import { FileJournal } from './persistence/journal.js';
import type { JournalWrites } from './persistence/journal.js';
import { StateFileError, type LoadSummary } from './persistence/state-file.js';
import { RequestLog } from './dashboard/requests.js';
import { createApp } from './server.js';
import { createState, reset } from './state.js';
import { issueServerCertificate, openLocalCa, type ServerCertificate } from './tls.js';
import type { Limits, Seed, State } from './state.js';

export type { EmulatorClock, AdvancingClock } from './clock.js';
export type { Limits, Seed, State } from './state.js';
export type { JournalWrites } from './persistence/journal.js';
export type { LoadSummary } from './persistence/state-file.js';
export type { RequestLog, RequestEntry } from './dashboard/requests.js';
export { StateFileError } from './persistence/state-file.js';
export { InvalidDocumentError, NewerFormatError, exportDocument } from './persistence/document.js';
export { LocalCaError, issueServerCertificate, openLocalCa } from './tls.js';

export interface EmulatorOptions {
  /** 0 picks a free port. Default 0. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default: real time; POST /_emulator/clock adds an offset either way. */
  clock?: EmulatorClock;
  /** Interval of `: keepalive` comments on streams. Default 15 s (docs/contract.md "Events"). */
  keepaliveMs?: number;
  /** Keep the world in this file across restarts (persistence/journal.ts). */
  statePath?: string;
  /** How the state file is appended to and synced (node:fs; tests give a disk that fills up). */
  stateWrites?: JournalWrites;
  /** Start from this document (--import) instead of the seed; with statePath, that file must not exist yet. */
  importDocument?: unknown;
  /** More Host names to answer besides the bound address's own (--allow-host). */
  allowHosts?: string[];
  /** Bounds under abuse (tests lower them). */
  limits?: Partial<Limits>;
  /**
   * Serve over TLS (`--https`) with a certificate from the local CA kept in this folder
   * (made on first use, reused afterwards; src/emulator/tls.ts).
   */
  https?: { caDir: string };
}

export interface RunningEmulator {
  /** http(s)://HOST:PORT, no trailing slash; serves both {base_url} and {auth_url}. */
  url: string;
  /** With `https`: the CA certificate file clients trust (NODE_EXTRA_CA_CERTS), and whether this start made it. */
  ca: { certFile: string; created: boolean } | null;
  port: number;
  /** The seed of the latest start or reset; throws when the world was loaded (its keys were shown when made). */
  readonly seed: Seed;
  /** What was loaded from or written to the state file (--state), or imported; null otherwise. */
  loaded: (LoadSummary & { imported: boolean }) | null;
  state: State;
  clock: AdvancingClock;
  /** The requests the dashboard's Requests page shows (a bounded ring). */
  requests: RequestLog;
  /** The dashboard's address: the emulator's root URL. */
  dashboardUrl: string;
  close(): Promise<void>;
}

export async function startEmulator(opts: EmulatorOptions = {}): Promise<RunningEmulator> {
  const { createAdaptorServer } = await import('@hono/node-server');
  const clock = advancingClock(opts.clock);
  const journal = opts.statePath ? new FileJournal(opts.statePath, opts.stateWrites) : null;
  const state = createState(clock, opts.keepaliveMs ?? 15_000, {
    limits: opts.limits,
    journal,
    seed: opts.statePath === undefined && opts.importDocument === undefined,
  });
  const imported = opts.importDocument !== undefined;
  let loaded: RunningEmulator['loaded'] = null;
  if (journal) {
    if (imported && existsSync(journal.path)) {
      throw new StateFileError(journal.path, `the state file ${journal.path} already exists; --import would replace it: remove it or use another --state file`);
    }
    loaded = { ...journal.open(state, () => (imported ? importDocument(state, opts.importDocument) : reset(state))), imported };
  } else if (imported) {
    const counts = importDocument(state, opts.importDocument);
    loaded = {
      path: '',
      loaded: true,
      imported,
      orgs: [...state.orgs.values()].map((o) => ({ id: o.id, name: o.name })),
      keys: counts.keys,
      apps: counts.apps,
      events: counts.events,
      notices: [],
    };
  }
  const requests = new RequestLog();
  const app = createApp(state, requests);
  const host = opts.host ?? '127.0.0.1';
  const hostnames = boundHostnames(host, opts.allowHosts);
  let ca: RunningEmulator['ca'] = null;
  let server: import('node:http').Server;
  if (opts.https) {
    let certificate: ServerCertificate;
    try {
      const local = openLocalCa(opts.https.caDir);
      ca = { certFile: local.certFile, created: local.created };
      // Every name the emulator answers, loopback's always (a wildcard bind lists this machine's addresses too).
      certificate = issueServerCertificate(local, ['localhost', '127.0.0.1', '::1', ...hostnames]);
    } catch (error) {
      journal?.close();
      throw error;
    }
    const { createServer } = await import('node:https');
    const serverOptions = { ...certificate, ...receiveBounds(state.limits), handshakeTimeout: state.limits.headersMs };
    server = createAdaptorServer({ fetch: app.fetch, createServer, serverOptions }) as unknown as import('node:http').Server;
    server.on('tlsClientError', () => {}); // a client that refuses the certificate hangs up; nothing to do
  } else {
    server = createAdaptorServer({ fetch: app.fetch, serverOptions: receiveBounds(state.limits) }) as import('node:http').Server;
  }
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    journal?.close();
    throw error;
  }
  const port = (server.address() as AddressInfo).port;
  const url = `${opts.https ? 'https' : 'http'}://${urlHost(host)}:${port}`;
  state.address = { url, port, hostnames, ...(ca ? { caFile: ca.certFile } : {}) };
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    get seed() {
      if (!state.seed) throw new Error('this emulator loaded its world from a file: its keys were shown when they were made');
      return state.seed;
    },
    loaded,
    ca,
    state,
    clock,
    requests,
    dashboardUrl: `${url}/`,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        for (const subscriber of [...state.subscribers]) subscriber.end();
        server.close(() => {
          try {
            journal?.close();
            resolve();
          } catch (error) {
            reject(error);
          }
        });
        // Keep-alive and half-finished connections would otherwise hold close() open.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** `--export`: the state file's world as a document in `outPath`; the state file is locked meanwhile and left as it is. */
export function exportStateFile(statePath: string, outPath: string): LoadSummary {
  const journal = new FileJournal(statePath);
  const state = createState(advancingClock(), 15_000, { seed: false });
  const summary = journal.read(state);
  writeDocumentFile(outPath, exportDocument(state));
  return summary;
}

/** `--import`: the document in a file (validated when the emulator starts from it). */
export function readDocumentFile(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8')) as unknown;
}

/**
 * How long a client may take to send a request (Node answers 408 and closes past it). Checked
 * every second (Node's default is every 30 s), more often for the tests' short bounds.
 */
function receiveBounds(limits: Limits): import('node:http').ServerOptions {
  return {
    headersTimeout: Math.min(limits.headersMs, limits.requestMs),
    requestTimeout: limits.requestMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(limits.headersMs / 2))),
  };
}

/** A wildcard bind is reached through loopback; IPv6 literals need brackets in a URL. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
