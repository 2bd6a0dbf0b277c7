// `svc events tail` and its position in the stream: a gap, --since an id the service does not have, a checkpoint past retention.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestEmulator } from '../../../helpers/emulator.js';
import { runCli, tempConfigDir } from '../../../helpers/cli.js';

// The gap end to end: a resume after an id the emulator does not retain gets the contract's
// `event: gap` frame first. From a checkpoint (the tail's own position) svc warns on stderr and
// goes on (exit 0), or with --fail-on-gap exits 1; the retained events still arrive, in order.
// From --since (what a person typed) the id is unknown: svc stops, nothing replayed.
describe('events tail and a gap', () => {
  const emu = useTestEmulator({ resetEach: true });
  const env = () => ({ SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: emu().url });

  /** A checkpoint file (as the tail writes it) that resumes after `id`. */
  function checkpointAt(id: string): string {
    const path = join(tempConfigDir(), 'tail.ckpt');
    writeFileSync(path, JSON.stringify({ last_event_id: id, updated_at: new Date().toISOString() }) + '\n');
    return path;
  }

  describe('events tail --since an id the service does not have (issue 44: a typo replayed the history)', () => {
    it('is "unknown": exit 5, nothing replayed, printed or forwarded; --since start is how to ask for every retained event', async () => {
      const published = await emu().plane.publishEvents({ org_id: emu().seed.org_id, mode: 'test', type: 'call.started', count: 3 });
      const deliveries: string[] = [];
      const handler = createServer((req, res) => {
        deliveries.push(req.url ?? '');
        res.end();
      });
      await new Promise<void>((resolve) => handler.listen(0, '127.0.0.1', resolve));
      const forwardTo = `http://127.0.0.1:${(handler.address() as AddressInfo).port}/hooks`;
      try {
        const run = await runCli(['events', 'tail', '--since', 'evt_nonexistent', '--forward-to', forwardTo, '--json'], { env: env() });
        expect(run.exitCode).toBe(5);
        expect(run.stdout).toBe('');
        expect(run.stderr).toContain('--since evt_nonexistent: the service does not know this event');
        expect(run.stderr).toContain('nothing was replayed');
        expect(run.stderr).not.toContain('no longer retains');
        expect(run.stderr).toContain('use --since start');
        expect(deliveries).toEqual([]);
      } finally {
        handler.close();
      }
      const all = await runCli(['events', 'tail', '--since', 'start', '--max-events', '3', '--json'], { env: env() });
      expect(all.exitCode, all.stderr).toBe(0);
      expect(
        all.stdout
          .trim()
          .split('\n')
          .map((line) => (JSON.parse(line) as { id: string }).id)
          .at(-1),
      ).toBe(published.last_id);
    });

    it('a known one is not "unknown" later: a reconnect whose gap names it (it left retention meanwhile) is the warning, and the tail goes on', async () => {
      const plane = emu().plane;
      const publish = (type: string, count: number) => plane.publishEvents({ org_id: emu().seed.org_id, mode: 'test', type, count });
      const since = (await publish('call.started', 1)).first_id;
      // The filter lets none of the burst through, so nothing is handed on before the drop, and
      // the reconnect asks again for --since, which the burst has pushed out of retention.
      const run = runCli(['events', 'tail', '--since', since, '--type', 'chat.closed', '--max-events', '1', '--json'], { env: env() });
      await plane.streamsOpen();
      await publish('call.started', 10_005);
      await plane.dropStreams();
      await plane.streamsClosed();
      // Back (or, with the bug, ended with exit 5): whichever comes first.
      const ended = await Promise.race([run, plane.streamsOpen().then(() => undefined)]);
      expect(ended?.stderr ?? '').not.toContain('does not know this event');
      const closed = await publish('chat.closed', 1);
      const { exitCode, stdout, stderr } = await run;
      expect(exitCode, stderr).toBe(0);
      expect((JSON.parse(stdout) as { id: string }).id).toBe(closed.first_id);
      expect(stderr).toMatch(
        new RegExp(`warning: the service no longer retains the events after ${since} \\(where this stream was asked to resume\\)[^\\n]*may be missing`),
      );
    });

    it('a malformed one is refused before anything is sent (exit 2)', async () => {
      for (const since of ['evt_', 'evt_a/b', 'evt_ a', 'call_8f2a1c', 'nonexistent']) {
        const run = await runCli(['events', 'tail', '--since', since], { env: { SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: 'http://127.0.0.1:9' } });
        expect(run.exitCode, since).toBe(2);
        expect(run.stderr).toContain('--since');
      }
    });
  });

  describe('events tail resuming from a checkpoint the service no longer retains', () => {
    it('warns that later events may be missing, names the id, and prints the retained events', async () => {
      const published = await emu().plane.publishEvents({ org_id: emu().seed.org_id, mode: 'test', type: 'call.started', count: 3 });
      const run = await runCli(['events', 'tail', '--checkpoint', checkpointAt('evt_forgottenlongago'), '--max-events', '3', '--json'], { env: env() });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/warning: the service no longer retains the events after evt_forgottenlongago[^\n]*later events may be missing/);
      const ids = run.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: string }).id);
      expect(ids).toHaveLength(3);
      expect(ids[2]).toBe(published.last_id);
    });

    it('--fail-on-gap exits 1 instead, before printing anything', async () => {
      await emu().plane.publishEvents({ org_id: emu().seed.org_id, mode: 'test', type: 'call.started', count: 2 });
      const run = await runCli(['events', 'tail', '--checkpoint', checkpointAt('evt_forgottenlongago'), '--fail-on-gap', '--json'], { env: env() });
      expect(run.exitCode).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/no longer retains the events after evt_forgottenlongago/);
    });
  });

  describe('events tail resuming just past retention (a burst the tail fell behind)', () => {
    /** The id of the event `offset` after `id` in one burst (ids carry their sequence number, base 36). */
    const after = (id: string, offset: number) => `evt_${(parseInt(id.slice(4), 36) + offset).toString(36).padStart(10, '0')}`;

    it('resuming after the newest event no longer retained reports no gap: nothing is missing', async () => {
      // 10,001 events: the first is no longer retained, the second is the oldest retained.
      const published = await emu().plane.publishEvents({ org_id: emu().seed.org_id, mode: 'test', type: 'call.started', count: 10_001 });
      const run = await runCli(['events', 'tail', '--since', published.first_id, '--max-events', '1', '--json'], { env: env() });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stderr).not.toMatch(/no longer retains|may be missing/);
      expect((JSON.parse(run.stdout) as { id: string }).id).toBe(after(published.first_id, 1));
    });

    it('one event older than that is really missing: the gap is reported (a checkpoint; a --since would stop, unknown)', async () => {
      const published = await emu().plane.publishEvents({ org_id: emu().seed.org_id, mode: 'test', type: 'call.started', count: 10_002 });
      const run = await runCli(['events', 'tail', '--checkpoint', checkpointAt(published.first_id), '--max-events', '1', '--json'], { env: env() });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/no longer retains the events after evt_\w+[^\n]*may be missing/);
      expect((JSON.parse(run.stdout) as { id: string }).id).toBe(after(published.first_id, 2));
    });

    it('and right after a batch trim (11,001 published: 1,001 trimmed at once) the newest trimmed event is still known', async () => {
      const published = await emu().plane.publishEvents({ org_id: emu().seed.org_id, mode: 'test', type: 'call.started', count: 11_001 });
      const newestDropped = after(published.first_id, 1_000);
      const run = await runCli(['events', 'tail', '--since', newestDropped, '--max-events', '1', '--json'], { env: env() });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stderr).not.toMatch(/no longer retains|may be missing/);
      expect((JSON.parse(run.stdout) as { id: string }).id).toBe(after(published.first_id, 1_001));
    });
  });
});
