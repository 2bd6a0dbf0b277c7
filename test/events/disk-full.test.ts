// A full disk under the files `events tail` writes (--record, --checkpoint, --dead-letter): the
// one wording every file of svc's uses for it (issue 44), naming the file and where to free
// space, never "unexpected failure: ENOSPC". The disk is made full by a write that fails as
// Linux's does (ENOSPC) for every file in one folder, found by the descriptor's path.
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { useStreamEmulator } from '../helpers/emulator.js';
import { runCli } from '../helpers/cli.js';

/** Folders whose disk is full: a write to a file in one of them fails with ENOSPC. */
const fullFolders = vi.hoisted(() => new Set<string>());

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const onFullDisk = (fd: number) => {
    let path: string;
    try {
      path = fs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      return false;
    }
    return [...fullFolders].some((folder) => path.startsWith(folder + '/'));
  };
  const writeSync = ((fd: number, ...rest: unknown[]) => {
    if (onFullDisk(fd)) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
    return (fs.writeSync as (...args: unknown[]) => number)(fd, ...rest);
  }) as typeof fs.writeSync;
  return { ...fs, default: { ...fs, writeSync }, writeSync };
});

const { emu, plane } = useStreamEmulator();
const env = () => ({ SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: emu().url });
const publish = (count: number) => plane().publishEvents({ org_id: emu().seed.org_id, mode: 'test', type: 'call.started', count });

/** A folder on a disk that is full (its files can be created, not written). */
function fullFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'svc-disk-full-'));
  fullFolders.add(folder);
  return folder;
}

/** Retry waits divided by 100: a dead URL is given up on at once. */
const fastClock = { now: () => Date.now(), sleep: (ms: number, signal?: AbortSignal) => delay(ms / 100, undefined, signal ? { signal } : {}) };

/**
 * Until the tail's stream is open at the emulator, however long a busy machine takes to get
 * there (the test's timeout bounds it, not a wait of its own); a tail that ended first fails here with its words.
 */
async function streamOpenedBy(run: Promise<{ exitCode: number; stderr: string }>): Promise<void> {
  let ended = false;
  const endedFirst = run.then((r) => {
    ended = true;
    throw new Error(`events tail ended (exit ${r.exitCode}) before its stream opened: ${r.stderr}`);
  });
  endedFirst.catch(() => {});
  await Promise.race([plane().streamsOpen(1, Number.POSITIVE_INFINITY), endedFirst]);
  if (ended) await endedFirst;
}

function expectDiskFullWords(stderr: string, file: string, folder: string): void {
  expect(stderr).toContain(`cannot write ${file}: the disk is full`);
  expect(stderr).toContain(`free space on the disk that holds ${folder}`);
  expect(stderr).not.toMatch(/unexpected|ENOSPC/);
}

describe.skipIf(process.platform !== 'linux')('events tail on a full disk', { timeout: 90_000 }, () => {
  it('the injected full disk is real to node:fs (the test can fail)', () => {
    const folder = fullFolder();
    const fd = openSync(join(folder, 'x'), 'w');
    try {
      expect(() => writeSync(fd, 'x')).toThrow(/ENOSPC/);
    } finally {
      closeSync(fd);
    }
  });

  it('--record: exit 1 naming the file and where to free space', async () => {
    const folder = fullFolder();
    const file = join(folder, 'events.ndjson');
    const run = runCli(['events', 'tail', '--json', '--max-events', '2', '--record', file], { env: env() });
    await streamOpenedBy(run);
    await publish(2);
    const { exitCode, stderr } = await run;
    expect(exitCode).toBe(1);
    expectDiskFullWords(stderr, file, folder);
  });

  it('--checkpoint: exit 1 naming the checkpoint (not its temporary file), which is left as it was, with no temporary file behind', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'svc-disk-full-'));
    const file = join(folder, 'tail.ckpt');
    const before = JSON.stringify({ version: 1, last_event_id: 'start', updated_at: '2030-01-01T00:00:00.000Z' }) + '\n';
    writeFileSync(file, before);
    fullFolders.add(folder);
    const run = runCli(['events', 'tail', '--json', '--max-events', '2', '--checkpoint', file], { env: env() });
    await streamOpenedBy(run);
    await publish(2);
    const { exitCode, stderr } = await run;
    expect(exitCode).toBe(1);
    expectDiskFullWords(stderr, file, folder);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(readdirSync(folder)).toEqual(['tail.ckpt']);
  });

  it('--checkpoint, new: the first write (the position the stream opens with) fails the same way, at once, not retried as a lost connection', async () => {
    const folder = fullFolder();
    const file = join(folder, 'tail.ckpt');
    const { exitCode, stderr } = await runCli(['events', 'tail', '--json', '--checkpoint', file], { env: env() });
    expect(exitCode).toBe(1);
    expectDiskFullWords(stderr, file, folder);
    expect(stderr).not.toMatch(/connection lost|retrying|reconnect/);
    expect(readdirSync(folder)).toEqual([]);
  });

  it('--dead-letter: the letter not written is said in the same words, and the end does not claim it was written', async () => {
    const folder = fullFolder();
    const file = join(folder, 'dead.ndjson');
    const refusing = createServer((_req, res) => {
      res.statusCode = 500;
      res.end();
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    const hook = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/hook`;
    try {
      const run = runCli(['events', 'tail', '--json', '--max-events', '1', '--forward-to', hook, '--dead-letter', file], { env: env(), clock: fastClock });
      await streamOpenedBy(run);
      await publish(1);
      const { exitCode, stderr } = await run;
      expect(exitCode).toBe(1);
      expect(stderr).toMatch(/warning: the dead letter of evt_\w+ was not written: cannot write \S+: the disk is full/);
      expectDiskFullWords(stderr, file, folder);
      expect(stderr).not.toContain(`; written to ${file}`);
      expect(stderr).toMatch(/1 delivery was given up after retries; not written to .*dead\.ndjson/);
    } finally {
      refusing.closeAllConnections();
      refusing.close();
    }
  });
});
