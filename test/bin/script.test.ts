// The built binary for what only the bundle can get wrong in the scripting features:
// jq-wasm loaded from dist/lib on demand, JSON errors on stderr with the exit code,
// bare `svc` printing help with exit 0.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { controlPlane, startTestEmulator } from '../helpers/emulator.js';
import { spawnCollect, svcCommand, svcPath, type Spawned } from '../helpers/spawn.js';

let emulator: RunningEmulator;
let configDir: string;

function svc(args: string[], env: Record<string, string> = {}): Promise<Spawned> {
  return spawnCollect(...svcCommand(args), {
    env: { PATH: svcPath(), HOME: configDir, SVC_CONFIG_DIR: configDir, SVC_CREDENTIAL_STORE: 'file', SVC_BASE_URL: emulator.url, ...env },
  });
}

beforeAll(async () => {
  emulator = await startTestEmulator();
  configDir = mkdtempSync(join(tmpdir(), 'svc-binary-script-'));
});

afterAll(async () => {
  await emulator?.close();
  rmSync(configDir, { recursive: true, force: true });
});

describe('scripting through the bundle', () => {
  it('svc api --jq runs the bundled jq', async () => {
    const ran = await svc(['api', 'v1/account', '--jq', '.credential.scopes | join(",")'], { SVC_API_KEY: emulator.seed.keys.test });
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^calls:read,.*account:read\n$/);
  });

  it('--json failures are one JSON object on stderr, stdout empty, the exit code in both', async () => {
    const ran = await svc(['account', '--json']);
    expect(ran.code).toBe(3);
    expect(ran.stdout).toBe('');
    expect(JSON.parse(ran.stderr)).toMatchObject({ error: { code: 'not_authenticated', status: null, exit_code: 3 } });
  });

  it('bare svc prints its help on stdout and exits 0', async () => {
    const ran = await svc([]);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('Usage: svc');
    expect(ran.stderr).toBe('');
  });
});
