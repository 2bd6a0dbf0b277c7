// The audit log's lock, as every tool call takes it twice (its intent and its result line):
// a free lock is taken and let go in one synchronous step (config/lock.ts withFileLockSync),
// leaving nothing behind in the user's folder; a lock another process holds is waited for, and
// a lock its holder left behind (a killed process) is taken over, as every svc lock is; a
// folder svc has not made yet is made. Each case ends with a log `--verify` calls intact.
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireFileLock } from '../../src/config/lock.js';
import { lockPathOf } from '../../src/files/lock.js';
import { AuditLog, AUDIT_FILE, HEAD_FILE, readAudit, verifyAudit } from '../../src/mcp/audit.js';

const freshDir = () => join(mkdtempSync(join(tmpdir(), 'svc-mcp-audit-lock-')), 'svc');
const intent = (call: number) => ({
  session: 'sess',
  call,
  phase: 'intent' as const,
  time: new Date().toISOString(),
  tool: 'account_balance',
  mode: 'test' as const,
});

describe('the audit log takes its lock for each line', () => {
  it('writes every line of many calls, in a folder it makes, and leaves no lock or temp file behind', async () => {
    const dir = freshDir();
    const log = new AuditLog(dir);
    for (let call = 1; call <= 50; call++) await log.append(intent(call));
    expect(readAudit(dir)).toHaveLength(50);
    expect(verifyAudit(dir).problems).toEqual([]);
    expect(readdirSync(dir).sort()).toEqual([HEAD_FILE, AUDIT_FILE]);
  });

  it('waits for a lock another process holds, then writes its line', async () => {
    const dir = freshDir();
    const log = new AuditLog(dir);
    await log.append(intent(1));
    const release = await acquireFileLock(join(dir, AUDIT_FILE));
    let written = false;
    const appending = log.append(intent(2)).then(() => (written = true));
    // Nothing can be written while the lock is held: the line is only in the log once it is let go.
    expect(readAudit(dir)).toHaveLength(1);
    await release();
    await appending;
    expect(written).toBe(true);
    expect(readAudit(dir)).toHaveLength(2);
    expect(verifyAudit(dir).problems).toEqual([]);
    expect(existsSync(lockPathOf(join(dir, AUDIT_FILE)))).toBe(false);
  });

  it('takes over a lock whose holder is gone (a killed svc)', async () => {
    const dir = freshDir();
    const log = new AuditLog(dir);
    await log.append(intent(1));
    const gone = { pid: 2 ** 22 + 1, host: (await import('node:os')).hostname(), started_at: '', acquired_at: '', token: 'x' };
    writeFileSync(lockPathOf(join(dir, AUDIT_FILE)), `${JSON.stringify(gone)}\n`, { mode: 0o600 });
    await log.append(intent(2));
    expect(readAudit(dir)).toHaveLength(2);
    expect(existsSync(lockPathOf(join(dir, AUDIT_FILE)))).toBe(false);
  });
});
