// Stopping svc while the keychain is being asked (issue 44's keychain process): Ctrl-C at the
// terminal reaches svc's whole process group. The keychain process is in a group of its own,
// so the interruption is svc's to act on: it exits 130 and stores nothing, rather than reading
// its killed keychain process as a keychain failure and writing the secret to credentials.json.
// And whatever ends svc (Ctrl-C, SIGTERM, a closed terminal), its keychain process ends with it.
// Spawned bin/svc.js, a HOME that does not exist yet, a D-Bus socket that accepts and never answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempConfigDir } from '../helpers/cli.js';
import { testEmulator, type TestEmulator } from '../helpers/emulator.js';
import { svcCommand, svcPath } from '../helpers/spawn.js';

/** The keychain processes whose environment has this HOME (each test has its own). */
function keychainProcessesOf(home: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const env = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (command.includes('__keychain-child') && env.includes(`HOME=${home}`)) found.push(Number(entry));
    } catch {
      // Ended meanwhile, or not ours to read.
    }
  }
  return found;
}

/** Waits, within `ms`, for no keychain process of this HOME to be left; returns those left. */
async function keychainProcessesLeft(home: string, ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = keychainProcessesOf(home);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(process.platform !== 'linux')('svc stopped during a keychain write', () => {
  let emu: TestEmulator;
  let server: Server;
  const connections: Socket[] = [];
  let connected: () => void = () => {};
  let busPath: string;
  beforeAll(async () => {
    emu = await testEmulator();
    busPath = join(tempConfigDir(), 'bus');
    server = createServer((socket) => {
      connections.push(socket);
      connected();
    });
    await new Promise<void>((resolve) => server.listen(busPath, resolve));
  });
  afterAll(async () => {
    for (const socket of connections) socket.destroy();
    server?.close();
    await emu?.close();
  });

  /** `svc keys add --stdin` in a process group of its own (as a terminal's foreground job), stopped by `stop` once the keychain is asked. */
  async function keysAddStoppedBy(stop: (pid: number) => void) {
    const home = join(tempConfigDir(), 'home');
    const [program, argv] = svcCommand(['keys', 'add', '--stdin']);
    const env = { PATH: svcPath(), HOME: home, SVC_BASE_URL: emu.url, NO_COLOR: '1', DBUS_SESSION_BUS_ADDRESS: `unix:path=${busPath}` };
    const asked = new Promise<void>((resolve) => (connected = resolve));
    const child = spawn(program, argv, { env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('close', (code, signal) => resolve({ code, signal })),
    );
    child.stdin.end(emu.seed.keys.test + '\n');
    // The keychain process has connected to the bus: the write is under way.
    await asked;
    stop(child.pid!);
    const { code, signal } = await ended;
    return { home, code, signal, stdout, stderr, configDir: join(home, '.config', 'svc') };
  }

  it('Ctrl-C (SIGINT to the process group): exit 130, nothing stored in credentials.json, no "Added", no keychain process left', async () => {
    const run = await keysAddStoppedBy((pid) => process.kill(-pid, 'SIGINT'));
    expect(run.code, run.stderr).toBe(130);
    expect(run.stdout + run.stderr).not.toContain('Added');
    expect(run.stderr).not.toContain('keeps its secrets in a file');
    const credentials = join(run.configDir, 'credentials.json');
    if (existsSync(credentials)) expect(readFileSync(credentials, 'utf8')).not.toContain(emu.seed.keys.test);
    expect(await keychainProcessesLeft(run.home, 2_000)).toEqual([]);
  }, 30_000);

  it.each(['SIGTERM', 'SIGHUP'] as const)(
    '%s to svc alone: its keychain process does not outlive it',
    async (signal) => {
      const run = await keysAddStoppedBy((pid) => process.kill(pid, signal));
      expect(run.signal).toBe(signal);
      expect(await keychainProcessesLeft(run.home, 2_000)).toEqual([]);
    },
    30_000,
  );
});
