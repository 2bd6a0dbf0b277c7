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
import { recordingServer } from '../helpers/http-servers.js';
import { root, spawnCollect, svcCommand, svcPath, type Spawned } from '../helpers/spawn.js';

const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const scratch = mkdtempSync(join(tmpdir(), 'svc-formats-'));
const closers: Array<() => void> = [];
afterAll(() => {
  for (const close of closers) close();
  rmSync(scratch, { recursive: true, force: true });
});

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

/** A service that answers every request with `{}` and records it: what a session of `svc mcp` reached. */
async function listener(): Promise<{ port: number; requests: Array<{ url: string }> }> {
  const server = await recordingServer(
    (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
    (close) => closers.push(close),
  );
  return { port: Number(new URL(server.origin).port), requests: server.requests };
}

/** `svc mcp` over stdio, given the whole conversation on stdin: it answers the call in flight before it exits. */
async function mcpCall(
  tool: string,
  args: Record<string, unknown>,
  env: Record<string, string>,
): Promise<{ error?: { code: string; message: string; hint?: string } }> {
  const messages = [
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } },
  ];
  const ran = await svc(['mcp'], env, messages.map((m) => `${JSON.stringify(m)}\n`).join(''));
  const answer = ran.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id?: number; result?: { structuredContent?: object } })
    .find((m) => m.id === 1);
  expect(answer?.result, ran.stderr).toBeDefined();
  return answer!.result!.structuredContent ?? {};
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

  it('a --dead-letter file: events replay sends its letters again (printed here)', async () => {
    const { dir, env } = fixtures(release, 9);
    const replayed = await svc(['events', 'replay', join(dir, 'dead-letter.ndjson'), '--no-wait', '--json'], env);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(JSON.parse(replayed.stdout)).toMatchObject({ type: 'chat.started', data: { subject: `written by svc ${release}` } });
  });

  it('the MCP audit log: svc mcp log shows its calls, --verify says they cannot be checked, and a session links its lines after them', async () => {
    const service = await listener();
    const { env } = fixtures(release, service.port);
    const shown = await svc(['mcp', 'log', '--json'], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect((JSON.parse(shown.stdout) as Array<{ tool: string; result: string }>).map((e) => [e.tool, e.result])).toEqual([
      ['account', 'ok'],
      ['chats_get', 'ok'],
    ]);
    const verified = await svc(['mcp', 'log', '--verify'], env);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toContain('the audit log is intact: 2 lines, each linked to the one before (the first 2, written by an earlier svc');
    expect(verified.stdout).toContain('are not checked');
    await mcpCall('account', {}, env);
    expect(service.requests.map((r) => r.url)).toContain('/v1/account');
    const after = await svc(['mcp', 'log', '--verify', '--json'], env);
    expect(after.code, after.stdout).toBe(0);
    expect(JSON.parse(after.stdout)).toEqual({ intact: true, lines: 4, unchained: 2, problems: [] });
  }, 60_000);
});

/** README's exit-code table: a file from a newer svc is exit 1, code format_newer, whichever file. */
const NEWER_EXIT = 1;

/** `args` again with --json: the one error object on stderr names format_newer and exit 1. */
async function expectFormatNewerJson(args: string[], env: Record<string, string>): Promise<void> {
  const ran = await svc([...args, '--json'], env);
  expect(ran.code, ran.stderr).toBe(NEWER_EXIT);
  expect(JSON.parse(ran.stderr.trim().split('\n').at(-1)!)).toMatchObject({ error: { code: 'format_newer', exit_code: NEWER_EXIT } });
}

describe('a file from a newer svc', () => {
  const newer = (what: string, newest = 1) =>
    new RegExp(
      `${what} \\S+ is in format version 7, written by a newer svc; this svc \\(${version.replace(/\./g, '\\.')}\\) reads format versions up to ${newest}\\. It was left untouched[^]*which -a svc`,
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
      expect(ran.code, ran.stderr).toBe(NEWER_EXIT);
      expect(ran.stderr).toMatch(newer('the config file'));
    }
    await expectFormatNewerJson(['account'], env);
    expect(readFileSync(path, 'utf8')).toBe(bytes);
  });

  it('credentials.json: refused by name, for a read and for a write, and left as it was', async () => {
    const { env, path, bytes } = withNewer('config/credentials.json', (text) => text.replace('"version": 1', '"version": 7'));
    const read = await svc(['account', '--json'], env);
    expect(read.code).toBe(NEWER_EXIT);
    expect(read.stderr).toMatch(newer('the credentials file'));
    await expectFormatNewerJson(['account'], env);
    const write = await svc(['keys', 'remove', 'ci', '--yes'], env);
    expect(write.code).not.toBe(0);
    expect(write.stderr).toMatch(newer('the credentials file'));
    expect(readFileSync(path, 'utf8')).toBe(bytes);
  });

  it('credentials.json: keys remove of a key kept there refuses before config.json changes, so later commands still work', async () => {
    const { dir, env, path, bytes } = withNewer('config/credentials.json', (text) => text.replace('"version": 1', '"version": 7'));
    const configPath = join(dir, 'config/config.json');
    const configBytes = readFileSync(configPath, 'utf8');
    const removed = await svc(['keys', 'remove', 'ci', '--yes'], env);
    expect(removed.code, removed.stderr).toBe(NEWER_EXIT);
    expect(removed.stderr).toMatch(newer('the credentials file'));
    expect(removed.stdout).toBe('');
    // Neither the key's metadata nor an announced delete was written.
    expect(readFileSync(configPath, 'utf8')).toBe(configBytes);
    expect(readFileSync(path, 'utf8')).toBe(bytes);
    const listed = await svc(['keys', 'list', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(listed.stdout))).toContain('"ci"');
  });

  it('a --checkpoint file: refused by name before any request, and left as it was', async () => {
    const { env, path, bytes } = withNewer('checkpoint.json', (text) => text.replace('{', '{"version":7,'));
    const ran = await svc(['events', 'tail', '--checkpoint', path, '--max-events', '1'], env);
    expect(ran.code, ran.stderr).toBe(NEWER_EXIT);
    expect(ran.stderr).toMatch(newer('the --checkpoint file'));
    await expectFormatNewerJson(['events', 'tail', '--checkpoint', path, '--max-events', '1'], env);
    expect(readFileSync(path, 'utf8')).toBe(bytes);
  });

  // The snapshot is an export document, which reads up to version 2 (the creates' Idempotency-Keys).
  it.each([
    ['its own format', (text: string) => text.replace('{"svc_emulator_state":1,', '{"svc_emulator_state":7,'), 1],
    ['its snapshot document', (text: string) => text.replace('"format":"svc-emulator-state","version":1,', '"format":"svc-emulator-state","version":7,'), 2],
  ])("the emulator's --state file (%s): refused by name, and left as it was", async (_, change, newest) => {
    const { env, path, bytes } = withNewer('emulator-state.jsonl', change);
    expect(bytes).toContain('7,');
    const ran = await svc(['emulator', '--port', '0', '--state', path], env);
    expect(ran.code, ran.stderr).toBe(NEWER_EXIT);
    expect(ran.stderr).toMatch(newer('the emulator state file', newest));
    await expectFormatNewerJson(['emulator', '--port', '0', '--state', path], env);
    expect(readFileSync(path, 'utf8')).toBe(bytes);
  });

  it('an exported emulator document given to --import: refused by name, and left as it was', async () => {
    const { dir, env } = fixtures('0.1.0', 9);
    const snapshot = (JSON.parse(readFileSync(join(dir, 'emulator-state.jsonl'), 'utf8').split('\n')[0]!) as { snapshot: object }).snapshot;
    const path = join(dir, 'export.json');
    writeFileSync(path, JSON.stringify({ ...snapshot, version: 7 }));
    const ran = await svc(['emulator', '--port', '0', '--import', path], env);
    expect(ran.code, ran.stderr).toBe(NEWER_EXIT);
    expect(ran.stderr).toMatch(newer('the --import document', 2));
    await expectFormatNewerJson(['emulator', '--port', '0', '--import', path], env);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ version: 7 });
  });

  it.each([
    ['after the lines svc wrote', (text: string, line: string) => `${text}${line}\n`],
    ['before them', (text: string, line: string) => `${line}\n${text}`],
  ])(
    'the MCP audit log with a line of format 7 %s: svc mcp log and --verify refuse by name, a session does nothing, the log and its head are left as they were',
    async (_, place) => {
      const service = await listener();
      const { env, dir } = fixtures('0.1.0', service.port);
      const path = join(dir, 'config/mcp-audit.ndjson');
      const line = JSON.stringify({ version: 7, prev: 'a'.repeat(64), session: 'later', call: 1, phase: 'intent', tool: 'account', mode: 'test' });
      writeFileSync(path, place(readFileSync(path, 'utf8'), line));
      const head = join(dir, 'config/mcp-audit.head');
      writeFileSync(head, `${'b'.repeat(64)}\n`);
      const bytes = [readFileSync(path, 'utf8'), readFileSync(head, 'utf8')];
      for (const args of [
        ['mcp', 'log'],
        ['mcp', 'log', '--verify'],
        ['mcp', 'log', '--json'],
      ]) {
        const ran = await svc(args, env);
        expect(ran.code, args.join(' ')).toBe(NEWER_EXIT);
        expect(ran.stdout).toBe('');
        expect(ran.stderr).toMatch(newer('the MCP audit log', 3));
      }
      await expectFormatNewerJson(['mcp', 'log'], env);
      const answer = await mcpCall('account', {}, env);
      expect(answer.error).toMatchObject({ code: 'audit_unwritable', message: expect.stringMatching(/^nothing was done/) });
      expect(answer.error!.message).toMatch(/format version 7, written by a newer svc/);
      expect(answer.error!.hint).toMatch(/which -a svc/);
      // The session reads the prices and takes its events position when it starts; the tool
      // itself sends nothing.
      expect(service.requests.filter((r) => !/^\/v1\/(prices|events)(\?|$)/.test(r.url))).toEqual([]);
      expect([readFileSync(path, 'utf8'), readFileSync(head, 'utf8')]).toEqual(bytes);
    },
    60_000,
  );

  it('a --dead-letter file with a letter of format 7: events replay neither replays it nor appends to it, events tail does not start, and it is left as it was', async () => {
    // svc 0.1.0's letter, then one from a newer svc.
    const { dir, env, path, bytes } = withNewer('dead-letter.ndjson', (text) => `${text}${JSON.stringify({ version: 7, ...JSON.parse(text) })}\n`);
    const record = join(dir, 'events.ndjson');
    writeFileSync(record, `${JSON.stringify((JSON.parse(bytes.split('\n')[0]!) as { event: object }).event)}\n`);
    const forward = ['--forward-to', 'http://127.0.0.1:9/hooks', '--dead-letter', path];
    for (const args of [
      ['events', 'replay', path, '--no-wait'],
      ['events', 'replay', record, '--no-wait', ...forward],
      ['events', 'tail', ...forward],
    ]) {
      const ran = await svc(args, env);
      expect(ran.code, args.join(' ')).toBe(NEWER_EXIT);
      expect(ran.stderr).toMatch(newer('the dead-letter file'));
      await expectFormatNewerJson(args, env);
    }
    expect(readFileSync(path, 'utf8')).toBe(bytes);
  });
});
