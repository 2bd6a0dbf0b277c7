// `svc mcp` answers `initialize` before the service's prices arrive (they are only for the
// tools' descriptions): what the client sends after it waits for them, in order, and a
// tools/list sent at once still states the prices.
import { afterEach, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { svcCommand } from '../helpers/spawn.js';

let child: ChildProcess | undefined;
let service: Server | undefined;

afterEach(() => {
  child?.kill();
  service?.close();
});

const PRICES = JSON.stringify({
  object: 'list',
  has_more: false,
  data: [{ object: 'price', item: 'translation_character', unit_amount: 0.002, currency: 'usd' }],
});

it('answers initialize while GET /v1/prices is unanswered, and a tools/list sent at once gets the priced list', async () => {
  const held: ServerResponse[] = [];
  service = createServer((req, res) => {
    if (req.url?.startsWith('/v1/prices')) held.push(res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => service!.listen(0, '127.0.0.1', resolve));
  const { port } = service.address() as { port: number };
  const home = mkdtempSync(join(tmpdir(), 'svc-mcp-init-'));
  const [command, args] = svcCommand(['mcp']);
  child = spawn(command, args, {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: join(home, 'home'),
      SVC_CONFIG_DIR: join(home, 'config'),
      SVC_API_KEY: `svc_test_${'b'.repeat(32)}`,
      SVC_BASE_URL: `http://127.0.0.1:${port}`,
      NO_COLOR: '1',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const answers = new Map<number, (value: any) => void>();
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      answers.get(message.id)?.(message);
    }
  });
  const send = (message: object) => child!.stdin!.write(`${JSON.stringify(message)}\n`);
  const answerTo = (id: number) => new Promise<any>((resolve) => answers.set(id, resolve));

  const initialized = answerTo(1);
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  const init = await initialized;
  expect(init.result.serverInfo.name).toBe('svc');
  // The prices were asked for and are still unanswered.
  await expect.poll(() => held.length).toBe(1);

  const listed = answerTo(2);
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
  held[0]!.writeHead(200, { 'content-type': 'application/json' }).end(PRICES);
  const list = await listed;
  const translate = list.result.tools.find((t: { name: string }) => t.name === 'translate');
  expect(translate.description).toContain('Free here (test mode); in live mode $0.00002 per translated character.');
});
