// keys add / list / remove, mode, and what they leave in config.json and the secret store.
import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters as plain } from 'node:util';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';
import { MemorySecretStore } from '../../src/credentials/store.js';

/** The file's emulator, the seed again before each test. */
const emu = useTestEmulator({ resetEach: true });

function filesText(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
    .join('\n');
}

describe('svc keys add', () => {
  it('checks the key with the service and stores it for the profile and its mode', async () => {
    const configDir = tempConfigDir();
    const secrets = new MemorySecretStore();
    const key = emu().seed.keys.test;
    const added = await runCli(['keys', 'add', '--base-url', emu().url], { configDir, secrets, stdin: key + '\n' });
    expect(added.stderr).toBe('');
    expect(added.exitCode).toBe(0);
    expect(added.stdout).toContain('Acme');
    expect(added.stdout).toContain(`svc_test_…${key.slice(-4)}`);
    expect(secrets.secrets.get('default:test')).toBe(key);

    const config = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'));
    expect(config.default_profile).toBe('default');
    expect(config.profiles.default).toMatchObject({ org_id: emu().seed.org_id, org_name: 'Acme', base_url: emu().url });
    expect(config.profiles.default.keys.test).toMatchObject({ name: 'test', mode: 'test', last4: key.slice(-4), storage: 'memory' });
    expect(config.profiles.default.keys.test.scopes).toContain('calls:read');
    // The secret itself is in no file and was never printed.
    expect(filesText(configDir)).not.toContain(key);
    expect(added.stdout + added.stderr).not.toContain(key);

    // …and the stored key is what later commands use.
    const account = await runCli(['account', '--json'], { configDir, secrets });
    expect(account.exitCode).toBe(0);
    expect(JSON.parse(account.stdout)).toMatchObject({ id: emu().seed.org_id, livemode: false });
  });

  it('refuses what is not svc_live_/svc_test_ before any network call', async () => {
    // An address where nothing listens: a request would fail with exit 9, not 2.
    for (const bad of ['sk_live_abcdefghijklmnop', 'svc_oat_abcdefghijklmnopqrstu', 'svc_cs_abcdefghijklmnop', 'svc_test_', '']) {
      const r = await runCli(['keys', 'add', '--base-url', 'http://127.0.0.1:9'], { stdin: bad });
      expect(r.exitCode, bad).toBe(2);
      expect(r.stderr).toMatch(/svc_live_ or svc_test_|no key on stdin|too short/);
      if (bad.length > 12) expect(r.stderr).not.toContain(bad);
    }
  });

  it("refuses a key of another organization than the profile's, storing nothing", async () => {
    const configDir = tempConfigDir();
    const secrets = new MemorySecretStore();
    await runCli(['keys', 'add', '--base-url', emu().url], { configDir, secrets, stdin: emu().seed.keys.test });
    const other = await emu().plane.createOrg('Globex');
    const otherOrg = (other.id ?? other.org_id)!;
    const { key } = await emu().makeKey('live', undefined, otherOrg);
    const r = await runCli(['keys', 'add'], { configDir, secrets, stdin: key });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('Globex');
    expect(r.stderr).toContain('Acme');
    expect(secrets.secrets.has('default:live')).toBe(false);
    expect(JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles.default.keys.live).toBeUndefined();
    // In a profile of its own it is fine.
    const own = await runCli(['keys', 'add', '--profile', 'globex', '--base-url', emu().url], { configDir, secrets, stdin: key });
    expect(own.exitCode).toBe(0);
    expect(secrets.secrets.get('globex:live')).toBe(key);
  });

  it('a revoked key is refused with exit 3 and the next step', async () => {
    const { id, key } = await emu().makeKey('test');
    await emu().plane.revokeKey(emu().seed.org_id, id);
    const r = await runCli(['keys', 'add', '--base-url', emu().url], { stdin: key });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/unknown or revoked/);
    expect(r.stderr).not.toContain(key);
  });

  it('a key without account:read cannot be checked: exit 4 naming the scope', async () => {
    const { key } = await emu().makeKey('test', ['calls:read']);
    const r = await runCli(['keys', 'add', '--base-url', emu().url], { stdin: key });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('account:read');
  });

  it('--test with a live key is a usage error that says which mode the key is and which was asked', async () => {
    const r = await runCli(['keys', 'add', '--test', '--base-url', emu().url], { stdin: emu().seed.keys.live });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('this is a live key');
    expect(r.stderr).toContain('--test was given');
    expect(r.stderr).toContain('drop --test');
    expect(r.stderr).not.toContain(emu().seed.keys.live);
  });

  it('refuses a name already used by a key of the other mode; the first key survives', async () => {
    const configDir = tempConfigDir();
    const secrets = new MemorySecretStore();
    const first = await runCli(['keys', 'add', '--name', 'ci', '--base-url', emu().url], { configDir, secrets, stdin: emu().seed.keys.test });
    expect(first.exitCode).toBe(0);
    const second = await runCli(['keys', 'add', '--name', 'ci'], { configDir, secrets, stdin: emu().seed.keys.live });
    expect(second.exitCode).toBe(2);
    expect(second.stderr).toContain('a test key named ci exists in profile "default"; choose another --name or svc keys remove ci first');
    expect(secrets.secrets.get('default:ci')).toBe(emu().seed.keys.test);
    const keys = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles.default.keys;
    expect(Object.keys(keys)).toEqual(['ci']);
    expect(keys.ci).toMatchObject({ mode: 'test', last4: emu().seed.keys.test.slice(-4) });
    const account = await runCli(['account', '--json', '--test'], { configDir, secrets });
    expect(JSON.parse(account.stdout).livemode).toBe(false);
    // The same name in the same mode is a replacement, as before.
    const { key: other } = await emu().makeKey('test');
    expect((await runCli(['keys', 'add', '--name', 'ci', '--replace'], { configDir, secrets, stdin: other })).exitCode).toBe(0);
    expect(secrets.secrets.get('default:ci')).toBe(other);
  });

  it('--stdin on a terminal asks with the hidden prompt instead of echoing the key', async () => {
    const asked: string[] = [];
    const r = await runCli(['keys', 'add', '--stdin', '--base-url', emu().url], {
      tty: true,
      prompter: {
        password: async (message) => {
          asked.push(message);
          return emu().seed.keys.test;
        },
        confirm: async () => true,
      },
    });
    expect(r.exitCode).toBe(0);
    expect(asked).toHaveLength(1);
    expect(r.stdout).toContain('test key "test"');
  });

  it('on a terminal it asks with a hidden prompt; without one and without --stdin it reads stdin', async () => {
    const asked: string[] = [];
    const r = await runCli(['keys', 'add', '--name', 'mine', '--base-url', emu().url], {
      tty: true,
      prompter: {
        password: async (message) => {
          asked.push(message);
          return emu().seed.keys.live;
        },
        confirm: async () => true,
      },
    });
    expect(r.exitCode).toBe(0);
    expect(asked).toHaveLength(1);
    expect(r.stdout).toContain('live key "mine"');
  });
});

describe('svc keys list / remove', () => {
  it('lists name, mode, redacted key, scopes and storage; removes by name', async () => {
    const configDir = tempConfigDir();
    const secrets = new MemorySecretStore();
    await runCli(['keys', 'add', '--base-url', emu().url], { configDir, secrets, stdin: emu().seed.keys.test });
    const { key: limited } = await emu().makeKey('live', ['account:read', 'calls:read']);
    await runCli(['keys', 'add', '--name', 'ci'], { configDir, secrets, stdin: limited });

    const tsv = await runCli(['keys', 'list'], { configDir, secrets });
    expect(tsv.exitCode).toBe(0);
    // Scopes space-separated, as everywhere (auth status, account, the OAuth scope field).
    expect(tsv.stdout.trim().split('\n')).toEqual([
      `ci\tlive\tsvc_live_…${limited.slice(-4)}\taccount:read calls:read\tmemory`,
      expect.stringMatching(new RegExp(`^test\ttest\tsvc_test_…${emu().seed.keys.test.slice(-4)}\t.*calls:read.*\tmemory$`)),
    ]);
    const table = await runCli(['keys', 'list'], { configDir, secrets, tty: true });
    expect(plain(table.stdout)).toMatch(/NAME\s+MODE\s+KEY\s+SCOPES\s+STORED/);
    const json = JSON.parse((await runCli(['keys', 'list', '--json'], { configDir, secrets })).stdout);
    expect(json.map((k: { name: string }) => k.name)).toEqual(['ci', 'test']);
    expect(JSON.stringify(json)).not.toContain(limited);

    const removed = await runCli(['keys', 'remove', 'ci', '--yes'], { configDir, secrets });
    expect(removed.exitCode).toBe(0);
    expect(secrets.secrets.has('default:ci')).toBe(false);
    expect((await runCli(['keys', 'list'], { configDir, secrets })).stdout).not.toContain('ci\t');
    const again = await runCli(['keys', 'remove', 'ci', '--yes'], { configDir, secrets });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('no key named "ci"');
  });

  it('an unknown profile is named, with the profiles there are', async () => {
    const configDir = tempConfigDir();
    await runCli(['keys', 'add', '--base-url', emu().url], { configDir, stdin: emu().seed.keys.test });
    for (const argv of [
      ['keys', 'list', '--profile', 'nope'],
      ['keys', 'remove', 'test', '--profile', 'nope'],
      ['account', '--profile', 'nope'],
    ]) {
      const r = await runCli(argv, { configDir });
      expect(r.exitCode, argv.join(' ')).toBe(2);
      expect(r.stderr).toContain('no profile "nope" (profiles: default)');
    }
    const env = await runCli(['account'], { configDir, env: { SVC_PROFILE: 'nope' } });
    expect(env.exitCode).toBe(2);
  });
});

describe('svc mode', () => {
  it('shows the mode and where it comes from, and sets the profile default', async () => {
    const configDir = tempConfigDir();
    const secrets = new MemorySecretStore();
    await runCli(['keys', 'add', '--base-url', emu().url], { configDir, secrets, stdin: emu().seed.keys.test });
    await runCli(['keys', 'add'], { configDir, secrets, stdin: emu().seed.keys.live });
    expect((await runCli(['mode'], { configDir, secrets })).stdout).toBe('test\n');

    const set = await runCli(['mode', 'live'], { configDir, secrets });
    expect(set.exitCode).toBe(0);
    expect(JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).profiles.default.mode).toBe('live');
    expect(JSON.parse((await runCli(['mode', '--json'], { configDir, secrets })).stdout)).toMatchObject({
      mode: 'live',
      source: "the profile's mode (svc mode)",
      chosen: true,
    });
    const account = JSON.parse((await runCli(['account', '--json'], { configDir, secrets })).stdout);
    expect(account.livemode).toBe(true);

    // Flags and env win over the profile.
    expect(JSON.parse((await runCli(['account', '--json', '--test'], { configDir, secrets })).stdout).livemode).toBe(false);
    expect(JSON.parse((await runCli(['account', '--json'], { configDir, secrets, env: { SVC_MODE: 'test' } })).stdout).livemode).toBe(false);
    expect((await runCli(['mode', 'staging'], { configDir, secrets })).exitCode).toBe(2);
    expect((await runCli(['account'], { configDir, secrets, env: { SVC_MODE: 'staging' } })).exitCode).toBe(2);
  });

  it('a mode with no credential is exit 3 naming the command that fixes it', async () => {
    const configDir = tempConfigDir();
    await runCli(['keys', 'add', '--base-url', emu().url], { configDir, stdin: emu().seed.keys.test });
    const r = await runCli(['account', '--live'], { configDir });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('no live credential');
    expect(r.stderr).toContain('svc login');
    // "--live" is suggested only when the profile has something live to use.
    const liveOnly = tempConfigDir();
    await runCli(['keys', 'add', '--base-url', emu().url], { configDir: liveOnly, stdin: emu().seed.keys.live });
    const noTest = await runCli(['account', '--test'], { configDir: liveOnly });
    expect(noTest.exitCode).toBe(3);
    expect(noTest.stderr).toContain('or use --live');
    expect(r.stderr).toContain('or use --test');
    const bare = tempConfigDir();
    await runCli(['keys', 'add', '--base-url', emu().url], { configDir: bare, stdin: emu().seed.keys.live });
    await runCli(['keys', 'remove', 'live', '--yes'], { configDir: bare });
    const nothing = await runCli(['account', '--test'], { configDir: bare });
    expect(nothing.exitCode).toBe(3);
    expect(nothing.stderr).toContain('svc keys add --profile default');
    expect(nothing.stderr).not.toContain('--live');
    const none = await runCli(['account']);
    expect(none.exitCode).toBe(3);
    expect(none.stderr).toContain('svc keys add');
  });
});
