// Odd input of issue 32: what a hand-edited or damaged config holds is reported, never sent
// or taken for something it is not.
import { chownSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { testEmulator, type TestEmulator } from '../helpers/emulator.js';
import { failingKeychain } from '../helpers/keychains.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await testEmulator();
});
afterAll(async () => {
  await emu.close();
});

/** No Secret Service: every keychain call fails, as on a headless box. */
const noKeychain = failingKeychain('no keychain in this test');

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

// chown needs root; elsewhere the case cannot be made, and says so.
const root = process.getuid?.() === 0;
describe.skipIf(!root)('a config folder owned by another user (needs root to chown)', () => {
  it('keys add and doctor warn, naming the owner', async () => {
    const configDir = tempConfigDir();
    chownSync(configDir, 65534, 65534);
    const env = { SVC_CREDENTIAL_STORE: 'file', SVC_BASE_URL: emu.url };
    const added = await runCli(['keys', 'add'], { configDir, keychain: noKeychain, env, stdin: emu.seed.keys.test });
    expect(added.exitCode, added.stderr).toBe(0);
    expect(added.stderr).toContain(`warning: the config directory ${configDir} belongs to another user (uid 65534)`);
    const doctor = await runCli(['doctor', '--json'], { configDir, keychain: noKeychain, env });
    const checks = JSON.parse(doctor.stdout).checks as Array<{ status: string; message: string }>;
    expect(checks.find((c) => c.message.includes('belongs to another user'))).toMatchObject({ status: 'warning' });
  });
});
