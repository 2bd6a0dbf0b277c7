// A read-only home with a config already there (issue 49): every command that writes the
// config or the credentials says svc's one wording (src/config/writable.ts `unwritable`) with
// the SVC_CONFIG_DIR fix, never a raw EROFS naming a lock's temp file. Real component: a
// tmpfs, filled while writable, then remounted read-only (needs root and mount(2): root
// ignores mode bits, so a chmod would prove nothing; skipped with its reason elsewhere, a
// failure under SVC_REQUIRE_REAL=1).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { runCli } from '../helpers/cli.js';
import { requireReal } from '../helpers/chromium.js';
import { envFor, scriptedBrowser } from '../auth/support.js';
import { failingKeychain } from '../helpers/keychains.js';

function mountTmpfs(): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'svc-read-only-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0755', 'tmpfs', dir], { stdio: 'pipe' });
    return dir;
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    if (requireReal) throw error;
    console.warn(`skipping the read-only config suite: cannot mount a tmpfs here (${(error as Error).message.split('\n')[0]}); it needs root`);
    return null;
  }
}

const mount = mountTmpfs();
/** No Secret Service: the credentials go to credentials.json, in the read-only folder. */
const noKeychain = failingKeychain('no keychain in this test');

describe.skipIf(mount === null)('a read-only home with a config already there (real tmpfs, remounted read-only)', () => {
  const dir = join(mount ?? '', '.config', 'svc');
  let emulator: RunningEmulator;
  const run = (argv: string[], stdin?: string) =>
    runCli(argv, {
      env: envFor(emulator, { SVC_CREDENTIAL_STORE: 'file' }),
      configDir: dir,
      keychain: noKeychain,
      browser: scriptedBrowser(emulator),
      ...(stdin !== undefined ? { stdin } : {}),
    });

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0 });
    // Two profiles: `default` signed in with OAuth and a test key, `other` with a test key.
    for (const [argv, stdin] of [
      [['login'], undefined],
      [['keys', 'add', '--stdin'], emulator.seed.keys.test],
      [['keys', 'add', '--stdin', '--profile', 'other'], emulator.seed.keys.test],
    ] as const) {
      const r = await run([...argv], stdin);
      expect(r.exitCode, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
    }
    execFileSync('mount', ['-o', 'remount,ro', mount!]);
  });
  afterAll(async () => {
    await emulator?.close();
    if (mount) {
      execFileSync('umount', [mount]);
      rmSync(mount, { recursive: true, force: true });
    }
  });

  const table: Array<[argv: string[], stdin?: string]> = [
    [['keys', 'add', '--stdin', '--replace'], 'test'],
    [['keys', 'remove', 'test', '--yes']],
    [['mode', 'live']],
    [['auth', 'switch', 'other']],
    [['login']],
    [['logout']],
    [['profiles', 'remove', 'other', '--yes']],
  ];
  for (const [argv, stdin] of table) {
    it(`svc ${argv.join(' ')}: the one wording, with the SVC_CONFIG_DIR fix (exit 1)`, async () => {
      const r = await run(argv, stdin === 'test' ? emulator.seed.keys.test : stdin);
      expect(r.exitCode, r.stderr).toBe(1);
      expect(r.stderr, r.stderr).toContain(`cannot write the config folder ${dir}: it is on a read-only file system`);
      expect(r.stderr).toContain('point SVC_CONFIG_DIR at a folder you can write');
      expect(r.stderr).not.toMatch(/EROFS|ENOENT|\.lock\.\d+/);
    });
  }
});
