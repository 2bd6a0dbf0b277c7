// https, through the shipped program in its own process (Node reads NODE_EXTRA_CA_CERTS
// when it starts): a service behind a certificate Node trusts is reached through Node's
// https module; one behind a certificate Node refuses is not retried and never reached
// insecurely, and the error says how to trust it. The certificate is a test fixture for
// 127.0.0.1 (test/helpers/tls/, valid until 2126).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { root, spawnCollect, svcCommand, svcPath, type Spawned } from '../helpers/spawn.js';

const certFile = join(root, 'test/helpers/tls/cert.pem');
const KEY = 'svc_test_tls00000000000000000000';

const answers: Record<string, unknown> = {
  '/v1/account': { object: 'account', id: 'org_tls', name: 'Over TLS', livemode: false, credential: { type: 'api_key', scopes: ['account:read'] } },
  '/v1/balance': { object: 'balance', currency: 'usd', available: 1234, livemode: false },
};

let server: Server;
let origin: string;
let configDir: string;
let connections = 0;
let requests: string[] = [];

beforeAll(async () => {
  configDir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
  server = createServer({ cert: readFileSync(certFile), key: readFileSync(join(root, 'test/helpers/tls/key.pem')) }, (req, res) => {
    requests.push(req.url!);
    const answer = answers[req.url!];
    res.writeHead(answer ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer ?? { error: { type: 'not_found', message: 'no such path' } }));
  });
  server.on('connection', () => connections++);
  server.on('tlsClientError', () => {}); // the refusing client hangs up mid-handshake
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  rmSync(configDir, { recursive: true, force: true });
});
beforeEach(() => {
  connections = 0;
  requests = [];
});

function svc(args: string[], env: Record<string, string> = {}): Promise<Spawned> {
  // Only what the case gives: NODE_EXTRA_CA_CERTS of this machine's own must not leak in.
  return spawnCollect(...svcCommand(args), {
    env: { PATH: svcPath(), HOME: configDir, SVC_CONFIG_DIR: configDir, SVC_API_KEY: KEY, SVC_BASE_URL: origin, NO_COLOR: '1', ...env },
  });
}

describe('https', () => {
  it('reaches a service whose certificate Node trusts (here through NODE_EXTRA_CA_CERTS)', async () => {
    const ran = await svc(['account', '--json'], { NODE_EXTRA_CA_CERTS: certFile });
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ id: 'org_tls', balance: { available: 1234 } });
    expect(requests.sort()).toEqual(['/v1/account', '/v1/balance']); // asked together
  });

  it('refuses a certificate Node does not trust: exit 9 at once, nothing sent, the way to trust it named', async () => {
    const ran = await svc(['account', '--json']);
    expect(ran.code).toBe(9);
    expect(ran.stderr).toContain(`cannot reach ${origin}: its TLS certificate was refused (DEPTH_ZERO_SELF_SIGNED_CERT); nothing was sent`);
    expect(ran.stderr).toContain('NODE_EXTRA_CA_CERTS=/path/to/ca.pem');
    expect(requests).toEqual([]);
    // One connection for each of the two requests asked together, neither retried: another try meets the same certificate.
    expect(connections).toBe(2);
  });

  it('svc doctor says the same of the service check', async () => {
    const ran = await svc(['doctor', '--json']);
    expect(ran.code).toBe(1);
    const service = (JSON.parse(ran.stdout) as { checks: Array<{ check: string; status: string; message: string; fix: string }> }).checks.find(
      (c) => c.check === 'service',
    );
    expect(service).toMatchObject({
      status: 'failed',
      message: `cannot reach ${origin}: its TLS certificate was refused (DEPTH_ZERO_SELF_SIGNED_CERT); nothing was sent`,
    });
    expect(service!.fix).toContain('NODE_EXTRA_CA_CERTS=/path/to/ca.pem');
  });

  it("a trusted certificate of another host's is refused the same way", async () => {
    const tls = join(root, 'test/helpers/tls');
    const otherCert = join(tls, 'other-host-cert.pem');
    const impostor = createServer({ cert: readFileSync(otherCert), key: readFileSync(join(tls, 'other-host-key.pem')) }, (req, res) => {
      requests.push(req.url!);
      res.end('{}');
    });
    impostor.on('tlsClientError', () => {});
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    try {
      const at = `https://127.0.0.1:${(impostor.address() as AddressInfo).port}`;
      const ran = await svc(['account', '--json'], { NODE_EXTRA_CA_CERTS: otherCert, SVC_BASE_URL: at });
      expect(ran.code).toBe(9);
      expect(ran.stderr).toContain(`cannot reach ${at}: its TLS certificate was refused (ERR_TLS_CERT_ALTNAME_INVALID); nothing was sent`);
      expect(requests).toEqual([]);
    } finally {
      impostor.closeAllConnections();
      impostor.close();
    }
  });
});
