// A keychain read that fails is not "no secret" (README, "Where secrets live"): only where
// there is no Secret Service at all is credentials.json the one place a secret can be. A read
// that times out (a stuck D-Bus) or fails otherwise, with nothing in the file, stops with
// keychain_failed, rather than `svc events tail` making a second forwarding secret in the file
// that then alternates with the keychain's, run after run.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { failingKeychain, hangingKeychain, workingKeychain } from '../helpers/keychains.js';

function credentialsFileOf(configDir: string): string {
  const path = join(configDir, 'credentials.json');
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

describe('the forwarding secret when the keychain read fails', () => {
  it('a read that times out: keychain_failed (exit 1), no second secret made in the file; the keychain answers again: the same secret', async () => {
    const configDir = tempConfigDir();
    const keychain = workingKeychain();
    const first = await runCli(['events', 'tail', '--print-secret'], { configDir, keychain });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^svc_whsec_[0-9a-f]+\n$/);

    const stuck = hangingKeychain();
    for (const [account, value] of keychain.entries) stuck.entries.set(account, value);
    const timedOut = await runCli(['--json', 'events', 'tail', '--print-secret'], { configDir, keychain: stuck, keychainTimeoutMs: 50 });
    expect(timedOut.exitCode).toBe(1);
    expect(timedOut.stdout).toBe('');
    expect(JSON.parse(timedOut.stderr).error).toMatchObject({ code: 'keychain_failed', message: expect.stringContaining('did not answer') });
    expect(credentialsFileOf(configDir)).not.toContain('svc_whsec_');

    const again = await runCli(['events', 'tail', '--print-secret'], { configDir, keychain });
    expect(again.stdout).toBe(first.stdout);
  });

  it('no Secret Service at all: the secret is made once in credentials.json and is the same run after run', async () => {
    const configDir = tempConfigDir();
    const first = await runCli(['events', 'tail', '--print-secret'], { configDir, keychain: failingKeychain() });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(credentialsFileOf(configDir)).toContain(first.stdout.trim());
    const second = await runCli(['events', 'tail', '--print-secret'], { configDir, keychain: failingKeychain() });
    expect(second.stdout).toBe(first.stdout);
  });
});
