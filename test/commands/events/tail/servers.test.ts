// `svc events tail` against servers of the test's own: one that repeats itself, one that goes silent, one that sends nothing.
import { createServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../helpers/cli.js';
import { countingTransport, virtualClock } from '../../../helpers/clock.js';
import { createHttp } from '../../../../src/api/http.js';
import { useTailSuite } from '../../../helpers/tail.js';

const { ndjson } = useTailSuite();

/** One event as a stream frame, `evt_<n>`. */
const frame = (n: number) =>
  `id: evt_${n}\nevent: call.started\ndata: {"object":"event","id":"evt_${n}","type":"call.started","created_at":"2026-01-01T00:00:00Z","livemode":false,"data":{}}\n\n`;

describe('events tail against a server that repeats itself', () => {
  it('prints each event once even when a resumed stream replays events already sent', async () => {
    const lastEventIds: Array<string | undefined> = [];
    const server = createServer((req, res) => {
      if (!req.url?.startsWith('/v1/events/stream')) {
        res.statusCode = 404;
        res.setHeader('content-type', 'application/json');
        return res.end('{"detail":"not here"}');
      }
      lastEventIds.push(req.headers['last-event-id'] as string | undefined);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (lastEventIds.length === 1) {
        res.end([1, 2, 3].map(frame).join(''));
      } else {
        // Ignores Last-Event-ID and starts over: the tail must not print 1-3 again.
        res.write([1, 2, 3, 4, 5].map(frame).join(''));
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { exitCode, stdout, stderr } = await runCli(['events', 'tail', '--json', '--max-events', '5'], {
        env: { SVC_API_KEY: 'svc_test_0123456789abcdef', SVC_BASE_URL: url },
      });
      expect(exitCode, stderr).toBe(0);
      expect(ndjson(stdout).map((e) => e.id)).toEqual(['evt_1', 'evt_2', 'evt_3', 'evt_4', 'evt_5']);
      expect(lastEventIds).toEqual([undefined, 'evt_3']);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('events tail against a server that goes silent', () => {
  // On a virtual clock that moves only while no request awaits its answer's head, never with the machine's speed.
  it('reconnects with Last-Event-ID when no byte arrives for 45 s', async () => {
    const lastEventIds: Array<string | undefined> = [];
    const server = createServer((req, res) => {
      if (!req.url?.startsWith('/v1/events/stream')) {
        res.statusCode = 404;
        return res.end();
      }
      lastEventIds.push(req.headers['last-event-id'] as string | undefined);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // The first connection sends one event and then nothing, not even a keepalive, and never ends.
      res.write(frame(lastEventIds.length));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const http = countingTransport(createHttp({ env: {}, userAgent: 'svc/test', now: () => clock.now() }));
    const clock = virtualClock(Date.now(), () => http.waiting() === 0);
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { exitCode, stdout, stderr } = await runCli(['events', 'tail', '--json', '--max-events', '2'], {
        env: { SVC_API_KEY: 'svc_test_0123456789abcdef', SVC_BASE_URL: url },
        clock,
        http,
      });
      expect(exitCode, stderr).toBe(0);
      expect(ndjson(stdout).map((e) => e.id)).toEqual(['evt_1', 'evt_2']);
      expect(lastEventIds).toEqual([undefined, 'evt_1']);
      expect(stderr).toMatch(/connection lost \(no data for 45 s\)/);
      expect(stderr).toMatch(/reconnected after .* away, resuming after evt_1/);
    } finally {
      await http.close();
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('events tail against a server that sends nothing (on a clock running 1,000 times faster)', () => {
  const fastClock = () => {
    const origin = Date.now();
    return {
      now: () => origin + (Date.now() - origin) * 1000,
      sleep: (ms: number, signal?: AbortSignal) => delay(ms / 1000, undefined, { signal }),
    };
  };

  // On a virtual clock that moves only while no request awaits its answer's head, never with the machine's speed.
  it('headers and then silence: --idle-timeout fires, and no "reconnected" is said though connections were answered', async () => {
    let streams = 0;
    const http = countingTransport(createHttp({ env: {}, userAgent: 'svc/test', now: () => clock.now() }));
    const clock = virtualClock(Date.now(), () => http.waiting() === 0);
    const server = createServer((req, res) => {
      if (!req.url?.startsWith('/v1/events/stream')) {
        res.statusCode = 404;
        return res.end();
      }
      streams++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.flushHeaders();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { exitCode, stdout, stderr } = await runCli(['events', 'tail', '--json', '--idle-timeout', '100s'], {
        env: { SVC_API_KEY: 'svc_test_0123456789abcdef', SVC_BASE_URL: url },
        clock,
        http,
      });
      expect(exitCode, stderr).toBe(9);
      expect(stdout).toBe('');
      // Cut after the 45 s heartbeat, tried again, given up at --idle-timeout.
      expect(streams).toBeGreaterThanOrEqual(2);
      expect(stderr).toMatch(/the stream opened but nothing arrived in [\d.]+ s; retrying…/);
      // Given up once the 100 s had passed.
      const silence = /nothing from the event stream for (?:(\d+) min)? ?(?:([\d.]+) s)? \(--idle-timeout/.exec(stderr);
      expect(silence, stderr).not.toBeNull();
      expect(Number(silence![1] ?? 0) * 60 + Number(silence![2] ?? 0)).toBeGreaterThanOrEqual(100);
      expect(stderr).not.toMatch(/reconnected|connected after/);
    } finally {
      await http.close();
      server.closeAllConnections();
      server.close();
    }
  });

  it('a connection accepted but never answered is not called "cannot connect"', async () => {
    const sockets = new Set<Socket>();
    // TCP is accepted; the stream request gets no answer at all (other requests a 404).
    const server = createNetServer((socket) => {
      sockets.add(socket);
      socket.once('data', (chunk) => {
        if (!chunk.toString('latin1').includes('/v1/events/stream')) socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { exitCode, stderr } = await runCli(['events', 'tail', '--json', '--idle-timeout', '100s'], {
        env: { SVC_API_KEY: 'svc_test_0123456789abcdef', SVC_BASE_URL: url },
        clock: fastClock(),
      });
      expect(exitCode, stderr).toBe(9);
      expect(stderr).toMatch(/no answer to the stream request in [\d.]+ s/);
      expect(stderr).not.toMatch(/cannot connect|cannot reach/);
    } finally {
      for (const socket of sockets) socket.destroy();
      server.close();
    }
  });
});
