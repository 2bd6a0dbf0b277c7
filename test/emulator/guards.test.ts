// Cross-site safety (issue 13), over real HTTP with the headers a browser or a rebinding page
// sends: Host names other than the bound address are 421, other sites' control-plane requests
// are 403, and the RFC 8414 metadata names the emulator's own address whatever Host says.
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { boundHostnames, hostnameOf } from '../../src/emulator/guards.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { useEmulator } from './helpers.js';

/** node:http, because fetch will not send a Host header of our choosing. */
function raw(emu: RunningEmulator, method: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${emu.url}${path}`, { method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // HTML pages stay text
        }
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('Host names (DNS rebinding)', () => {
  const emulator = useEmulator({ allowHosts: ['svc-emu.test'] });

  it('answers the loopback names of a loopback bind and --allow-host names, any letter case', async () => {
    const emu = emulator();
    const key = emu.seed.keys.test;
    for (const host of [
      `127.0.0.1:${emu.port}`,
      `localhost:${emu.port}`,
      `LocalHost:${emu.port}`,
      `[::1]:${emu.port}`,
      'svc-emu.test',
      `svc-emu.test:${emu.port}`,
    ]) {
      expect((await raw(emu, 'GET', '/v1/account', { host, authorization: `Bearer ${key}` })).status, host).toBe(200);
    }
  });

  it('answers 421 to any other Host, on the API, the authorize page and the control plane', async () => {
    const emu = emulator();
    const key = emu.seed.keys.test;
    for (const host of [`evil.example:${emu.port}`, 'evil.example', `127.0.0.1.evil.example:${emu.port}`, `localhost.evil.example`, '10.0.0.1']) {
      const api = await raw(emu, 'GET', '/v1/account', { host, authorization: `Bearer ${key}` });
      expect(api.status, host).toBe(421);
      expect(api.body.detail).toContain('--allow-host');
      expect((await raw(emu, 'GET', '/oauth/authorize?client_id=svc_app_cli', { host })).status, host).toBe(421);
      expect((await raw(emu, 'POST', '/_emulator/reset', { host })).status, host).toBe(421);
    }
    // Nothing was reset by those attempts: the seeded key still works.
    expect((await raw(emu, 'GET', '/v1/account', { host: `127.0.0.1:${emu.port}`, authorization: `Bearer ${key}` })).status).toBe(200);
  });

  it('parses Host headers and lists the names of a bind', () => {
    expect(hostnameOf('[::1]:4010')).toBe('::1');
    expect(hostnameOf('LOCALHOST')).toBe('localhost');
    expect(hostnameOf('a b')).toBeNull();
    expect(hostnameOf(undefined)).toBeNull();
    expect([...boundHostnames('127.0.0.1')].sort()).toEqual(['127.0.0.1', '::1', 'localhost']);
    expect([...boundHostnames('192.0.2.7', ['dev.box'])].sort()).toEqual(['192.0.2.7', 'dev.box']);
    expect(boundHostnames('0.0.0.0').has('localhost')).toBe(true);
  });
});

describe('control plane against other sites', () => {
  const emulator = useEmulator();

  it('refuses a control-plane request whose Origin or Sec-Fetch-Site shows another site (403), and changes nothing', async () => {
    const emu = emulator();
    const host = `127.0.0.1:${emu.port}`;
    const before = emu.seed.keys.test;
    const refused: Record<string, string>[] = [
      { origin: 'http://evil.example' },
      { origin: 'null' },
      { origin: `http://127.0.0.1:${emu.port + 1}` },
      { origin: `https://127.0.0.1:${emu.port}` },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of refused) {
      const answer = await raw(emu, 'POST', '/_emulator/reset', { host, ...headers });
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(answer.body.detail).toMatch(/other sites/);
    }
    expect((await raw(emu, 'GET', '/v1/account', { host, authorization: `Bearer ${before}` })).status).toBe(200);
    // Its own pages and tools: same origin, a typed URL (none), or no such header at all.
    for (const headers of <Record<string, string>[]>[
      { origin: emu.url },
      { origin: `http://localhost:${emu.port}` },
      { 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'none' },
      {},
    ]) {
      expect((await raw(emu, 'GET', '/_emulator/stats', { host, ...headers })).status, JSON.stringify(headers)).toBe(200);
    }
  });

  it('builds the RFC 8414 metadata from its own address, never from Host', async () => {
    const emu = emulator();
    const answer = await raw(emu, 'GET', '/.well-known/oauth-authorization-server', { host: `localhost:${emu.port}` });
    expect(answer.status).toBe(200);
    expect(answer.body.issuer).toBe(emu.url);
    expect(answer.body.authorization_endpoint).toBe(`${emu.url}/oauth/authorize`);
    expect(answer.body.token_endpoint).toBe(`${emu.url}/oauth2/token`);
  });
});
