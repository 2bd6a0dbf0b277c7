// Money never spent on a mode nobody chose (issue 44; README, "Test and live mode"): a
// profile's mode is stored with its first credential and changes only with `svc mode`;
// --test/--live and SVC_MODE override it for one command. A credential added or removed never
// switches it; a profile left without a credential for its mode says so and stops; without a
// terminal, a billable live command runs only in a live mode someone chose.
import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';
import { envFor, scriptedBrowser } from '../auth/support.js';
import { MemorySecretStore } from '../../src/credentials/store.js';

const emu = useTestEmulator({ resetEach: true });

async function liveCallCount(): Promise<number> {
  const response = await fetch(`${emu().url}/v1/calls?limit=100`, { headers: { authorization: `Bearer ${emu().seed.keys.live}` } });
  return ((await response.json()) as { data: unknown[] }).data.length;
}

function storedProfile(configDir: string) {
  return JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles.default;
}

describe('the mode rule', () => {
  it('removing the test key of a profile with both keys leaves it in test mode: the next call stops, nothing is billed', async () => {
    const configDir = tempConfigDir();
    const secrets = new MemorySecretStore();
    const env = { SVC_BASE_URL: emu().url };
    expect((await runCli(['keys', 'add', '--name', 't'], { configDir, secrets, env, stdin: emu().seed.keys.test })).exitCode).toBe(0);
    expect(storedProfile(configDir)).toMatchObject({ mode: 'test', mode_implied: true });
    const live = await runCli(['keys', 'add', '--name', 'l'], { configDir, secrets, env, stdin: emu().seed.keys.live });
    expect(live.exitCode, live.stderr).toBe(0);
    expect(live.stderr).toContain('note: profile "default" stays in test mode: use --live for one command, or `svc mode live` to switch');

    const removed = await runCli(['keys', 'remove', 't', '--yes'], { configDir, secrets, env });
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(removed.stderr).toContain('note: profile "default" stays in test mode, which now has no credential');
    expect(removed.stderr).toContain('`svc mode live`');
    expect(storedProfile(configDir).mode).toBe('test');

    const started = await runCli(['calls', 'start', '--languages', 'en,es'], { configDir, secrets, env });
    expect(started.exitCode).toBe(3);
    expect(started.stderr).toContain('profile "default" (Acme) is in test mode');
    expect(started.stderr).toContain('has no test credential');
    expect(started.stderr).toContain('or use --live (`svc mode live` for good)');
    expect(await liveCallCount()).toBe(0);
  });

  it('a sign-in added to a profile in test mode leaves it there, and says so', async () => {
    const configDir = tempConfigDir();
    const secrets = new MemorySecretStore();
    await runCli(['keys', 'add'], { configDir, secrets, env: { SVC_BASE_URL: emu().url }, stdin: emu().seed.keys.test });
    const login = await runCli(['login'], { configDir, secrets, env: envFor(emu().emulator), browser: scriptedBrowser(emu().emulator) });
    expect(login.exitCode, login.stderr).toBe(0);
    expect(login.stderr).toContain('Profile "default" stays in test mode: use --live for one command, or `svc mode live` to switch.');
    expect(storedProfile(configDir).mode).toBe('test');
    expect(JSON.parse((await runCli(['account', '--json'], { configDir, secrets })).stdout).livemode).toBe(false);
  });

  it('a config.json from before the rule (no stored mode) keeps the mode it ran in through a removal', async () => {
    const configDir = tempConfigDir();
    const secrets = new MemorySecretStore();
    const env = { SVC_BASE_URL: emu().url };
    await runCli(['keys', 'add', '--name', 't'], { configDir, secrets, env, stdin: emu().seed.keys.test });
    await runCli(['keys', 'add', '--name', 'l'], { configDir, secrets, env, stdin: emu().seed.keys.live });
    const path = join(configDir, 'config.json');
    const config = JSON.parse(readFileSync(path, 'utf8'));
    delete config.profiles.default.mode;
    delete config.profiles.default.mode_implied;
    writeFileSync(path, JSON.stringify(config));
    expect(JSON.parse((await runCli(['mode', '--json'], { configDir, secrets, env })).stdout)).toMatchObject({ mode: 'test', chosen: false });

    expect((await runCli(['keys', 'remove', 't', '--yes'], { configDir, secrets, env })).exitCode).toBe(0);
    expect(storedProfile(configDir)).toMatchObject({ mode: 'test', mode_implied: true });
    expect((await runCli(['calls', 'start', '--languages', 'en,es'], { configDir, secrets, env })).exitCode).toBe(3);
    expect(await liveCallCount()).toBe(0);
  });

  it('a live mode only implied by the first credential does not bill a script; --live, SVC_MODE and `svc mode live` do', async () => {
    const configDir = tempConfigDir();
    const secrets = new MemorySecretStore();
    const env = { SVC_BASE_URL: emu().url };
    await runCli(['keys', 'add'], { configDir, secrets, env, stdin: emu().seed.keys.live });
    expect(storedProfile(configDir)).toMatchObject({ mode: 'live', mode_implied: true });
    // A test key added later does not flip it either.
    await runCli(['keys', 'add'], { configDir, secrets, env, stdin: emu().seed.keys.test });
    expect(storedProfile(configDir).mode).toBe('live');

    for (const argv of [
      ['calls', 'start', '--languages', 'en,es', '--yes'],
      ['translate', 'Hello', '--to', 'es'],
    ]) {
      const refused = await runCli(argv, { configDir, secrets, env });
      expect(refused.exitCode, argv.join(' ')).toBe(2);
      expect(refused.stderr).toContain('live mode was not chosen: profile "default" is live only because of its credentials; nothing was done');
      expect(refused.stderr).toContain('--live (or SVC_MODE=live)');
    }
    expect(await liveCallCount()).toBe(0);

    expect((await runCli(['calls', 'start', '--languages', 'en,es', '--live'], { configDir, secrets, env })).exitCode).toBe(0);
    expect((await runCli(['calls', 'start', '--languages', 'en,es'], { configDir, secrets, env: { ...env, SVC_MODE: 'live' } })).exitCode).toBe(0);
    expect((await runCli(['mode', 'live'], { configDir, secrets, env })).exitCode).toBe(0);
    expect(storedProfile(configDir).mode_implied).toBeUndefined();
    expect((await runCli(['calls', 'start', '--languages', 'en,es'], { configDir, secrets, env })).exitCode).toBe(0);
    expect(await liveCallCount()).toBe(3);
  });
});
