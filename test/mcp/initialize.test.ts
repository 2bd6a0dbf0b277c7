// `svc mcp` answers `initialize` before it reads anything from the service: the prices (for the
// tools' descriptions) and events_wait's position are read once initialize is answered, and
// what the client sends after it waits for both, in order. A tools/list sent at once still
// states the prices; events_wait resumes from the position read then.
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
  next_cursor: null,
  data: [{ object: 'price', item: 'translation_character', unit_amount: 0.002, currency: 'usd' }],
});

/** `svc mcp` from a HOME and config folder that do not exist yet, against `server` (listening once this resolves). */
async function startSvcMcp(server: Server): Promise<ChildProcess> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const home = mkdtempSync(join(tmpdir(), 'svc-mcp-init-'));
  const [command, args] = svcCommand(['mcp']);
  return spawn(command, args, {
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
}

it('answers initialize while GET /v1/prices and the events position are unanswered; what follows waits for both', async () => {
  const held = new Map<string, ServerResponse>();
  const streamedFrom: Array<string | undefined> = [];
  service = createServer((req, res) => {
    if (req.url?.startsWith('/v1/prices')) held.set('prices', res);
    else if (req.url === '/v1/events?limit=1') held.set('position', res);
    else if (req.url?.startsWith('/v1/events/stream')) {
      streamedFrom.push(req.headers['last-event-id'] as string | undefined);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        `id: evt_next\nevent: chat.started\ndata: ${JSON.stringify({ id: 'evt_next', object: 'event', type: 'chat.started', created_at: '2026-01-01T00:00:00Z', livemode: false, data: {} })}\n\n`,
      );
    } else res.writeHead(404).end();
  });
  child = await startSvcMcp(service);
  const answers = new Map<number, (value: any) => void>();
  const order: number[] = [];
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
      if (typeof message.id === 'number') order.push(message.id);
      answers.get(message.id)?.(message);
    }
  });
  const send = (message: object) => child!.stdin!.write(`${JSON.stringify(message)}\n`);
  const answerTo = (id: number) => new Promise<any>((resolve) => answers.set(id, resolve));

  const initialized = answerTo(1);
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  const init = await initialized;
  expect(init.result.serverInfo.name).toBe('svc');
  // Both reads were asked for after the answer, and are still unanswered.
  await expect.poll(() => [...held.keys()].sort()).toEqual(['position', 'prices']);

  const listed = answerTo(2);
  const waited = answerTo(3);
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
  send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'events_wait', arguments: { max_events: 1, wait_seconds: 5 } } });
  held.get('prices')!.writeHead(200, { 'content-type': 'application/json' }).end(PRICES);
  held
    .get('position')!
    .writeHead(200, { 'content-type': 'application/json' })
    .end(
      JSON.stringify({
        object: 'list',
        has_more: false,
        next_cursor: null,
        data: [{ id: 'evt_at_start', object: 'event', type: 'chat.started', livemode: false, created_at: '2026-01-01T00:00:00Z', data: {} }],
      }),
    );
  const list = await listed;
  const translate = list.result.tools.find((t: { name: string }) => t.name === 'translate');
  expect(translate.description).toContain('Free here (test mode); in live mode $0.00002 per translated character.');
  // events_wait read on from the position taken then: the event after it, nothing before it.
  const wait = await waited;
  expect(wait.result.structuredContent.events.map((e: { id: string }) => e.id)).toEqual(['evt_next']);
  expect(streamedFrom).toEqual(['evt_at_start']);
  expect(order).toEqual([1, 2, 3]);
});

it('a service that never answers holds nothing past READY_WITHIN_MS: tools/list comes without the prices', async () => {
  const held: ServerResponse[] = [];
  service = createServer((req, res) => void held.push(res));
  child = await startSvcMcp(service);
  let buffered = '';
  const listed = new Promise<any>((resolve) =>
    child!.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (const line of buffered.split('\n').slice(0, -1)) if (JSON.parse(line).id === 2) resolve(JSON.parse(line));
    }),
  );
  const send = (message: object) => child!.stdin!.write(`${JSON.stringify(message)}\n`);
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
  const list = await listed;
  expect(held.length).toBeGreaterThanOrEqual(2);
  const translate = list.result.tools.find((t: { name: string }) => t.name === 'translate');
  expect(translate.description).toContain('Free here (test mode)');
  expect(translate.description).not.toContain('$');
}, 20_000);
