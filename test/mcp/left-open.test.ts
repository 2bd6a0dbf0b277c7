// What the next session takes for left behind (session.ts leftOpen), from a log written line by
// line: a create whose answer never came stays to be learnt by its key however many tries found
// no answer; one the service answered (made, or refused) does not; a live session's are its own.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/mcp/audit.js';
import { leftOpen } from '../../src/mcp/left-open.js';
import { SESSIONS_DIR } from '../../src/mcp/session.js';
import { acquireFileLock } from '../../src/config/lock.js';
import { makeDir } from '../../src/config/writable.js';

const freshDir = () => join(mkdtempSync(join(tmpdir(), 'svc-mcp-left-')), 'svc');

async function create(log: AuditLog, session: string, call: number, key: string, result: string, acted: boolean | undefined, ids: string[] = []) {
  const line = { session, call, time: new Date().toISOString(), tool: 'calls_start', mode: 'live' as const };
  await log.append({ ...line, phase: 'intent', args: { languages: 'en,es' }, writes: true, key });
  await log.append({ ...line, phase: 'result', result, price_asked: 2, ids, ...(acted === undefined ? {} : { acted }) });
}

describe('what a dead session left', () => {
  it('a create asked again and still not answered (the network) stays lost; one answered, made or refused, does not', async () => {
    const dir = freshDir();
    const log = new AuditLog(dir);
    await create(log, 'aaaa01', 1, 'k-lost', 'disconnected', true);
    await create(log, 'bbbb02', 1, 'k-lost', 'network', true);
    await create(log, 'aaaa01', 2, 'k-made', 'disconnected', true);
    await create(log, 'bbbb02', 2, 'k-made', 'ok', true, ['call_made0001']);
    await create(log, 'aaaa01', 3, 'k-refused', 'cancelled', true);
    await create(log, 'bbbb02', 3, 'k-refused', 'balance_empty', false);
    const left = await leftOpen(dir, 'cccc03');
    expect(left.lost.map((e) => [e.session, e.key])).toEqual([['aaaa01', 'k-lost']]);
    expect(left.calls.map((c) => c.id)).toEqual(['call_made0001']);
  });

  it("a session that still holds its lock is alive: none of its calls are another's to end", async () => {
    const dir = freshDir();
    const log = new AuditLog(dir);
    await create(log, 'dddd04', 1, 'k-live', 'ok', true, ['call_live0001']);
    await create(log, 'eeee05', 1, 'k-dead', 'ok', true, ['call_dead0001']);
    await makeDir(join(dir, SESSIONS_DIR));
    const release = await acquireFileLock(join(dir, SESSIONS_DIR, 'dddd04'));
    try {
      expect((await leftOpen(dir, 'ffff06')).calls.map((c) => c.id)).toEqual(['call_dead0001']);
    } finally {
      await release();
    }
    expect((await leftOpen(dir, 'ffff06')).calls.map((c) => c.id).sort()).toEqual(['call_dead0001', 'call_live0001']);
  });
});
