// Odd input of issue 32: what a hand-edited or damaged config holds is reported, never sent
// or taken for something it is not.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { testEmulator, type TestEmulator } from '../helpers/emulator.js';
import type { KeychainBackend } from '../../src/credentials/store.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await testEmulator();
});
afterAll(async () => {
  await emu.close();
});

const noKeychain: KeychainBackend = {
  get: async () => {
    throw new Error('no keychain in this test');
  },
  set: async () => {
    throw new Error('no keychain in this test');
  },
  delete: async () => false,
};

describe('a stored secret of the wrong type', () => {
  it.each([
    ['5', 5, 1],
    ['"garbage"', 'garbage', 3],
    ['null', null, 1],
  ])('credentials.json holding %s as the test key: reported as damaged, nothing sent', async (_label, value, exitCode) => {
    const configDir = tempConfigDir();
    const meta = { name: 'test', mode: 'test', last4: 'abcd', scopes: [], storage: 'file', added_at: '2026-01-01T00:00:00Z' };
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({ version: 1, profiles: { default: { base_url: emu.url, org_id: emu.seed.org_id, keys: { test: meta } } } }),
    );
    writeFileSync(join(configDir, 'credentials.json'), JSON.stringify({ version: 1, secrets: { 'default:test': value } }), { mode: 0o600 });
    const before = (await emu.plane.stats()).requests;
    const r = await runCli(['account'], { configDir, keychain: noKeychain, env: { SVC_CREDENTIAL_STORE: 'file' } });
    expect(r.exitCode).toBe(exitCode);
    expect(r.stderr).toContain('damaged');
    expect(r.stderr).toContain('svc keys add --profile default --name test');
    // Nothing reached the service but this test's own stats call.
    expect((await emu.plane.stats()).requests).toBe(before + 1);
  });
});
