// A stuck D-Bus never hangs svc (issue 44): DBUS_SESSION_BUS_ADDRESS names a unix socket that
// accepts and never answers (a stale address in an SSH or tmux session, a stopped
// gnome-keyring). @napi-rs/keyring blocks the thread that calls it there, so the bound of
// every keychain call (README, "Where secrets live": 3 s) holds only because the call runs in
// a process svc kills. Spawned bin/svc.js, a HOME that does not exist yet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server, type Socket } from 'node:net';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempConfigDir } from '../helpers/cli.js';
import { testEmulator, type TestEmulator } from '../helpers/emulator.js';
import { spawnCollect, svcCommand, svcPath } from '../helpers/spawn.js';
import { KeychainProcess } from '../../src/credentials/keychain-process.js';

/** A keychain process speaking bin/keychain-child.js's protocol: answers each get with its pid, or never answers. */
function fakeChild(answers: boolean): [string, string[]] {
  const script = `process.stdin.setEncoding('utf8');
let buffered = '';
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  for (let i = buffered.indexOf('\\n'); i >= 0; i = buffered.indexOf('\\n')) {
    const request = JSON.parse(buffered.slice(0, i));
    buffered = buffered.slice(i + 1);
    if (${answers}) process.stdout.write(JSON.stringify({ id: request.id, value: String(process.pid) }) + '\\n');
  }
});`;
  return [process.execPath, ['-e', script]];
}

describe('the keychain process', () => {
  it('one process serves every call of a command', async () => {
    const keychain = new KeychainProcess({}, fakeChild(true));
    const request = { op: 'get', service: 'svc', account: 'p:n', store: 'secret-service' } as const;
    const pids = [];
    for (let i = 0; i < 3; i++) pids.push(await keychain.call(request, new AbortController().signal));
    expect(new Set(pids).size).toBe(1);
    keychain.close();
  });

  it('a call abandoned at its bound kills the process; every later call of the command fails at once with the same cause', async () => {
    const keychain = new KeychainProcess({}, fakeChild(false));
    const request = { op: 'get', service: 'svc', account: 'p:n', store: 'secret-service' } as const;
    const bound = new AbortController();
    const first = keychain.call(request, bound.signal);
    bound.abort(new Error('the OS keychain did not answer within 3 s (read)'));
    await expect(first).rejects.toThrow('did not answer within 3 s');
    const started = Date.now();
    await expect(keychain.call(request, new AbortController().signal)).rejects.toThrow('did not answer within 3 s');
    expect(Date.now() - started).toBeLessThan(100);
  });
});

/** A socket that takes every connection and never says a word. */
function silentSocket(path: string): Promise<{ server: Server; connections: Socket[] }> {
  const connections: Socket[] = [];
  const server = createServer((socket) => void connections.push(socket));
  return new Promise((resolve) => server.listen(path, () => resolve({ server, connections })));
}

/** The bound, and what starting svc and the keychain process may add to it on a loaded machine. */
const BOUND_MS = 3_000;
const SLACK_MS = 4_000;

describe.skipIf(process.platform !== 'linux')('a D-Bus session bus that accepts and never answers', () => {
  let emu: TestEmulator;
  let bus: Awaited<ReturnType<typeof silentSocket>>;
  let busPath: string;
  beforeAll(async () => {
    emu = await testEmulator();
    busPath = join(tempConfigDir(), 'bus');
    bus = await silentSocket(busPath);
  });
  afterAll(async () => {
    for (const socket of bus?.connections ?? []) socket.destroy();
    bus?.server.close();
    await emu?.close();
  });

  async function svc(home: string, args: string[], stdin?: string) {
    const [program, argv] = svcCommand(args);
    const env = { PATH: svcPath(), HOME: home, SVC_BASE_URL: emu.url, NO_COLOR: '1', DBUS_SESSION_BUS_ADDRESS: `unix:path=${busPath}` };
    const started = Date.now();
    const result = await spawnCollect(program, argv, { env, ...(stdin === undefined ? {} : { stdin }) });
    return { ...result, ms: Date.now() - started };
  }

  it('keys add falls back to credentials.json within the bound, naming the cause, with nothing left in flight', async () => {
    const home = join(tempConfigDir(), 'home');
    const added = await svc(home, ['keys', 'add', '--stdin'], emu.seed.keys.test + '\n');
    expect(added.ms).toBeLessThan(BOUND_MS + SLACK_MS);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stderr).toMatch(/did not answer within 3 s/);
    expect(added.stderr).toContain(`why: the Secret Service on the D-Bus session bus "unix:path=${busPath}" did not answer within 3 s`);
    const configDir = join(home, '.config', 'svc');
    expect(readFileSync(join(configDir, 'credentials.json'), 'utf8')).toContain(emu.seed.keys.test);
    expect(JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).secrets_in_flight).toBeUndefined();
  }, 30_000);

  it('account (a key recorded in the keychain) and doctor end within the bound; account fails with keychain_failed, exit 1', async () => {
    const home = join(tempConfigDir(), 'home');
    const added = await svc(home, ['keys', 'add', '--stdin'], emu.seed.keys.test + '\n');
    expect(added.code, added.stderr).toBe(0);
    // As if the key had gone to the keychain on a day it answered.
    const configPath = join(home, '.config', 'svc', 'config.json');
    const config = JSON.parse(readFileSync(configPath, 'utf8'));
    config.profiles.default.keys.test.storage = 'keychain';
    writeFileSync(configPath, JSON.stringify(config));

    const [account, doctor] = await Promise.all([svc(home, ['--json', 'account']), svc(home, ['doctor'])]);
    expect(account.ms).toBeLessThan(BOUND_MS + SLACK_MS);
    expect(account.code).toBe(1);
    const error = JSON.parse(account.stderr).error;
    expect(error.code).toBe('keychain_failed');
    expect(error.message).toMatch(/did not answer within 3 s \(read; the Secret Service on the D-Bus session bus/);
    // (Doctor asks the keychain several times: only the first waits out the bound, the rest fail at once.)
    expect(doctor.ms).toBeLessThan(BOUND_MS + SLACK_MS);
    expect(doctor.stderr + doctor.stdout).toMatch(/did not answer within 3 s/);
    expect(existsSync(configPath)).toBe(true);
  }, 30_000);
});
