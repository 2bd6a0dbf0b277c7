// `events tail --checkpoint` across a crash: the built program (a private bundle, spawned
// with process.execPath) forwards to a receiver of the test's own, is killed with SIGKILL
// mid-stream, and is started again with the same checkpoint file. Every event the service
// published arrives; at most the one in flight at the kill arrives twice, with the same
// Svc-Event-Id, so a handler can drop the repeat.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, expect, it } from 'vitest';
import { useTestEmulator } from '../helpers/emulator.js';
import { svcBin as launcher } from '../helpers/spawn.js';

const emulator = useTestEmulator({ resetEach: true, startTimeoutMs: 120_000 });
const children: ChildProcess[] = [];

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** The emulator's control plane (test/helpers/emulator.ts). */
const plane = () => emulator().plane;

async function until(condition: () => boolean | Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await condition()) return;
    await delay(20);
  }
  throw new Error(`${what}: not after ${ms} ms`);
}

it('a tail killed with SIGKILL and restarted with --checkpoint misses nothing and repeats at most the event in flight', async () => {
  // The receiver: each delivery answered after a short pause, so that a kill lands mid-stream.
  const deliveries: Array<{ id: string; bodyId: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      deliveries.push({ id: String(req.headers['svc-event-id']), bodyId: (JSON.parse(body) as { id: string }).id });
      setTimeout(() => res.end(), 1);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const hook = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;

  const dir = mkdtempSync(join(tmpdir(), 'svc-kill-'));
  const checkpoint = join(dir, 'tail.ckpt');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    SVC_CONFIG_DIR: dir,
    SVC_CREDENTIAL_STORE: 'file',
    SVC_API_KEY: emulator().seed.keys.test,
    SVC_BASE_URL: emulator().url,
    SVC_FORWARD_SECRET: 'a-forwarding-secret-for-the-test',
  };
  const startTail = () => {
    const child = spawn(process.execPath, [launcher, 'events', 'tail', '--forward-to', hook, '--checkpoint', checkpoint], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    return { child, stderr: () => stderr };
  };
  const openStreams = async () => (await plane().stats()).open_streams;
  const publish = (count: number) => plane().publishEvents({ org_id: emulator().seed.org_id, mode: 'test', type: 'call.started', count });

  const first = startTail();
  await until(async () => (await openStreams()) >= 1, 'the first tail connected');
  await publish(300);
  await until(() => deliveries.length >= 80, '80 deliveries');
  first.child.kill('SIGKILL');
  await new Promise((r) => first.child.once('exit', r));
  expect(first.child.signalCode).toBe('SIGKILL');
  const atKill = deliveries.length;
  expect(atKill).toBeLessThan(300); // the kill landed mid-stream
  const saved = JSON.parse(readFileSync(checkpoint, 'utf8')) as { last_event_id: string };

  // Published while no tail runs: retained by the service, so the restarted tail gets them.
  await publish(100);
  const second = startTail();
  await until(() => new Set(deliveries.map((d) => d.id)).size >= 400, 'all 400 events delivered');
  expect(second.stderr()).toContain(`resuming after ${saved.last_event_id}`);
  second.child.kill('SIGTERM');

  const published: string[] = [];
  let cursor: string | null = null;
  do {
    const page = (await (
      await fetch(`${emulator().url}/v1/events?limit=100${cursor ? `&cursor=${cursor}` : ''}`, {
        headers: { authorization: `Bearer ${emulator().seed.keys.test}` },
      })
    ).json()) as { data: Array<{ id: string }>; has_more: boolean; next_cursor: string | null };
    published.push(...page.data.map((e) => e.id));
    cursor = page.has_more ? page.next_cursor : null;
  } while (cursor);
  published.reverse();
  expect(published).toHaveLength(400);

  const ids = deliveries.map((d) => d.id);
  expect(deliveries.every((d) => d.id === d.bodyId)).toBe(true);
  // None lost, in order once the repeat is dropped by its id.
  const firstSeen = ids.filter((id, i) => ids.indexOf(id) === i);
  expect(firstSeen).toEqual(published);
  // At most one repeat: the event in flight at the kill, delivered again first after the restart.
  const repeats = ids.length - firstSeen.length;
  expect(repeats).toBeLessThanOrEqual(1);
  if (repeats === 1) {
    expect(ids[atKill]).toBe(ids[atKill - 1]);
    expect(ids[atKill - 1]).toBe(published[published.indexOf(saved.last_event_id) + 1]);
  } else {
    expect(ids[atKill - 1]).toBe(saved.last_event_id);
  }
  server.closeAllConnections();
  server.close();
}, 90_000);
