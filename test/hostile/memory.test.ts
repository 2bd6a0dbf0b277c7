// Bounded memory against a hostile server, measured where it matters: the shipped binary
// in its own process (docs/design.md "Tests": hostile-server suite). The server offers 1.5 GiB,
// generated as it is read; svc must stop at its cap, exit 9 with the limit named, and
// keep its peak resident memory far below what it was offered.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileServer, json, streamLazily, type HostileServer, type Protocol } from './server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const wrapper = join(root, 'test/hostile/maxrss.cjs');
const MiB = 1024 * 1024;
const OFFERED = 1536 * MiB;
/** Node itself takes 40–60 MiB; the caps add 8 MiB at most. Without them this was gigabytes. */
const RSS_BOUND_MIB = 160;

// Over plain http and over https (the tests' CA, trusted as users trust one: NODE_EXTRA_CA_CERTS).
const servers: Partial<Record<Protocol, HostileServer>> = {};
let server: HostileServer;
let configDir: string;

beforeAll(async () => {
  servers.http = await hostileServer('http');
  servers.https = await hostileServer('https');
  configDir = mkdtempSync(join(tmpdir(), 'svc-hostile-'));
});
afterAll(async () => {
  await servers.http?.close();
  await servers.https?.close();
  rmSync(configDir, { recursive: true, force: true });
});

function svcWithPeakMemory(args: string[]): Promise<{ code: number | null; stderr: string; maxRssMiB: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [wrapper, ...args], {
      env: {
        PATH: process.env.PATH ?? '',
        HOME: configDir,
        SVC_CONFIG_DIR: configDir,
        SVC_CREDENTIAL_STORE: 'file',
        SVC_BASE_URL: server.url,
        SVC_API_KEY: 'svc_test_hostile0000000000000000',
        NODE_EXTRA_CA_CERTS: process.env.NODE_EXTRA_CA_CERTS ?? '',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const kib = Number(/maxrss_kib=(\d+)/.exec(stderr)?.[1] ?? Number.NaN);
      resolve({ code, stderr, maxRssMiB: kib / 1024 });
    });
  });
}

describe.each(['http', 'https'] as const)('the binary against 1.5 GiB answers over %s', (protocol) => {
  beforeAll(() => {
    server = servers[protocol]!;
  });

  it('a JSON body that goes on and on: exit 9 naming 8 MiB, peak memory bounded, the server stopped early', async () => {
    let sent: Promise<number> | undefined;
    server.on('/v1/account', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"name":"');
      sent = streamLazily(res, Buffer.alloc(256 * 1024, 'a'), OFFERED);
    });
    const ran = await svcWithPeakMemory(['account']);
    expect(ran.maxRssMiB).toBeLessThan(RSS_BOUND_MIB);
    expect(ran.stderr).toContain('larger than 8 MiB');
    expect(ran.code).toBe(9);
    expect(await sent!).toBeLessThan(64 * MiB);
  });

  it('an event-stream line that never ends: exit 9 naming 1 MiB, peak memory bounded', async () => {
    server.on('/v1/account', (_req, res) =>
      json(res, 200, { object: 'account', id: 'org_h', name: 'H', livemode: false, credential: { type: 'api_key', scopes: [] } }),
    );
    let sent: Promise<number> | undefined;
    server.on('/v1/events/stream', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: ');
      sent = streamLazily(res, Buffer.alloc(256 * 1024, 'z'), OFFERED);
    });
    const ran = await svcWithPeakMemory(['events', 'tail', '--json']);
    expect(ran.maxRssMiB).toBeLessThan(RSS_BOUND_MIB);
    expect(ran.stderr).toContain('larger than 1 MiB');
    expect(ran.code).toBe(9);
    expect(await sent!).toBeLessThan(64 * MiB);
  });
});
