// config.json: atomic writes, a corrupt file reported and never overwritten, an
// unwritable directory reported, concurrent writers never losing each other's changes,
// and the per-profile lock (exclusive, stale locks taken over).
import { describe, expect, it } from 'vitest';
import { mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';
import { FileConfigStore, parseConfig } from '../../src/config/config.js';
import { readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { execute } from '../../src/main.js';
import type { Runtime } from '../../src/cli/context.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { withProfileLockIn } from '../../src/config/lock.js';
import { configDir as platformConfigDir } from '../../src/config/paths.js';

/** Like runCli, with the config store given (runCli has no such option). */
async function runWithConfig(argv: string[], config: FileConfigStore, stdin = ''): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const runtime: Runtime = {
    env: { HOME: config.dir, SVC_CONFIG_DIR: config.dir },
    stdout: { write: (chunk) => void (stdout += chunk), isTTY: false },
    stderr: { write: (chunk) => void (stderr += chunk), isTTY: false },
    stdin: {
      isTTY: false,
      readAll: async () => stdin,
      async *lines() {
        yield* stdin.split('\n').filter(Boolean);
      },
    },
    clock: { now: () => Date.now(), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) },
    random: { bytes: (n) => new Uint8Array(randomBytes(n)) },
    browser: {
      open: async () => {
        throw new Error('no browser in tests');
      },
    },
    signal: new AbortController().signal,
    secrets: new MemorySecretStore(),
    config,
  };
  const exitCode = await execute(argv, runtime);
  return { exitCode, stdout, stderr };
}

/** The file's emulator. */
const emu = useTestEmulator();

describe('config.json', () => {
  it('a file that does not parse is reported with its path and left untouched', async () => {
    const dir = tempConfigDir();
    const path = join(dir, 'config.json');
    const corrupt = '{"profiles": {"default": {"org_id": "org_1",,}}';
    writeFileSync(path, corrupt);
    for (const argv of [['keys', 'list'], ['mode', 'live'], ['auth', 'status'], ['account']]) {
      const r = await runCli(argv, { configDir: dir });
      expect(r.exitCode, argv.join(' ')).toBe(1);
      expect(r.stderr).toContain(`the config file ${path} is not valid`);
      expect(r.stderr).toContain('left untouched');
    }
    const add = await runCli(['keys', 'add', '--base-url', emu().url], { configDir: dir, stdin: emu().seed.keys.test });
    expect(add.exitCode).toBe(1);
    expect(readFileSync(path, 'utf8')).toBe(corrupt);
    expect(() => parseConfig('{"profiles": []}', path)).toThrow(/"profiles" is not an object/);
    expect(() => parseConfig('{"profiles": {"a": {"mode": "prod"}}}', path)).toThrow(/profiles\.a\.mode is "prod"/);
  });

  it('an unwritable config directory is reported with its path (exit 1)', async () => {
    // Root ignores permission bits, so make the directory impossible instead: its parent is a file.
    const base = tempConfigDir();
    writeFileSync(join(base, 'file'), '');
    const dir = join(base, 'file', 'svc');
    const r = await runCli(['keys', 'add', '--base-url', emu().url], { configDir: dir, stdin: emu().seed.keys.test });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(dir);
  });

  it('a read-only config directory is reported with its path (exit 1), even as root', async () => {
    // Root ignores mode bits (CI runs as root), so the failure a read-only disk or directory
    // gives is injected through the config store's fs seam: the real error path, message and code.
    const dir = tempConfigDir();
    const fail = (code: string) => async (path: string) => {
      throw Object.assign(new Error(`${code}: ${code === 'EROFS' ? 'read-only file system' : 'permission denied'}, open '${path}'`), { code });
    };
    const erofs = await runWithConfig(
      ['keys', 'add', '--base-url', emu().url],
      new FileConfigStore(dir, { readFile: (p) => readFile(p, 'utf8'), writeFileAtomic: fail('EROFS') }),
      emu().seed.keys.test,
    );
    // svc's one wording for a folder it cannot write (src/config/writable.ts), with the fix.
    expect(erofs.exitCode).toBe(1);
    expect(erofs.stderr).toContain(`cannot write the config folder ${dir}: it is on a read-only file system`);
    expect(erofs.stderr).toContain('point SVC_CONFIG_DIR at a folder you can write');

    const eacces = await runWithConfig(
      ['keys', 'add', '--base-url', emu().url],
      new FileConfigStore(dir, { readFile: (p) => readFile(p, 'utf8'), writeFileAtomic: fail('EACCES') }),
      emu().seed.keys.test,
    );
    expect(eacces.exitCode).toBe(1);
    expect(eacces.stderr).toContain(`cannot write the config folder ${dir}: permission denied`);
    expect(eacces.stderr).toContain('point SVC_CONFIG_DIR at a folder you can write');

    // An unreadable config file: named, with the permissions to fix.
    const unreadable = await runWithConfig(['keys', 'list'], new FileConfigStore(dir, { readFile: fail('EACCES'), writeFileAtomic: async () => {} }));
    expect(unreadable.exitCode).toBe(1);
    expect(unreadable.stderr).toContain(`cannot read the config file ${join(dir, 'config.json')}`);
    expect(unreadable.stderr).toContain(`fix the permissions of ${join(dir, 'config.json')}`);
  });

  it('a config dir that does not exist yet is created (first run), owner-only', async () => {
    const dir = join(tempConfigDir(), 'not', 'yet', 'svc');
    const r = await runCli(['keys', 'add', '--base-url', emu().url], { configDir: dir, stdin: emu().seed.keys.test });
    expect(r.exitCode).toBe(0);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).profiles.default.org_name).toBe('Acme');
  });

  it('writes are atomic: 0600, no temp file left behind', async () => {
    const dir = tempConfigDir();
    const store = new FileConfigStore(dir);
    await store.update((c) => {
      c.profiles.a = { mode: 'test' };
    });
    expect(statSync(store.path).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(JSON.parse(readFileSync(store.path, 'utf8')).profiles.a.mode).toBe('test');
  });

  it('concurrent writers (separate stores, as separate processes would be) lose nothing', async () => {
    const dir = tempConfigDir();
    const writers = Array.from({ length: 16 }, (_, i) =>
      new FileConfigStore(dir).update(async (c) => {
        // A slow read-modify-write: without the lock, later writers would drop earlier profiles.
        await new Promise((r) => setTimeout(r, 5));
        c.profiles[`p${i}`] = { org_id: `org_${i}` };
      }),
    );
    await Promise.all(writers);
    const profiles = Object.keys((await new FileConfigStore(dir).read()).profiles);
    expect(profiles.sort()).toEqual(Array.from({ length: 16 }, (_, i) => `p${i}`).sort());
  });

  it('the config dir: SVC_CONFIG_DIR, else XDG_CONFIG_HOME/svc, else ~/.config/svc', () => {
    expect(platformConfigDir({ SVC_CONFIG_DIR: '/x' }, 'linux')).toBe('/x');
    expect(platformConfigDir({ XDG_CONFIG_HOME: '/cfg', HOME: '/h' }, 'linux')).toBe('/cfg/svc');
    expect(platformConfigDir({ HOME: '/h' }, 'linux')).toBe('/h/.config/svc');
    expect(platformConfigDir({ HOME: '/h' }, 'darwin')).toBe('/h/Library/Application Support/svc');
  });
});

describe('per-profile lock', () => {
  it('is exclusive: sections for the same profile never overlap', async () => {
    const dir = tempConfigDir();
    let inside = 0;
    let maxInside = 0;
    await Promise.all(
      Array.from({ length: 6 }, () =>
        withProfileLockIn(dir, 'default', async () => {
          inside++;
          maxInside = Math.max(maxInside, inside);
          await new Promise((r) => setTimeout(r, 20));
          inside--;
        }),
      ),
    );
    expect(maxInside).toBe(1);
  });

  it('takes over a stale lock left by a killed process', async () => {
    const dir = tempConfigDir();
    const lock = join(dir, 'locks', 'default.lock');
    mkdirSync(lock, { recursive: true });
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    // A live holder would keep us waiting past the test's timeout; a stale one is taken over.
    expect(await withProfileLockIn(dir, 'default', async () => 'got it')).toBe('got it');
  });
});
