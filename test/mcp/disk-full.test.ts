// A full disk under the audit log: a 64 KiB tmpfs holds svc's folder, filled until one page is
// left for the lock files svc makes and removes. Billed calls go on until a line of the log
// cannot be written whole: that call is refused ("nothing was done"), the service made
// exactly the calls the log records as done, and `--verify` finds the log intact (the cut
// line was taken back off, not left for --verify to blame on tampering). Needs root (mount).
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, ftruncateSync, fstatSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool as call, useMcpSuite } from '../helpers/mcp.js';
import { spawnCollect, svcCommand } from '../helpers/spawn.js';

const { emulator, envFor, connect } = useMcpSuite({ tmpPrefix: 'svc-mcp-full-' });
const mounted: string[] = [];
afterEach(() => {
  for (const dir of mounted.splice(0)) execFileSync('umount', ['-l', dir]);
});

const canMount = process.getuid?.() === 0;

function tmpfs(bytes: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-mcp-tmpfs-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0700`, 'tmpfs', dir]);
  mounted.push(dir);
  return dir;
}

/** Fills the file system of `dir` to the last byte, then gives one 4 KiB page back. */
function fill(dir: string): void {
  const fd = openSync(join(dir, 'filler'), 'w');
  const page = Buffer.alloc(4096, 1);
  try {
    for (;;) writeSync(fd, page);
  } catch {
    // ENOSPC: full.
  }
  ftruncateSync(fd, Math.max(0, fstatSync(fd).size - 4096));
  closeSync(fd);
}

describe('a full disk under the audit log', () => {
  it.skipIf(!canMount)('a line that cannot be written whole stops its call, and the log stays whole', async () => {
    const dir = tmpfs(64 * 1024);
    const env = envFor(emulator().seed.keys.live, { SVC_CONFIG_DIR: dir });
    const { client } = await connect(['--live', '--allow-write', '--max-spend', '5'], { env });
    const translate = () => call(client, 'translate', { text: 'Thanks for calling, see you soon.', to: 'es' });
    expect((await translate()).isError).toBeFalsy();
    fill(dir);
    let refused: Awaited<ReturnType<typeof translate>> | undefined;
    for (let i = 0; i < 200 && !refused; i++) {
      const result = await translate();
      if (result.isError) refused = result;
    }
    expect(refused?.structuredContent.error.code).toBe('audit_unwritable');
    expect(refused?.content[0]!.text).toContain('nothing was done');
    const [command, args] = svcCommand(['mcp', 'log', '--json']);
    const log = JSON.parse((await spawnCollect(command, args, { env })).stdout) as Array<{ tool: string; result: string }>;
    // Made, and its result written; or made, and its result line the one the disk refused (shown unfinished, its price reserved).
    const done = log.filter((e) => e.tool === 'translate' && (e.result === 'ok' || e.result === 'unfinished')).length;
    const events = await fetch(`${emulator().url}/v1/events?limit=100&type=translation.created`, {
      headers: { authorization: `Bearer ${emulator().seed.keys.live}` },
    });
    expect(events.status).toBe(200);
    expect(((await events.json()) as { data: unknown[] }).data).toHaveLength(done);
    const [verifyCommand, verifyArgs] = svcCommand(['mcp', 'log', '--verify']);
    const verify = await spawnCollect(verifyCommand, verifyArgs, { env });
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  });
});
