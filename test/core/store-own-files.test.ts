// Whatever is at credentials.json or a lock's place, svc refuses it unread with its path
// (docs/design.md "Credentials", issue 24): a FIFO does not hang it, a link to /dev/zero is not
// read without limit, a link to another file leaves that file's mode as it was, and an
// oversized file is not read. The FIFO case runs bin/svc.js, with a timeout that catches a hang.
import { describe, expect, it } from 'vitest';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';
import { root, type Spawned } from '../helpers/spawn.js';
import { failingKeychain } from '../helpers/keychains.js';

const emu = useTestEmulator({ startTimeoutMs: 120_000 });

/** `svc keys add` with SVC_CREDENTIAL_STORE=file: reads credentials.json before writing it. */
const addKey = (configDir: string) =>
  runCli(['keys', 'add', '--base-url', emu().url], {
    configDir,
    keychain: failingKeychain(),
    env: { SVC_CREDENTIAL_STORE: 'file' },
    stdin: emu().seed.keys.test,
  });

/** bin/svc.js in a process of its own, killed if it has not ended within `limitMs` (a hang). */
function spawnSvc(args: string[], env: Record<string, string>, stdin: string, limitMs: number): Promise<Spawned & { killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'bin/svc.js'), ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
    let stdout = '';
    let stderr = '';
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, limitMs);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, killed });
    });
    child.stdin.end(stdin);
  });
}

describe('odd files at credentials.json', () => {
  it('a FIFO: bin/svc.js refuses it with its path and exit 1, instead of hanging', async () => {
    const configDir = tempConfigDir();
    mkdirSync(configDir, { recursive: true });
    const path = join(configDir, 'credentials.json');
    execFileSync('mkfifo', [path]);
    const r = await spawnSvc(
      ['keys', 'add', '--base-url', emu().url],
      { SVC_CONFIG_DIR: configDir, SVC_CREDENTIAL_STORE: 'file', HOME: configDir },
      emu().seed.keys.test,
      20_000,
    );
    expect(r.killed).toBe(false);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${path} is a FIFO, not a regular file`);
    expect(statSync(path).isFIFO()).toBe(true);
  }, 30_000);

  it('a link to /dev/zero: refused with its path, nothing read', async () => {
    const configDir = tempConfigDir();
    mkdirSync(configDir, { recursive: true });
    const path = join(configDir, 'credentials.json');
    symlinkSync('/dev/zero', path);
    const r = await addKey(configDir);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`${path} is a symbolic link`);
  });

  it('a link to a file of mode 0644: refused, and the file it points to keeps its mode and content', async () => {
    const configDir = tempConfigDir();
    mkdirSync(configDir, { recursive: true });
    const elsewhere = join(mkdtempSync(join(tmpdir(), 'svc-elsewhere-')), 'notes.json');
    writeFileSync(elsewhere, '{"version":1,"secrets":{}}\n');
    chmodSync(elsewhere, 0o644);
    const path = join(configDir, 'credentials.json');
    symlinkSync(elsewhere, path);
    const r = await addKey(configDir);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`${path} is a symbolic link`);
    expect(statSync(elsewhere).mode & 0o777).toBe(0o644);
    expect(readFileSync(elsewhere, 'utf8')).toBe('{"version":1,"secrets":{}}\n');
  });

  it('a 2 MiB file: refused with its path, left as it was', async () => {
    const configDir = tempConfigDir();
    mkdirSync(configDir, { recursive: true });
    const path = join(configDir, 'credentials.json');
    writeFileSync(path, Buffer.alloc(2 * 1024 * 1024, 0x20), { mode: 0o600 });
    const r = await addKey(configDir);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`${path} is larger than 1024 KiB`);
    expect(statSync(path).size).toBe(2 * 1024 * 1024);
  });

  it('a regular credentials.json of mode 0644 is tightened to 0600 on the file itself, and said', async () => {
    const configDir = tempConfigDir();
    mkdirSync(configDir, { recursive: true });
    const path = join(configDir, 'credentials.json');
    writeFileSync(path, '{"version":1,"secrets":{}}\n');
    chmodSync(path, 0o644);
    const r = await addKey(configDir);
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain(`${path} was open to others (mode 0644); svc set it to 0600`);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});

describe('odd files at a lock’s place', () => {
  it('a FIFO at config.json.lock: refused with its path and exit 1, no hang', async () => {
    const configDir = tempConfigDir();
    mkdirSync(configDir, { recursive: true });
    const lock = join(configDir, 'config.json.lock');
    execFileSync('mkfifo', [lock]);
    const r = await addKey(configDir);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`${lock} is a FIFO, not a regular file`);
  });

  it('a link to /dev/zero at credentials.json.lock: refused with its path, nothing read', async () => {
    const configDir = tempConfigDir();
    mkdirSync(configDir, { recursive: true });
    const lock = join(configDir, 'credentials.json.lock');
    symlinkSync('/dev/zero', lock);
    const r = await addKey(configDir);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`${lock} is a symbolic link`);
  });
});
