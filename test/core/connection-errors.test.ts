// Errors a person can act on (issue 32): one mapping of connection failures for every command,
// svc login and svc doctor included, against real servers: the emulator over http and over
// https, each asked with the other scheme; a plain TCP server that never answers; an https
// emulator whose CA Node does not trust; a web server that is not the service. No library
// text (ECONNREFUSED, EPROTO, OpenSSL's, UND_ERR_*) reaches the user.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { TEST_CA_DIR, testCaFile } from '../helpers/test-ca.js';
import { recordingServer } from '../helpers/http-servers.js';
import type { RunningEmulator } from '../../src/emulator/index.js';

/** Nothing of a library's own words: codes, OpenSSL's text, a source path. */
function expectNoLibraryText(stderr: string): void {
  expect(stderr).not.toMatch(/UND_ERR|EPROTO|ECONNREFUSED|ECONNRESET|ssl3_|openssl|routines|socket hang up|\.c:\d+/i);
}

const closers: Array<() => unknown> = [];
let plain: RunningEmulator;
let secure: RunningEmulator;
let untrusted: RunningEmulator;
let untrustedDir: string;
let silent: NetServer;
let silentPort: number;
const silentSockets = new Set<Socket>();

beforeAll(async () => {
  testCaFile(); // the tests' CA, which the test processes trust (vitest.config.ts)
  plain = await startTestEmulator();
  secure = await startTestEmulator({ https: { caDir: TEST_CA_DIR } });
  untrustedDir = mkdtempSync(join(tmpdir(), 'svc-untrusted-ca-'));
  untrusted = await startTestEmulator({ https: { caDir: join(untrustedDir, 'ca') } });
  // Accepts every connection and never says a byte: no HTTP answer, no TLS handshake.
  silent = createNetServer((socket) => {
    silentSockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  silentPort = (silent.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const socket of silentSockets) socket.destroy();
  silent.close();
  await Promise.all([plain.close(), secure.close(), untrusted.close()]);
  for (const close of closers) await close();
  rmSync(untrustedDir, { recursive: true, force: true });
});

const hostOf = (emulator: RunningEmulator) => new URL(emulator.url).host;

describe('the scheme does not match the server', () => {
  it('https:// to the emulator over http: it does not speak https; use http://', async () => {
    const address = `https://${hostOf(plain)}`;
    const r = await runCli(['account'], { env: { SVC_API_KEY: plain.seed.keys.test, SVC_BASE_URL: address } });
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toContain(`cannot reach ${address}: the server there does not speak https (it answered in plain http); nothing was sent`);
    expect(r.stderr).toContain(`use http://${hostOf(plain)} as the address (--base-url / SVC_BASE_URL)`);
    expectNoLibraryText(r.stderr);
  });

  it('http:// to the emulator over https: it speaks https; use https://, naming NODE_EXTRA_CA_CERTS', async () => {
    const address = `http://${hostOf(secure)}`;
    const r = await runCli(['account'], { env: { SVC_API_KEY: secure.seed.keys.test, SVC_BASE_URL: address } });
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toContain(`cannot reach ${address}: the server there speaks https, not plain http; nothing was sent`);
    expect(r.stderr).toContain(`use https://${hostOf(secure)}`);
    expect(r.stderr).toContain('NODE_EXTRA_CA_CERTS');
    expectNoLibraryText(r.stderr);
  });

  it('the emulator over https, asked with https, answers (the same stack that maps the failures)', async () => {
    const r = await runCli(['account', '--json'], { env: { SVC_API_KEY: secure.seed.keys.test, SVC_BASE_URL: secure.url } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).object).toBe('account');
  });

  it('svc login says the same as every command, before any browser opens', async () => {
    const opened: string[] = [];
    const browser = { open: async (url: string) => void opened.push(url) };
    const address = `https://${hostOf(plain)}`;
    const r = await runCli(['login'], { env: { SVC_BASE_URL: address, DISPLAY: ':0' }, browser });
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toContain(`cannot reach ${address}: the server there does not speak https`);
    expectNoLibraryText(r.stderr);
    expect(opened).toEqual([]);
  });
});

describe('a certificate Node does not trust', () => {
  it('svc login names NODE_EXTRA_CA_CERTS; nothing was sent', async () => {
    const r = await runCli(['login'], { env: { SVC_BASE_URL: untrusted.url, DISPLAY: ':0' } });
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toContain(`cannot reach ${untrusted.url}: its TLS certificate was refused`);
    expect(r.stderr).toContain('nothing was sent');
    expect(r.stderr).toContain('NODE_EXTRA_CA_CERTS=');
  });
});

describe('a server that accepts the connection and never answers', () => {
  it('over http, a GET: no complete answer within the deadline', async () => {
    const address = `http://127.0.0.1:${silentPort}`;
    const r = await runCli(['account'], { env: { SVC_API_KEY: plain.seed.keys.test, SVC_BASE_URL: address, SVC_HTTP_TIMEOUT: '0.5' } });
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toContain(`no complete answer from ${address} within 0.5 s; gave up`);
    expectNoLibraryText(r.stderr);
  });

  it('over http, a POST: the request reached the server, so it may have been processed', async () => {
    const address = `http://127.0.0.1:${silentPort}`;
    const r = await runCli(['calls', 'start', '--languages', 'en,es'], {
      env: { SVC_API_KEY: plain.seed.keys.test, SVC_BASE_URL: address, SVC_HTTP_TIMEOUT: '0.5' },
    });
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toContain('the request may have been processed');
    expect(r.stderr).toContain('check whether it took effect');
  });

  it('over https, a POST: the TLS handshake never finished, so nothing was sent (never "may have been processed")', async () => {
    const address = `https://127.0.0.1:${silentPort}`;
    const r = await runCli(['calls', 'start', '--languages', 'en,es'], {
      env: { SVC_API_KEY: plain.seed.keys.test, SVC_BASE_URL: address, SVC_HTTP_TIMEOUT: '0.5' },
    });
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toContain(`cannot reach ${address}: no connection made within 0.5 s; nothing was sent`);
    expect(r.stderr).not.toContain('may have been processed');
    expectNoLibraryText(r.stderr);
  });

  it('svc doctor reports it in the same words, not UND_ERR_HEADERS_TIMEOUT', async () => {
    const address = `http://127.0.0.1:${silentPort}`;
    const r = await runCli(['doctor', '--json'], { env: { SVC_API_KEY: plain.seed.keys.test, SVC_BASE_URL: address, SVC_HTTP_TIMEOUT: '0.5' } });
    const checks = (JSON.parse(r.stdout) as { checks: Array<{ check: string; status: string; message: string }> }).checks;
    const service = checks.find((c) => c.check === 'service' && c.status === 'failed');
    expect(service?.message).toBe(`no complete answer from ${address} within 0.5 s; gave up`);
    expectNoLibraryText(r.stdout);
  });
});

describe('an address that is not the service', () => {
  it('a 404 without the service error body says the address may not be the service, naming --base-url', async () => {
    const web = await recordingServer(
      (res) => res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>'),
      (close) => closers.push(close),
    );
    const r = await runCli(['account'], { env: { SVC_API_KEY: plain.seed.keys.test, SVC_BASE_URL: web.origin } });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toContain(`${web.origin} answered without the service's error body, so it may not be the service`);
    expect(r.stderr).toContain('--base-url');
  });

  it("the service's own 404 keeps its own words", async () => {
    const r = await runCli(['calls', 'get', 'call_doesnotexist00'], { env: { SVC_API_KEY: plain.seed.keys.test, SVC_BASE_URL: plain.url } });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).not.toContain('may not be the service');
  });
});

describe('odd input', () => {
  it('a 100 KB key is a clear local error (exit 2), nothing sent, not "failed with 431"', async () => {
    const web = await recordingServer(
      (res) => res.writeHead(200).end('{}'),
      (close) => closers.push(close),
    );
    const r = await runCli(['account'], { env: { SVC_API_KEY: `svc_test_${'a'.repeat(100_000)}`, SVC_BASE_URL: web.origin } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('SVC_API_KEY contains 98 KiB of text, far more than a key or token holds, so it cannot be sent');
    expect(r.stderr).not.toContain('431');
    expect(web.requests).toEqual([]);
  });
});
