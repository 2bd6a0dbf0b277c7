// `svc events tail --forward-to`: events delivered to a local endpoint, the output beside them, and a bounded queue.
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../helpers/cli.js';
import { useTailSuite } from '../../../helpers/tail.js';

const { publish, streamsOpen, keyEnv, ndjson, startCli, until } = useTailSuite();

describe('events tail --forward-to', () => {
  const closers: Array<() => void> = [];
  afterEach(() => closers.splice(0).forEach((close) => close()));

  it('POSTs each event in order with its id header, retrying deliveries that fail', async () => {
    const received: Array<{ id: string; body: { id: string }; contentType: string | undefined }> = [];
    let requests = 0;
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        requests++;
        // Every third request fails: the tail must retry it, and order must hold.
        if (requests % 3 === 0) {
          res.statusCode = 500;
          return res.end();
        }
        received.push({ id: String(req.headers['svc-event-id']), body: JSON.parse(body) as { id: string }, contentType: req.headers['content-type'] });
        res.statusCode = 204;
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => server.close());
    const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

    const run = runCli(['events', 'tail', '--json', '--max-events', '12', '--forward-to', hook], { env: keyEnv() });
    await streamsOpen();
    await publish('call.ended', 12);
    const { exitCode, stdout, stderr } = await run;
    expect(exitCode, stderr).toBe(0);
    const printed = ndjson(stdout).map((e) => e.id);
    expect(printed).toHaveLength(12);
    expect(received.map((r) => r.id)).toEqual(printed);
    expect(received.map((r) => r.body.id)).toEqual(printed);
    expect(received.every((r) => r.contentType === 'application/json')).toBe(true);
    expect(requests).toBeGreaterThan(12);
    // Delivery statuses go to stderr with --json, so stdout stays NDJSON.
    expect(stderr.match(/→ 204 POST/g)?.length).toBe(12);
    expect(stderr).toMatch(/after 2 attempts/);
  });
});

describe('events tail --forward-to: output and a bounded queue', () => {
  const closers: Array<() => void> = [];
  afterEach(() => closers.splice(0).forEach((close) => close()));

  /** A hook that answers 200, or holds every request while `hold` says so. */
  async function hook(hold: () => boolean) {
    const held: Array<() => void> = [];
    let requests = 0;
    const server = createServer((req, res) => {
      requests++;
      req.resume();
      req.on('end', () => {
        const answer = () => {
          res.statusCode = 200;
          res.end();
        };
        if (hold()) held.push(answer);
        else answer();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => {
      server.closeAllConnections();
      server.close();
    });
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, held, requests: () => requests };
  }

  it('without --json, stdout has only the event lines; the delivery lines go to stderr', async () => {
    const target = await hook(() => false);
    const run = runCli(['events', 'tail', '--max-events', '4', '--forward-to', target.url], { env: keyEnv() });
    await streamsOpen();
    await publish('call.started', 4);
    const { exitCode, stdout, stderr } = await run;
    expect(exitCode, stderr).toBe(0);
    const lines = stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(4);
    expect(lines.every((line) => line.includes('call.started') && !line.includes('→') && !line.includes('POST'))).toBe(true);
    expect(stderr.match(/→ 200 POST /g)).toHaveLength(4);
  });

  it('a stalled endpoint: reading stops at 1,000 queued events, and Ctrl-C says how many were still queued', async () => {
    const target = await hook(() => true); // never answers: every delivery waits
    const controller = new AbortController();
    const cli = startCli(['events', 'tail', '--json', '--forward-to', target.url], { signal: controller.signal });
    await streamsOpen();
    await publish('call.started', 1200);
    const printed = () => cli.stdout().split('\n').filter(Boolean).length;
    // The first delivery arrives and is held.
    await until(() => printed() >= 1000 && target.held.length === 1, '1,000 events printed and the first delivery held');
    // One delivery answered frees one place: the second delivery starts and exactly one more event is read.
    target.held.shift()!();
    await until(() => target.requests() === 2 && printed() >= 1001, 'the second delivery and the 1,001st event');
    controller.abort();
    expect(await cli.done).toBe(130);
    // Read minus forwarded is the queue: it stayed at its bound while 199 more events were there to read.
    expect(printed()).toBe(1001);
    expect(cli.stderr()).toMatch(/stopped: 1001 events, 0 reconnects, 1 forwarded, 0 not delivered, 1000 still queued \(not forwarded\)/);
    expect(cli.stderr()).not.toMatch(/gave up/); // a stop is not a failed delivery
  });
});
