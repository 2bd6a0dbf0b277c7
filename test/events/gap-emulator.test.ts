// The gap end to end: `svc events tail --since` an id the emulator does not retain gets the
// contract's `event: gap` frame first; svc warns on stderr and goes on (exit 0), or with
// --fail-on-gap exits 1; the retained events still arrive, in order.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';

const emu = useTestEmulator();
const env = () => ({ SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: emu().url });

describe('events tail --since an id the service no longer retains', () => {
  it('warns that later events may be missing, names the id, and prints the retained events', async () => {
    await emu().reset();
    const published = await emu().plane.publishEvents({ org_id: emu().seed.org_id, mode: 'test', type: 'call.started', count: 3 });
    const run = await runCli(['events', 'tail', '--since', 'evt_forgottenlongago', '--max-events', '3', '--json'], { env: env() });
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
    await emu().reset();
    await emu().plane.publishEvents({ org_id: emu().seed.org_id, mode: 'test', type: 'call.started', count: 2 });
    const run = await runCli(['events', 'tail', '--since', 'evt_forgottenlongago', '--fail-on-gap', '--json'], { env: env() });
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/no longer retains the events after evt_forgottenlongago/);
  });
});

describe('events tail resuming just past retention (a burst the tail fell behind)', () => {
  /** The id of the event `offset` after `id` in one burst (ids carry their sequence number, base 36). */
  const after = (id: string, offset: number) => `evt_${(parseInt(id.slice(4), 36) + offset).toString(36).padStart(10, '0')}`;

  it('resuming after the newest event no longer retained reports no gap: nothing is missing', async () => {
    await emu().reset();
    // 10,001 events: the first is no longer retained, the second is the oldest retained.
    const published = await emu().plane.publishEvents({ org_id: emu().seed.org_id, mode: 'test', type: 'call.started', count: 10_001 });
    const run = await runCli(['events', 'tail', '--since', published.first_id, '--max-events', '1', '--json'], { env: env() });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/no longer retains|may be missing/);
    expect((JSON.parse(run.stdout) as { id: string }).id).toBe(after(published.first_id, 1));
  });

  it('one event older than that is really missing: the gap is reported', async () => {
    await emu().reset();
    const published = await emu().plane.publishEvents({ org_id: emu().seed.org_id, mode: 'test', type: 'call.started', count: 10_002 });
    const run = await runCli(['events', 'tail', '--since', published.first_id, '--max-events', '1', '--json'], { env: env() });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/no longer retains the events after evt_\w+[^\n]*may be missing/);
    expect((JSON.parse(run.stdout) as { id: string }).id).toBe(after(published.first_id, 2));
  });

  it('and right after a batch trim (11,001 published: 1,001 trimmed at once) the newest trimmed event is still known', async () => {
    await emu().reset();
    const published = await emu().plane.publishEvents({ org_id: emu().seed.org_id, mode: 'test', type: 'call.started', count: 11_001 });
    const newestDropped = after(published.first_id, 1_000);
    const run = await runCli(['events', 'tail', '--since', newestDropped, '--max-events', '1', '--json'], { env: env() });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/no longer retains|may be missing/);
    expect((JSON.parse(run.stdout) as { id: string }).id).toBe(after(published.first_id, 1_001));
  });
});
