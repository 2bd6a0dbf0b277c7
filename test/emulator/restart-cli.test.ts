// Issue 13: `svc login`, stored keys and `events tail --since` keep working across an emulator
// restart on the same state file (and the same address, which a profile is bound to).
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { envFor, scriptedBrowser } from '../auth/support.js';
import { call } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-emu-restart-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('the CLI across an emulator restart on the same --state file', () => {
  it('keeps the OAuth sign-in, the stored test key, and resumes events tail --since', async () => {
    const statePath = join(dir, 'state.jsonl');
    const port = await freePort();
    const secrets = new MemorySecretStore();
    const configDir = tempConfigDir();
    const first = await startEmulator({ port, statePath });
    const env = envFor(first);
    const seed = first.seed;
    expect((await runCli(['login'], { env, browser: scriptedBrowser(first), secrets, configDir })).exitCode).toBe(0);
    expect((await runCli(['keys', 'add', '--stdin'], { env, stdin: `${seed.keys.test}\n`, secrets, configDir })).exitCode).toBe(0);
    const published = (await call(first, 'POST', '/_emulator/events', { json: { org_id: seed.org_id, mode: 'test', type: 'call.started', count: 5 } })).body;
    await first.close();

    const second = await startEmulator({ port, statePath });
    try {
      const live = await runCli(['--live', 'account', '--json'], { env, secrets, configDir });
      expect(live.stderr).toBe('');
      expect(JSON.parse(live.stdout)).toMatchObject({ id: seed.org_id, credential: { type: 'oauth' } });
      const test = await runCli(['--test', 'account', '--json'], { env, secrets, configDir });
      expect(JSON.parse(test.stdout)).toMatchObject({ id: seed.org_id, credential: { type: 'api_key' } });
      const tail = await runCli(['--test', 'events', 'tail', '--json', '--since', published.first_id, '--max-events', '4'], { env, secrets, configDir });
      expect(tail.exitCode).toBe(0);
      const ids = tail.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).id);
      expect(ids).toHaveLength(4);
      expect(ids.at(-1)).toBe(published.last_id);
      expect(tail.stderr).not.toMatch(/gap|missing/i);
    } finally {
      await second.close();
    }
  }, 60_000);
});
