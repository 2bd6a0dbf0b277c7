// The process edge, spawned for real: bin/svc.js over the bundle in dist/. Exit codes, the stdout/stderr split, a closed pipe, Ctrl-C.
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useTestEmulator } from '../helpers/emulator.js';
import { svcBin as launcher } from '../helpers/spawn.js';

const emu = useTestEmulator({ startTimeoutMs: 60_000 });

const baseEnv = () => ({ PATH: process.env.PATH ?? '', HOME: mkdtempSync(join(tmpdir(), 'svc-home-')), SVC_CREDENTIAL_STORE: 'file' });
const svc = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [launcher, ...args], { env: { ...baseEnv(), ...env }, encoding: 'utf8' });
/** Without blocking the event loop: the emulator serving it lives in this process. */
const svcAsync = (args: string[], env: Record<string, string>, stdin = '') =>
  new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [launcher, ...args], { env: { ...baseEnv(), ...env } });
    child.stdin.end(stdin);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });

describe('spawned svc', () => {
  it('--version: stdout only, exit 0', () => {
    const r = svc(['--version']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect(r.stderr).toBe('');
  });

  it('no credential: nothing on stdout, the error on stderr, exit 3', () => {
    const r = svc(['account']);
    expect(r.status).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('svc keys add');
  });

  it('a usage error exits 2; a result goes to stdout', async () => {
    expect(svc(['calls', 'list', '--status', 'maybe']).status).toBe(2);
    const r = await svcAsync(['account', 'balance', '--json'], { SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: emu().url });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).object).toBe('balance');
  });

  it('a reader that closes the pipe early is a quiet success', () => {
    const r = spawnSync('sh', ['-c', `"${process.execPath}" "${launcher}" completion bash | head -n 1`], { env: baseEnv(), encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^# bash completion for svc/);
    expect(r.stderr).toBe('');
  });

  it('parallel processes adding keys to one config dir lose nothing (config.json and credentials.json locks)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-parallel-'));
    const profiles = Array.from({ length: 8 }, (_, i) => `p${i}`);
    const results = await Promise.all(
      profiles.map((p) => svcAsync(['keys', 'add', '--profile', p, '--base-url', emu().url], { SVC_CONFIG_DIR: dir }, emu().seed.keys.test)),
    );
    for (const r of results) expect(r.status, r.stderr).toBe(0);
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    expect(Object.keys(config.profiles).sort()).toEqual(profiles);
    const secrets = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')).secrets;
    expect(Object.keys(secrets).sort()).toEqual(profiles.map((p) => `${p}:test`));
  });

  /** Spawns `svc args…`, waits until its output matches `ready`, sends SIGINT, resolves with the exit code. */
  async function interruptWhenReady(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ code: number | null; output: string }> {
    const child = spawn(process.execPath, [launcher, ...args], { env: { ...baseEnv(), ...env } });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    await new Promise<void>((resolve, reject) => {
      const poll = setInterval(() => {
        if (ready.test(output)) {
          clearInterval(poll);
          resolve();
        }
      }, 50);
      child.once('exit', () => {
        clearInterval(poll);
        reject(new Error(`svc ${args.join(' ')} exited early: ${output}`));
      });
    });
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    return { code, output };
  }

  it('Ctrl-C (SIGINT) ends a running command with exit 130', async () => {
    const { code, output } = await interruptWhenReady(['events', 'tail'], { SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: emu().url }, /Tailing/);
    expect(code).toBe(130);
    expect(output).toMatch(/stopped: \d+ events?, \d+ reconnects?/);
  });

  it('Ctrl-C stops `svc emulator` with exit 0: that is how a server is meant to stop', async () => {
    const { code } = await interruptWhenReady(['emulator', '--port', '0'], {}, /127\.0\.0\.1:\d+/);
    expect(code).toBe(0);
  });
});
