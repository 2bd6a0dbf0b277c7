// `svc mcp` keeps V8's young generation at its starting size (src/mcp/nursery.ts), so a
// long session's resident memory is not tens of MiB of nursery. A preloaded probe inside the
// spawned process churns short-lived objects as it exits and reports how big the nursery grew;
// the same probe in `svc --version` (which never starts a session) shows that it does grow there.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NOT_STANDALONE, spawnCollect, standaloneBin, svcCommand } from '../helpers/spawn.js';

const probe = `
const v8 = require('node:v8');
process.on('exit', () => {
  let kept = [];
  for (let i = 0; i < 3e6; i++) { kept.push({ i, text: 'x' + i }); if (kept.length > 20000) kept = []; }
  const nursery = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  require('node:fs').writeFileSync(process.env.NURSERY_REPORT, String(nursery.space_size));
});
`;

async function nurseryMiB(args: string[], stdin: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-nursery-'));
  const probeFile = join(dir, 'probe.cjs');
  writeFileSync(probeFile, probe);
  const report = join(dir, 'nursery');
  const [command, argv] = svcCommand(args);
  const home = join(dir, 'home');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: home,
    SVC_CONFIG_DIR: join(home, '.config', 'svc'),
    SVC_API_KEY: `svc_test_${'n'.repeat(32)}`,
    SVC_BASE_URL: 'http://127.0.0.1:9',
    NODE_OPTIONS: `--require ${probeFile}`,
    NURSERY_REPORT: report,
  };
  const done = await spawnCollect(command, argv, { env, stdin });
  expect(done.code, done.stderr).toBe(0);
  return Number(readFileSync(report, 'utf8')) / 1048576;
}

describe.skipIf(standaloneBin)(`svc mcp's young generation (${standaloneBin ? NOT_STANDALONE : 'node bin/svc.js'})`, () => {
  it('stays at its starting size in a session, where it grows outside one', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const inSession = await nurseryMiB(['mcp'], `${JSON.stringify(initialize)}\n`);
    const outside = await nurseryMiB(['--version'], '');
    expect(outside).toBeGreaterThan(8);
    expect(inSession).toBeLessThanOrEqual(4);
  }, 30_000);
});
