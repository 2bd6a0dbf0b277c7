// Version skew: every file svc writes names its format version. This svc reads the files an
// older one wrote (test/fixtures/formats/<version>/, written by that release: see the README
// there), and meets a file from a newer svc with an error naming both versions and what to do,
// leaving the file as it was.
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { root, spawnCollect, svcCommand, svcPath, type Spawned } from '../helpers/spawn.js';

const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const scratch = mkdtempSync(join(tmpdir(), 'svc-formats-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The release each fixture folder was written by, and what it holds. */
const SHIPPED = [{ release: '0.1.0', chat: 'chat_ASEWCxxYarrbUwEOTyxe', checkpoint: 'evt_0000000002' }];

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function svc(args: string[], env: Record<string, string>, stdin?: string): Promise<Spawned> {
  const [command, argv] = svcCommand(args);
  return spawnCollect(command, argv, { env: { PATH: svcPath(), NO_COLOR: '1', ...env }, ...(stdin === undefined ? {} : { stdin }) });
}

/** `svc emulator --port PORT --state FILE`, resolved once it listens. */
function emulator(port: number, state: string, env: Record<string, string>): Promise<{ stop(): Promise<void> }> {
  const [command, argv] = svcCommand(['emulator', '--port', String(port), '--state', state, '--json']);
  const child = spawn(command, argv, { env: { PATH: svcPath(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`the emulator exited (${code}): ${err}`)));
    child.stdout.once('data', () =>
      resolve({
        stop: () =>
          new Promise<void>((done) => {
            child.removeAllListeners('exit');
            child.once('exit', () => done());
            child.kill('SIGINT');
          }),
      }),
    );
  });
}

/** A copy of a release's fixtures, its profile pointed at `port` (the address is the only edit). */
function fixtures(release: string, port: number): { dir: string; env: Record<string, string> } {
  const dir = mkdtempSync(join(scratch, `${release}-`));
  cpSync(join(root, 'test/fixtures/formats', release), dir, { recursive: true });
  const config = join(dir, 'config/config.json');
  writeFileSync(config, readFileSync(config, 'utf8').replace(/http:\/\/127\.0\.0\.1:\d+/, `http://127.0.0.1:${port}`));
  const env = { HOME: join(dir, 'home'), SVC_CONFIG_DIR: join(dir, 'config'), SVC_CREDENTIAL_STORE: 'file', SVC_BASE_URL: `http://127.0.0.1:${port}` };
  return { dir, env };
}

describe.each(SHIPPED)('the files svc $release wrote', ({ release, chat, checkpoint }) => {
  it('are read by this svc: config.json and credentials.json (account), the emulator --state file (the chat), the --checkpoint (resumed after)', async () => {
    const port = await freePort();
    const { dir, env } = fixtures(release, port);
    const running = await emulator(port, join(dir, 'emulator-state.jsonl'), env);
    try {
      const account = await svc(['account', '--json'], env);
      expect(account.code, account.stderr).toBe(0);
      const found = await svc(['chats', 'get', chat, '--json'], env);
      expect(found.code, found.stderr).toBe(0);
      expect(JSON.parse(found.stdout)).toMatchObject({ id: chat, subject: `written by svc ${release}` });
      // The tail resumes right after the checkpoint's event: the next one is the chat started now.
      const tail = svc(['events', 'tail', '--checkpoint', join(dir, 'checkpoint.json'), '--max-events', '1', '--json'], env);
      const started = await svc(['chats', 'start', '--language', 'en', '--subject', 'now', '--json'], env);
      expect(started.code, started.stderr).toBe(0);
      const tailed = await tail;
      expect(tailed.code, tailed.stderr).toBe(0);
      expect(tailed.stderr).toContain(`resuming after ${checkpoint}`);
      expect(JSON.parse(tailed.stdout)).toMatchObject({ type: 'chat.started', data: { id: JSON.parse(started.stdout).id } });
      expect(JSON.parse(readFileSync(join(dir, 'checkpoint.json'), 'utf8'))).toMatchObject({ version: 1 });
    } finally {
      await running.stop();
    }
  }, 60_000);
});

describe('a file from a newer svc', () => {
  const newer = (what: string) =>
    new RegExp(
      `${what} \\S+ is in format version 7, written by a newer svc; this svc \\(${version.replace(/\./g, '\\.')}\\) reads format versions up to 1\\. It was left untouched[^]*which -a svc`,
    );

  /** The 0.1.0 fixtures with one file changed to say format 7, and that file's bytes. */
  function withNewer(file: string, change: (text: string) => string): { dir: string; env: Record<string, string>; path: string; bytes: string } {
    const { dir, env } = fixtures('0.1.0', 9);
    const path = join(dir, file);
    writeFileSync(path, change(readFileSync(path, 'utf8')));
    return { dir, env, path, bytes: readFileSync(path, 'utf8') };
  }

  it('config.json: refused by name, for a read and for a write, and left as it was', async () => {
    const { env, path, bytes } = withNewer('config/config.json', (text) => text.replace('"version": 1', '"version": 7'));
    for (const args of [
      ['account', '--json'],
      ['profiles', 'remove', 'default', '--yes'],
    ]) {
      const ran = await svc(args, env);
      expect(ran.code, ran.stderr).toBe(1);
      expect(ran.stderr).toMatch(newer('the config file'));
    }
    expect(readFileSync(path, 'utf8')).toBe(bytes);
  });

  it('credentials.json: refused by name, for a read and for a write, and left as it was', async () => {
    const { env, path, bytes } = withNewer('config/credentials.json', (text) => text.replace('"version": 1', '"version": 7'));
    const read = await svc(['account', '--json'], env);
    expect(read.code).toBe(1);
    expect(read.stderr).toMatch(newer('the credentials file'));
    const write = await svc(['keys', 'remove', 'ci'], env);
    expect(write.code).not.toBe(0);
    expect(write.stderr).toMatch(newer('the credentials file'));
    expect(readFileSync(path, 'utf8')).toBe(bytes);
  });

  it('a --checkpoint file: refused by name before any request, and left as it was', async () => {
    const { env, path, bytes } = withNewer('checkpoint.json', (text) => text.replace('{', '{"version":7,'));
    const ran = await svc(['events', 'tail', '--checkpoint', path, '--max-events', '1'], env);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(newer('the --checkpoint file'));
    expect(readFileSync(path, 'utf8')).toBe(bytes);
  });

  it.each([
    ['its own format', (text: string) => text.replace('{"svc_emulator_state":1,', '{"svc_emulator_state":7,')],
    ['its snapshot document', (text: string) => text.replace('"format":"svc-emulator-state","version":1,', '"format":"svc-emulator-state","version":7,')],
  ])("the emulator's --state file (%s): refused by name, and left as it was", async (_, change) => {
    const { env, path, bytes } = withNewer('emulator-state.jsonl', change);
    expect(bytes).toContain('7,');
    const ran = await svc(['emulator', '--port', '0', '--state', path], env);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(newer('the emulator state file'));
    expect(readFileSync(path, 'utf8')).toBe(bytes);
  });

  it('an exported emulator document given to --import: refused by name, and left as it was', async () => {
    const { dir, env } = fixtures('0.1.0', 9);
    const snapshot = (JSON.parse(readFileSync(join(dir, 'emulator-state.jsonl'), 'utf8').split('\n')[0]!) as { snapshot: object }).snapshot;
    const path = join(dir, 'export.json');
    writeFileSync(path, JSON.stringify({ ...snapshot, version: 7 }));
    const ran = await svc(['emulator', '--port', '0', '--import', path], env);
    expect(ran.code).toBe(2);
    expect(ran.stderr).toMatch(/format version 7, written by a newer svc; this svc reads format versions up to 1/);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ version: 7 });
  });
});
