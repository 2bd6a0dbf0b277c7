// A full disk and a read-only mount as the built svc says them (issue 44): one wording for a
// full disk whichever file svc was writing ("cannot write FILE: the disk is full", with where
// to free space), no empty lock temp files left behind, and doctor's fix for a config folder
// on a read-only mount is not a chmod. Real tmpfs mounts (needs root and mount(2); skipped
// with its reason elsewhere, a failure under SVC_REQUIRE_REAL=1).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { requireReal } from '../helpers/chromium.js';
import { tempConfigDir } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';
import { spawnCollect, svcCommand, svcPath } from '../helpers/spawn.js';

const mounts: string[] = [];
function mountTmpfs(options: string): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'svc-disk-words-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { stdio: 'pipe' });
    mounts.push(dir);
    return dir;
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    if (requireReal) throw error;
    console.warn(`skipping: cannot mount a tmpfs here (${(error as Error).message.split('\n')[0]}); it needs root`);
    return null;
  }
}
afterAll(() => {
  for (const dir of mounts) {
    execFileSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

const emu = useTestEmulator();

function svc(args: string[], configDir: string, stdin?: string) {
  const [command, argv] = svcCommand(args);
  const home = join(tempConfigDir(), 'home');
  return spawnCollect(command, argv, {
    env: { PATH: svcPath(), HOME: home, SVC_CONFIG_DIR: configDir, SVC_CREDENTIAL_STORE: 'file', SVC_BASE_URL: emu().url },
    stdin,
  });
}

const full = mountTmpfs('size=1m,mode=0700');
const readOnly = full === null ? null : mountTmpfs('ro,size=64k,mode=0755');

describe.skipIf(full === null)('a full disk', () => {
  it('keys add says it in the one wording, with where to free space, and leaves no lock temp files', async () => {
    const { bavail, bsize } = statfsSync(full!);
    writeFileSync(join(full!, 'filler'), Buffer.alloc(bavail * bsize));
    const r = await svc(['keys', 'add', '--stdin'], full!, emu().seed.keys.test);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/error: cannot write \S+: the disk is full\n {2}free space on the disk that holds /);
    expect(r.stderr).not.toMatch(/ENOSPC|no space left/i);
    expect(readdirSync(full!).filter((name) => name.includes('.lock.'))).toEqual([]);
  });
});

describe.skipIf(readOnly === null)('a config folder on a read-only mount', () => {
  it('doctor says read-only, and offers SVC_CONFIG_DIR, not chmod', async () => {
    const r = await svc(['doctor'], readOnly!);
    expect(r.stdout + r.stderr).toContain(`cannot write the config folder ${readOnly}: it is on a read-only file system`);
    expect(r.stdout + r.stderr).toContain('SVC_CONFIG_DIR');
    expect(r.stdout + r.stderr).not.toContain('chmod');
  });
});
