// config.json and credentials.json against what a disk can hold: wrong shapes, FIFOs, huge
// files, symlinks, loose permissions, leftovers of killed writers, half-done key writes.
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { parseConfig } from '../../src/config/config.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';

/** The file's emulator. */
const emu = useTestEmulator();

const fileStore = { SVC_CREDENTIAL_STORE: 'file' };
/** A keychain that is never there (the file store is forced anyway). */
const noKeychain = {
  get: async () => {
    throw new Error('no keychain');
  },
  set: async () => {
    throw new Error('no keychain');
  },
  delete: async () => {
    throw new Error('no keychain');
  },
};

describe('config.json shape', () => {
  it.each([
    ['{"profiles": null}', '"profiles" is not an object'],
    ['{"profiles": {"work": "x"}}', 'profiles.work is not an object'],
    ['{"profiles": {"work": {"keys": null}}}', 'profiles.work.keys is not an object'],
    [
      '{"profiles": {"work": {"keys": {"ci": {"name": "ci", "mode": "test", "last4": "abcd", "scopes": "all", "storage": "file", "added_at": "x"}}}}}',
      'profiles.work.keys.ci.scopes is not a list of strings',
    ],
    [
      '{"profiles": {"work": {"oauth": {"client_id": "svc_app_cli", "scopes": [], "expires_at": "soon", "storage": "keychain"}}}}',
      'profiles.work.oauth.expires_at is not a number',
    ],
    ['{"profiles": {"work": {"base_url": 42}}}', 'profiles.work.base_url is not a string'],
    ['{"profiles": {}, "default_profile": null}', 'default_profile is not a string'],
    ['null', 'the file is not an object'],
    ['"text"', 'the file is not an object'],
    ['{"version": 7}', 'is in format version 7, written by a newer svc; this svc'],
    ['{"version": "1"}', '"version" is "1", not a format version'],
  ])('%s → a clear error naming the field (exit 1), never an unexpected failure', async (text, field) => {
    expect(() => parseConfig(text, '/x/config.json')).toThrow(field);
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), text);
    const r = await runCli(['keys', 'list'], { configDir: dir });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(field);
    expect(r.stderr).not.toContain('unexpected failure');
  });

  it('a damaged config never blocks SVC_API_KEY', async () => {
    const dir = tempConfigDir();
    writeFileSync(join(dir, 'config.json'), '{"profiles": {"default": null}}');
    const r = await runCli(['account', '--json'], { configDir: dir, env: { SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: emu().url } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).id).toBe(emu().seed.org_id);
  });

  it('a FIFO, a directory or a huge file at config.json is refused without hanging or reading it', async () => {
    const fifoDir = tempConfigDir();
    execFileSync('mkfifo', [join(fifoDir, 'config.json')]);
    const fifo = await runCli(['keys', 'list'], { configDir: fifoDir });
    expect(fifo.exitCode).toBe(1);
    expect(fifo.stderr).toContain('is a FIFO, not a regular file');

    const dirDir = tempConfigDir();
    mkdirSync(join(dirDir, 'config.json'));
    const directory = await runCli(['keys', 'list'], { configDir: dirDir });
    expect(directory.exitCode).toBe(1);
    expect(directory.stderr).toContain('is a directory');

    const bigDir = tempConfigDir();
    writeFileSync(join(bigDir, 'config.json'), `{"profiles": {}, "pad": "${'x'.repeat(1024 * 1024)}"}`);
    const big = await runCli(['keys', 'list'], { configDir: bigDir });
    expect(big.exitCode).toBe(1);
    expect(big.stderr).toContain('larger than 1024 KiB');
  });

  it('a symlinked config.json stays a symlink: the write goes beside its target', async () => {
    const dir = tempConfigDir();
    const dotfiles = tempConfigDir();
    writeFileSync(join(dotfiles, 'svc.json'), '{"version": 1, "profiles": {}}\n');
    symlinkSync(join(dotfiles, 'svc.json'), join(dir, 'config.json'));
    const r = await runCli(['keys', 'add', '--stdin'], { configDir: dir, stdin: emu().seed.keys.test, env: { SVC_BASE_URL: emu().url } });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(lstatSync(join(dir, 'config.json')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dir, 'config.json'))).toBe(join(dotfiles, 'svc.json'));
    expect(JSON.parse(readFileSync(join(dotfiles, 'svc.json'), 'utf8')).profiles.default.keys.test.last4).toBe(emu().seed.keys.test.slice(-4));
    expect(readdirSync(dotfiles).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('temp files of an interrupted atomic write are removed by the next write', async () => {
    const dir = tempConfigDir();
    // A process id that does not run (pid_max is far below this on Linux).
    const orphan = join(dir, '.credentials.json.999999999.deadbeef.tmp');
    const orphanConfig = join(dir, '.config.json.999999999.cafef00d.tmp');
    writeFileSync(orphan, '{"secrets": {"default:test": "svc_test_leftover"}}', { mode: 0o600 });
    writeFileSync(orphanConfig, '{}');
    const live = join(dir, `.config.json.${process.pid}.0badf00d.tmp`); // a writer that runs: left alone
    writeFileSync(live, '{}');
    const r = await runCli(['keys', 'add', '--stdin'], {
      configDir: dir,
      stdin: emu().seed.keys.test,
      env: { SVC_BASE_URL: emu().url, ...fileStore },
      keychain: noKeychain,
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(existsSync(orphan)).toBe(false);
    expect(existsSync(orphanConfig)).toBe(false);
    expect(existsSync(live)).toBe(true);
  });
});

describe('permissions', () => {
  it('credentials.json open to others is tightened to 0600 and said; a world-writable config dir is said with its fix', async () => {
    const dir = tempConfigDir();
    const added = await runCli(['keys', 'add', '--stdin'], {
      configDir: dir,
      stdin: emu().seed.keys.test,
      env: { SVC_BASE_URL: emu().url, ...fileStore },
      keychain: noKeychain,
    });
    expect(added.exitCode, added.stderr).toBe(0);
    const credentials = join(dir, 'credentials.json');
    expect(statSync(credentials).mode & 0o777).toBe(0o600);
    chmodSync(credentials, 0o644);
    chmodSync(dir, 0o777);
    const r = await runCli(['account', '--json'], { configDir: dir, env: fileStore, keychain: noKeychain });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`${credentials} was open to others (mode 0644); svc set it to 0600`);
    expect(r.stderr).toContain(`chmod 700 ${dir}`);
    expect(statSync(credentials).mode & 0o777).toBe(0o600);
    chmodSync(dir, 0o700);
    const quiet = await runCli(['account', '--json'], { configDir: dir, env: fileStore, keychain: noKeychain });
    expect(quiet.stderr).not.toContain('warning');
  });
});

describe('key writes cut short', () => {
  /** A config as a `keys add` killed after writing the secret leaves it: the entry, the secret, no metadata. */
  function killedAdd(dir: string, key: string, pid = 999_999_999, host = hostname(), startedAt = new Date()) {
    const meta = { name: 'test', mode: 'test', last4: key.slice(-4), scopes: ['calls:read'], storage: 'file', added_at: new Date().toISOString() };
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({
        version: 1,
        profiles: {},
        secrets_in_flight: [
          {
            profile: 'default',
            name: 'test',
            key: meta,
            org: { id: emu().seed.org_id, name: 'Acme', base_url: emu().url },
            pid,
            host,
            started_at: startedAt.toISOString(),
          },
        ],
      }),
    );
  }

  it('an add whose secret was stored is completed by the next command; one whose secret was not is undone', async () => {
    const dir = tempConfigDir();
    killedAdd(dir, emu().seed.keys.test);
    const secrets = new MemorySecretStore();
    await secrets.set('default', 'test', emu().seed.keys.test);
    const next = await runCli(['account', '--json'], { configDir: dir, secrets, env: { SVC_BASE_URL: emu().url } });
    expect(next.exitCode, next.stderr).toBe(0);
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(config.secrets_in_flight).toBeUndefined();
    expect(config.profiles.default.keys.test.last4).toBe(emu().seed.keys.test.slice(-4));
    expect(config.profiles.default.base_url).toBe(emu().url);

    // The secret written is not the one announced (a torn write, another key): undone, nothing orphaned.
    const other = tempConfigDir();
    killedAdd(other, 'svc_test_announcedbutnotstored');
    const leftovers = new MemorySecretStore();
    await leftovers.set('default', 'test', 'svc_test_somethingelse1234');
    const after = await runCli(['keys', 'list', '--json'], { configDir: other, secrets: leftovers });
    expect(after.exitCode, after.stderr).toBe(0);
    expect(JSON.parse(after.stdout)).toEqual([]);
    expect(leftovers.secrets.size).toBe(0);
    expect(JSON.parse(readFileSync(join(other, 'config.json'), 'utf8')).secrets_in_flight).toBeUndefined();
  });

  it("another machine's entry is settled by the command's own clock (an hour on), not the machine's", async () => {
    const dir = tempConfigDir();
    const started = new Date();
    killedAdd(dir, emu().seed.keys.test, 999_999_999, 'another-machine.example', started);
    const secrets = new MemorySecretStore();
    await secrets.set('default', 'test', emu().seed.keys.test);
    const clock = { now: () => started.getTime() + 3_600_000, sleep: () => Promise.resolve() };
    const next = await runCli(['account', '--json'], { configDir: dir, secrets, clock, env: { SVC_BASE_URL: emu().url } });
    expect(next.exitCode, next.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).secrets_in_flight).toBeUndefined();
  });

  it('the entry of a writer that still runs is left alone', async () => {
    const dir = tempConfigDir();
    killedAdd(dir, emu().seed.keys.test, process.pid === 1 ? 2 : 1); // pid 1 always runs
    const secrets = new MemorySecretStore();
    await secrets.set('default', 'test', emu().seed.keys.test);
    await runCli(['keys', 'list'], { configDir: dir, secrets });
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).secrets_in_flight).toHaveLength(1);
    expect(secrets.secrets.size).toBe(1);
  });
});
