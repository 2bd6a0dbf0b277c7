// `svc events tail` and the frames it reads: what is not an event is never printed as one, and --jq as jq filters.
import { createServer, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../helpers/cli.js';

// `events tail` reads a stream whose frames are outside input: each is checked against the
// contract's event shape (as `events list` answers are) before it is printed, recorded or
// counted, and --max-events counts the events the --jq filter printed something for. A small
// server sends each malformed frame a stream could carry, then real events.
describe('events tail and the frames it reads', () => {
  const event = (id: string, type = 'call.started', extra: Record<string, unknown> = {}) => ({
    object: 'event',
    id,
    type,
    created_at: '2026-01-01T00:00:00Z',
    livemode: false,
    data: { id: 'call_1', object: 'call' },
    ...extra,
  });
  const frame = (data: string, id?: string, type?: string) => `${id ? `id: ${id}\n` : ''}${type ? `event: ${type}\n` : ''}data: ${data}\n\n`;
  const eventFrame = (e: ReturnType<typeof event>) => frame(JSON.stringify(e), e.id, e.type);

  /** Every way a frame can fail to be an event (18), each sent bare and each with SSE id and type lines. */
  const FIELDS = ['id', 'type', 'object', 'created_at', 'livemode', 'data'] as const;
  const MALFORMED = [
    '{}',
    '[]',
    'null',
    '"evt_000000000009"',
    '{"object":"event",',
    '',
    ...FIELDS.map((field) => {
      const e: Record<string, unknown> = event('evt_missing');
      delete e[field];
      return JSON.stringify(e);
    }),
    ...FIELDS.map((field) => JSON.stringify(event('evt_mistyped', 'call.started', { [field]: field === 'livemode' ? 'no' : field === 'data' ? 'x' : 42 }))),
  ];

  let servers: Array<() => void> = [];
  afterEach(() => {
    for (const close of servers) close();
    servers = [];
  });

  /** A service whose event stream is `send`; any other endpoint is a 404. */
  async function streamServer(send: (res: ServerResponse) => void): Promise<Record<string, string>> {
    const server = createServer((req, res) => {
      if (!req.url?.startsWith('/v1/events/stream')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return res.end('{"detail":"not here"}');
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      send(res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(() => {
      server.closeAllConnections();
      server.close();
    });
    return { SVC_API_KEY: 'svc_test_0123456789abcdef', SVC_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }

  describe('events tail: a frame that is not an event', () => {
    const good = event('evt_000000000001');
    const stream = (res: ServerResponse) =>
      res.write(MALFORMED.map((data, i) => (i % 2 ? frame(data, `evt_00000000010${i}`, 'call.started') : frame(data))).join('') + eventFrame(good));

    it('is never printed nor counted, with --json, --jq or human lines; a warning names its first bytes', async () => {
      expect(MALFORMED).toHaveLength(18);
      const env = await streamServer(stream);
      const json = await runCli(['events', 'tail', '--json', '--max-events', '1'], { env });
      expect(json.exitCode, json.stderr).toBe(0);
      // stdout: only whole JSON lines, only the event.
      expect(json.stdout).toBe(`${JSON.stringify(good)}\n`);
      const warnings = json.stderr.split('\n').filter((line) => line.startsWith('warning: skipped a stream message that is not an event: '));
      expect(warnings).toHaveLength(18);
      expect(warnings).toContain('warning: skipped a stream message that is not an event: {"object":"event",');
      expect(warnings).toContain('warning: skipped a stream message that is not an event: (empty)');
      expect(warnings).toContain('warning: skipped a stream message that is not an event: []');

      const filtered = await runCli(['events', 'tail', '--jq', '.id', '--max-events', '1'], { env });
      expect([filtered.exitCode, filtered.stdout]).toEqual([0, `${good.id}\n`]);

      const human = await runCli(['events', 'tail', '--max-events', '1'], { env });
      expect(human.exitCode, human.stderr).toBe(0);
      expect(human.stdout.trimEnd().split('\n')).toHaveLength(1);
      expect(human.stdout).toContain(good.id);
    });
  });

  describe('events tail --jq', () => {
    it('--max-events counts the events the filter printed for: a select waits for the event it selects', async () => {
      const env = await streamServer((res) =>
        res.write(
          eventFrame(event('evt_000000000001', 'call.started')) +
            eventFrame(event('evt_000000000002', 'chat.started')) +
            eventFrame(event('evt_000000000003', 'chat.closed')),
        ),
      );
      const r = await runCli(['events', 'tail', '--jq', 'select(.type == "chat.closed") | .id', '--max-events', '1'], { env });
      expect([r.exitCode, r.stdout]).toEqual([0, 'evt_000000000003\n']);
    });

    it('a filter that fails on an event stops the tail there, in a burst as one at a time', async () => {
      const events = [1, 2, 3].map((n) => event(`evt_00000000000${n}`));
      const filter = 'if .id == "evt_000000000002" then error("bad event") else .id end';
      const burst = await streamServer((res) => res.write(events.map(eventFrame).join('')));
      const oneAtATime = await streamServer((res) => {
        let next = 0;
        const send = () => {
          if (res.destroyed || next === events.length) return;
          res.write(eventFrame(events[next++]!));
          setTimeout(send, 30);
        };
        send();
      });
      for (const env of [burst, oneAtATime]) {
        const r = await runCli(['events', 'tail', '--jq', filter], { env });
        expect(r.exitCode, r.stderr).toBe(5);
        expect(r.stdout).toBe('evt_000000000001\n');
        // jq's words are the last on stderr, as `jq -r` leaves them.
        expect(r.stderr).toMatch(/jq: error \(at <stdin>:1\): bad event\n$/);
      }
    });
  });
});
