// A secret whose delete fails is said and retried, never reported as gone: `keys remove` with
// credentials.json's delete failing (its lock held by another process past the wait) warns
// that the secret is still there, keeps the announced delete in config.json, and the next
// command, once the remover has ended, deletes it.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { testEmulator, type TestEmulator } from '../helpers/emulator.js';
import { FallbackSecretStore, FileSecretStore, MemorySecretStore } from '../../src/credentials/store.js';
import { ConfigError } from '../../src/errors.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await testEmulator();
});
afterAll(async () => {
  await emu.close();
});

/** A store whose deletes fail as credentials.json's does when another process keeps its lock. */
class LockedFileStore extends MemorySecretStore {
  locked = true;
  override async delete(profile: string, name: string) {
    if (this.locked) throw new ConfigError('could not lock /cfg/credentials.json: another svc holds it and has not let go for 30 s', '/cfg/credentials.json');
    return super.delete(profile, name);
  }
}

/** The pid of a process that has ended. */
function endedPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}

describe('keys remove when the secret cannot be deleted', () => {
  it('warns that the secret is still there, keeps the delete in flight, and a later command deletes it', async () => {
    const configDir = tempConfigDir();
    const secrets = new LockedFileStore();
    const added = await runCli(['keys', 'add', '--base-url', emu.url], { configDir, secrets, stdin: emu.seed.keys.test });
    expect(added.exitCode, added.stderr).toBe(0);

    const removed = await runCli(['keys', 'remove', 'test', '--yes'], { configDir, secrets });
    expect(removed.stderr).toContain('could not lock /cfg/credentials.json');
    expect(removed.stderr).toMatch(/warning: the secret default:test in \/cfg\/credentials\.json could not be deleted/);
    expect(removed.stdout).toContain('its secret remains, see the warning');
    expect(secrets.secrets.get('default:test')).toBe(emu.seed.keys.test);
    const configPath = join(configDir, 'config.json');
    const config = JSON.parse(readFileSync(configPath, 'utf8'));
    expect(config.secrets_in_flight).toEqual([expect.objectContaining({ profile: 'default', name: 'test' })]);
    expect(config.profiles.default.keys?.test).toBeUndefined();

    // The remover has ended (in-process here, so its pid is made one that has); the lock is free now.
    config.secrets_in_flight[0].pid = endedPid();
    writeFileSync(configPath, JSON.stringify(config));
    secrets.locked = false;
    const listed = await runCli(['keys', 'list'], { configDir, secrets });
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(secrets.secrets.has('default:test')).toBe(false);
    expect(JSON.parse(readFileSync(configPath, 'utf8')).secrets_in_flight).toBeUndefined();
  });
});

describe('a secret stored in the keychain whose old copy in credentials.json cannot be deleted', () => {
  it('is stored, and the copy left in the file is warned of by name', async () => {
    const dir = tempConfigDir();
    class LockedFile extends FileSecretStore {
      override async delete(): Promise<null> {
        throw new ConfigError(`could not lock ${this.path}: another svc holds it and has not let go for 30 s`, this.path);
      }
    }
    const warnings: string[] = [];
    const store = new FallbackSecretStore(new MemorySecretStore(), new LockedFile(dir), 'auto', (message) => warnings.push(message));
    expect(await store.set('p', 'test', 'svc_test_new')).toBe('keychain');
    expect(warnings).toEqual([expect.stringContaining(`the secret p:test in ${join(dir, 'credentials.json')} could not be deleted (could not lock`)]);
  });
});
