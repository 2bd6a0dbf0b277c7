// `svc emulator --state FILE` on a disk that fills up. A request whose change cannot be put on
// disk is answered 507 and its change is undone (no call made, no balance drawn), so retrying
// it is safe; the failed writes leave no half line in the file, so the next start (or a copy
// of the file taken meanwhile, as a crash would leave it) loads everything answered 2xx.
// The full disk is injected through the journal's writes (no real small file system needed).
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, StateFileError } from '../../src/emulator/index.js';
import { advancingClock } from '../../src/emulator/clock.js';
import { FileJournal } from '../../src/emulator/persistence/journal.js';
import { createState, reset } from '../../src/emulator/state.js';
import type { JournalWrites, RunningEmulator } from '../../src/emulator/index.js';
import { call } from './helpers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-emu-full-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function diskFull(operation: string): Error {
  return Object.assign(new Error(`ENOSPC: no space left on device, ${operation}`), { code: 'ENOSPC' });
}

/** A disk with `room` bytes left: a write takes what fits (as write(2) does), the next one fails with ENOSPC. */
function fillingDisk() {
  let room = Number.POSITIVE_INFINITY;
  let syncFails: Error | null = null;
  /** Writes to let through whole before one is cut short and refused once (space freed again at once). */
  let wholeWritesBeforeHiccup: number | null = null;
  const writes: JournalWrites = {
    writeSync(fd, buffer, offset) {
      if (wholeWritesBeforeHiccup !== null && wholeWritesBeforeHiccup-- === 0) {
        wholeWritesBeforeHiccup = null;
        writeSync(fd, buffer, offset, Math.min(100, buffer.length - offset));
        throw diskFull('write');
      }
      if (room <= 0) throw diskFull('write');
      const written = writeSync(fd, buffer, offset, Math.min(room, buffer.length - offset));
      room -= written;
      return written;
    },
    fdatasyncSync() {
      if (syncFails) throw syncFails;
    },
  };
  return {
    writes,
    leave: (bytes: number) => (room = bytes),
    free: () => (room = Number.POSITIVE_INFINITY),
    failSyncWith: (error: Error | null) => (syncFails = error),
    hiccupAfter: (wholeWrites: number) => (wholeWritesBeforeHiccup = wholeWrites),
  };
}

async function liveCalls(emu: RunningEmulator, key: string): Promise<string[]> {
  return (await call(emu, 'GET', '/v1/calls?limit=100', { key })).body.data.map((c: { id: string }) => c.id);
}

async function available(emu: RunningEmulator, key: string): Promise<number> {
  return (await call(emu, 'GET', '/v1/balance', { key })).body.available;
}

/** Every line of the file is a whole JSON record ending in a newline: nothing half-written. */
function expectWholeLines(path: string): void {
  const text = readFileSync(path, 'utf8');
  expect(text.endsWith('\n')).toBe(true);
  for (const line of text.slice(0, -1).split('\n')) expect(() => JSON.parse(line), line.slice(0, 80)).not.toThrow();
}

describe('--state FILE on a full disk', () => {
  it('a call that cannot be saved is answered 507 naming the file, is not made and draws nothing; the file stays whole and loads', async () => {
    const path = join(dir, 'state.jsonl');
    const disk = fillingDisk();
    const emu = await startEmulator({ port: 0, statePath: path, stateWrites: disk.writes });
    const key = emu.seed.keys.live;
    try {
      const first = await call(emu, 'POST', '/v1/calls', { key, json: { languages: ['en', 'es'] } });
      expect(first.status).toBe(201);
      const balanceAfterOne = await available(emu, key);

      // Room for part of a line: each write is cut short, then refused.
      disk.leave(40);
      for (let attempt = 0; attempt < 5; attempt++) {
        const refused = await call(emu, 'POST', '/v1/calls', { key, json: { languages: ['en', 'es'], title: `retry ${attempt}` } });
        expect(refused.status).toBe(507);
        expect(refused.body.detail).toContain(path);
        expect(refused.body.detail).toMatch(/disk is full/);
        expect(refused.body.detail).toMatch(/nothing of this request was kept/);
        disk.leave(40);
      }
      expect(await liveCalls(emu, key)).toEqual([first.body.id]);
      expect(await available(emu, key)).toBe(balanceAfterOne);
      expectWholeLines(path);

      // The file as a crash now would leave it loads, with what was answered 2xx.
      const saved = join(dir, 'as-left.jsonl');
      copyFileSync(path, saved);
      const meanwhile = await startEmulator({ port: 0, statePath: saved });
      try {
        expect(meanwhile.loaded!.notices).toEqual([]);
        expect(await liveCalls(meanwhile, key)).toEqual([first.body.id]);
        expect(await available(meanwhile, key)).toBe(balanceAfterOne);
      } finally {
        await meanwhile.close();
      }

      // Space again: the retry is made once, and what was refused never reappears.
      disk.free();
      const retried = await call(emu, 'POST', '/v1/calls', { key, json: { languages: ['en', 'es'], title: 'after' } });
      expect(retried.status).toBe(201);
      expect((await liveCalls(emu, key)).sort()).toEqual([first.body.id, retried.body.id].sort());
    } finally {
      await emu.close();
    }
    expectWholeLines(path);

    const restarted = await startEmulator({ port: 0, statePath: path });
    try {
      expect(restarted.loaded!.notices).toEqual([]);
      const calls = await liveCalls(restarted, key);
      expect(calls).toHaveLength(2);
      const titles = await Promise.all(calls.map(async (id) => (await call(restarted, 'GET', `/v1/calls/${id}`, { key })).body.title));
      expect(titles.sort()).toEqual(['after', null].sort());
      expect(await available(restarted, key)).toBe(10_000 - 2 * 2);
    } finally {
      await restarted.close();
    }
  });

  it('a sync that fails undoes the change too; what was answered before is kept', async () => {
    const path = join(dir, 'state.jsonl');
    const disk = fillingDisk();
    const emu = await startEmulator({ port: 0, statePath: path, stateWrites: disk.writes });
    const key = emu.seed.keys.test;
    let kept: Awaited<ReturnType<typeof call>>;
    try {
      kept = await call(emu, 'POST', '/v1/chats', { key, json: { language: 'en' } });
      expect(kept.status).toBe(201);
      disk.failSyncWith(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
      const refused = await call(emu, 'POST', '/v1/chats', { key, json: { language: 'es' } });
      expect(refused.status).toBe(500);
      expect(refused.body.detail).toContain(path);
      expect(refused.body.detail).toMatch(/EIO/);
      expect(refused.body.detail).toMatch(/nothing of this request was kept/);
      disk.failSyncWith(null);
      const chats = (await call(emu, 'GET', '/v1/chats', { key })).body.data.map((c: { id: string }) => c.id);
      expect(chats).toEqual([kept.body.id]);
    } finally {
      await emu.close();
    }
    const restarted = await startEmulator({ port: 0, statePath: path });
    try {
      expect((await call(restarted, 'GET', '/v1/chats', { key })).body.data.map((c: { id: string }) => c.id)).toEqual([kept.body.id]);
    } finally {
      await restarted.close();
    }
  });

  it('a burst whose early write is refused for a moment loses nothing: the commit writes it whole, and a restart has every event', async () => {
    const path = join(dir, 'state.jsonl');
    const disk = fillingDisk();
    const emu = await startEmulator({ port: 0, statePath: path, stateWrites: disk.writes });
    const orgId = emu.seed.org_id;
    try {
      // The burst writes out every few thousand lines; its second write is cut short and refused.
      disk.hiccupAfter(1);
      const burst = await call(emu, 'POST', '/_emulator/events', { json: { org_id: orgId, mode: 'test', type: 'call.started', count: 10_000 } });
      expect(burst.status).toBe(201);
    } finally {
      await emu.close();
    }
    expectWholeLines(path);
    const restarted = await startEmulator({ port: 0, statePath: path });
    try {
      expect(restarted.loaded!.events).toBe(10_000);
    } finally {
      await restarted.close();
    }
  });
});

describe('--state FILE: other writes on a full disk', () => {
  it('a reset that cannot be saved is undone: the old keys still work and are still the ones shown', async () => {
    const path = join(dir, 'state.jsonl');
    const disk = fillingDisk();
    const emu = await startEmulator({ port: 0, statePath: path, stateWrites: disk.writes });
    const before = emu.seed;
    try {
      disk.leave(0);
      const refused = await call(emu, 'POST', '/_emulator/reset');
      expect(refused.status).toBe(507);
      disk.free();
      expect(emu.seed.keys.test).toBe(before.keys.test);
      expect((await call(emu, 'GET', '/v1/account', { key: before.keys.test })).body).toMatchObject({ id: before.org_id });
    } finally {
      await emu.close();
    }
  });

  it('a refused write after a snapshot with non-ASCII names is cut back to the right byte', async () => {
    const path = join(dir, 'state.jsonl');
    const first = await startEmulator({ port: 0, statePath: path });
    const key = first.seed.keys.test;
    await call(first, 'POST', '/_emulator/orgs', { json: { name: 'Société Générale Ünïcödé 東京', balance: 5 } });
    await first.close();
    const disk = fillingDisk();
    const second = await startEmulator({ port: 0, statePath: path, stateWrites: disk.writes });
    try {
      disk.leave(30);
      expect((await call(second, 'POST', '/v1/chats', { key, json: { language: 'en' } })).status).toBe(507);
      disk.free();
      expect((await call(second, 'POST', '/v1/chats', { key, json: { language: 'fr' } })).status).toBe(201);
    } finally {
      await second.close();
    }
    expectWholeLines(path);
    const third = await startEmulator({ port: 0, statePath: path });
    try {
      const chats = (await call(third, 'GET', '/v1/chats', { key })).body.data;
      expect(chats.map((c: { language: string }) => c.language)).toEqual(['fr']);
    } finally {
      await third.close();
    }
  });

  it('a start on a disk too full for its first snapshot says so, names the file and leaves it as it is', async () => {
    const path = join(dir, 'state.jsonl');
    const first = await startEmulator({ port: 0, statePath: path });
    const key = first.seed.keys.test;
    await first.close();
    const text = readFileSync(path, 'utf8');
    const disk = fillingDisk();
    disk.leave(0);
    const error = await startEmulator({ port: 0, statePath: path, stateWrites: disk.writes }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateFileError);
    expect((error as Error).message).toBe(
      `cannot write the state file ${path}: the disk is full; it was left as it is: free space on the disk that holds ${dir}`,
    );
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(readdirSync(dir)).toEqual(['state.jsonl']);
    disk.free();
    const second = await startEmulator({ port: 0, statePath: path, stateWrites: disk.writes });
    try {
      expect((await call(second, 'GET', '/v1/account', { key })).status).toBe(200);
    } finally {
      await second.close();
    }
  });
});

describe('requests running when a commit fails', () => {
  it('one whose change the failure undid is answered 507 too; one that changes the world only afterwards is kept and answered', async () => {
    const path = join(dir, 'state.jsonl');
    const disk = fillingDisk();
    const journal = new FileJournal(path, disk.writes);
    const state = createState(advancingClock(), 15_000, { journal, seed: false });
    journal.open(state, () => reset(state));
    const orgId = state.seed!.org_id;
    const balance = () => state.orgs.get(orgId)!.balance_subcents;
    const before = balance();
    try {
      let releaseEarly!: () => void;
      let releaseLate!: () => void;
      const early = journal.request(true, async () => {
        state.orgs.get(orgId)!.balance_subcents -= 1;
        await new Promise<void>((resolve) => (releaseEarly = resolve));
      });
      const late = journal.request(true, async () => {
        await new Promise<void>((resolve) => (releaseLate = resolve));
        state.orgs.get(orgId)!.balance_subcents -= 100;
      });
      disk.leave(0);
      const failing = journal.request(true, async () => {
        state.orgs.get(orgId)!.name = 'never kept';
      });
      await expect(failing).rejects.toMatchObject({ status: 507 });
      expect(balance()).toBe(before);
      expect(state.orgs.get(orgId)!.name).toBe('Acme');

      disk.free();
      releaseEarly();
      await expect(early).rejects.toMatchObject({ status: 507, detail: expect.stringContaining(path) });
      releaseLate();
      await expect(late).resolves.toBeUndefined();
      expect(balance()).toBe(before - 100);
    } finally {
      journal.close();
    }
    const reread = createState(advancingClock(), 15_000, { seed: false });
    new FileJournal(path).read(reread);
    expect(reread.orgs.get(orgId)).toMatchObject({ name: 'Acme', balance_subcents: before - 100 });
  });
});
