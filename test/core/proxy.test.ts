// Proxy variables are honoured (docs/design.md "HTTP"): with HTTP_PROXY set, requests go
// through the proxy (undici tunnels with CONNECT); NO_PROXY exempts hosts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { runCli } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';

const emu = useTestEmulator();
let proxy: Server;
let proxyUrl: string;
const seen: string[] = [];

beforeAll(async () => {
  // A minimal forward proxy for plain HTTP: records the request line, relays the exchange.
  proxy = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const upstream = request(req.url!, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  // undici's ProxyAgent tunnels (CONNECT) even for http:// targets.
  proxy.on('connect', (req, client, head) => {
    seen.push(`${req.method} ${req.url}`);
    const [host, port] = req.url!.split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
});
afterAll(async () => {
  proxy.closeAllConnections();
  await new Promise((r) => proxy.close(r));
});

describe('proxy variables', () => {
  it('HTTP_PROXY routes requests through the proxy', async () => {
    seen.length = 0;
    const r = await runCli(['account', 'balance', '--json'], { env: { SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: emu().url, HTTP_PROXY: proxyUrl } });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).object).toBe('balance');
    expect(seen).toEqual([`CONNECT ${new URL(emu().url).host}`]);
  });

  it('NO_PROXY exempts the host', async () => {
    seen.length = 0;
    const r = await runCli(['account', 'balance', '--json'], {
      env: { SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: emu().url, http_proxy: proxyUrl, NO_PROXY: '127.0.0.1' },
    });
    expect(r.exitCode).toBe(0);
    expect(seen).toEqual([]);
  });

  it('each invocation chooses for itself: a direct run before it does not keep the next one off the proxy', async () => {
    seen.length = 0;
    const direct = await runCli(['account', 'balance', '--json'], { env: { SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: emu().url } });
    expect(direct.exitCode).toBe(0);
    expect(seen).toEqual([]);
    // The NO_PROXY test's variables without NO_PROXY: through the proxy, so that test's exemption is NO_PROXY's doing.
    const proxied = await runCli(['account', 'balance', '--json'], {
      env: { SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: emu().url, http_proxy: proxyUrl },
    });
    expect(proxied.exitCode).toBe(0);
    expect(seen).toEqual([`CONNECT ${new URL(emu().url).host}`]);
  });
});
