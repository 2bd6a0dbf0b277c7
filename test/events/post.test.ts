// How a delivery is POSTed (src/events/post.ts), against a real local handler through
// svc's own HTTP transport: the answer is read so the connection is kept for the next delivery,
// a long answer is cut, and the forwarder's abort ends a POST that gets no answer.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createHttp } from '../../src/api/http.js';
import { pooledPost } from '../../src/events/post.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function handlerAnswering(answer: (n: number) => { status: number; body?: string } | 'never') {
  const connections = new Set<unknown>();
  let n = 0;
  const server = createServer((req, res) => {
    connections.add(req.socket);
    req.resume();
    req.on('end', () => {
      const a = answer(++n);
      if (a === 'never') return;
      res.statusCode = a.status;
      res.end(a.body ?? '');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, connections: () => connections.size };
}

function transport() {
  const http = createHttp({ env: {}, userAgent: 'svc/test' });
  closers.push(() => http.close());
  return http;
}

describe('pooledPost', () => {
  it('reads each answer, so twenty deliveries share one kept-alive connection; answers longer than 64 KiB are cut', async () => {
    const handler = await handlerAnswering((n) => (n === 5 ? { status: 200, body: 'x'.repeat(200_000) } : { status: n === 3 ? 500 : 204, body: 'ok' }));
    const post = pooledPost(transport());
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await post(handler.url, '{}', { 'content-type': 'application/json' }, new AbortController().signal)).status);
    expect(statuses[2]).toBe(500);
    expect(statuses.filter((s) => s === 204)).toHaveLength(18);
    // The cut answer costs its connection; every other delivery reuses the one before.
    expect(handler.connections()).toBeLessThanOrEqual(2);
  });

  it("the forwarder's abort ends a POST that gets no answer", async () => {
    const handler = await handlerAnswering(() => 'never');
    const post = pooledPost(transport());
    const stop = new AbortController();
    const posted = post(handler.url, '{}', {}, stop.signal);
    stop.abort(new Error('no answer within 0.05 s'));
    await expect(posted).rejects.toThrow();
  });
});
