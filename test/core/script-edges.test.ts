// What a CI script meets at the edges: each of these once printed something wrong or ended
// wrongly. `api --jq` on an error; `completion --jq`; a request timeout's code and the process
// ending when it is said; `calls list --all` when the service repeats its cursor; the
// launcher's own answers on a full disk; a lone surrogate in one message under --jq.
import { spawn, spawnSync } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';
import { recordingServer } from '../helpers/http-servers.js';

const emu = useTestEmulator();
const BIN = new URL('../../bin/svc.js', import.meta.url).pathname;
const KEY = 'svc_test_0123456789abcdef';

let closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers) close();
  closers = [];
});

const json = (res: import('node:http').ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

describe('svc api --jq', () => {
  it('an HTTP error body is not run through the filter: nothing on stdout, the error and its exit code', async () => {
    const env = { SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: emu().url };
    const r = await runCli(['api', 'GET', '/v1/calls/call_doesnotexist00', '--jq', '.id'], { env });
    expect(r.exitCode).toBe(5);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).error.code).toBe('not_found');
  });
});

describe('svc completion and --jq', () => {
  it('--jq is refused (a shell script is no JSON) and not offered in its completions', async () => {
    const r = await runCli(['completion', 'bash', '--jq', '.']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('svc completion prints no JSON: --jq does not apply to it');
    const script = (await runCli(['completion', 'bash'])).stdout;
    const line = script.split('\n').find((l) => l.includes("'completion')"))!;
    expect(line).toContain('--profile');
    expect(line).not.toMatch(/--jq|--json/);
  });
});

describe('a request that times out', () => {
  it('is network_failed, as the README says, and the process ends when it is said', async () => {
    // Accepts the connection and never answers.
    const sockets = new Set<Socket>();
    const server = createNetServer((socket) => void sockets.add(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => {
      for (const socket of sockets) socket.destroy();
      server.close();
    });
    const home = tempConfigDir();
    const child = spawn(process.execPath, [BIN, 'account', '--json'], {
      env: {
        PATH: process.env.PATH,
        HOME: home,
        SVC_CONFIG_DIR: home,
        SVC_API_KEY: KEY,
        SVC_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        SVC_HTTP_TIMEOUT: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let saidAt = 0;
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
      saidAt ||= Date.now();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const endedAt = Date.now();
    expect(code).toBe(9);
    expect(JSON.parse(stderr).error).toMatchObject({ code: 'network_failed', exit_code: 9 });
    // No probe of the server, nor anything else, held the process once the error was said.
    expect(endedAt - saidAt).toBeLessThan(1500);
  });
});

describe('calls list --all', () => {
  it('stops with an error when the service gives a cursor it gave before, having asked twice', async () => {
    const call = {
      object: 'call',
      id: 'call_000000000001',
      livemode: false,
      created_at: '2026-01-01T00:00:00Z',
      status: 'active',
      languages: ['en', 'es'],
      title: null,
      ended_at: null,
    };
    let close = () => {};
    const server = await recordingServer(
      (res) => json(res, 200, { object: 'list', data: [call], has_more: true, next_cursor: 'cur_same' }),
      (closer) => (close = closer),
    );
    closers.push(() => close());
    const r = await runCli(['calls', 'list', '--all', '--json'], { env: { SVC_API_KEY: KEY, SVC_BASE_URL: server.origin } });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr).error.message).toContain('the service gave the page cursor "cur_same" twice while listing (2 items read)');
    expect(server.requests).toHaveLength(2);
  });
});

describe("the launcher's own answers", () => {
  it('--version and completion on a full disk: a line on stderr and exit 1, no stack trace', () => {
    for (const argv of [['--version'], ['completion', 'bash']]) {
      const full = openSync('/dev/full', 'w');
      try {
        const r = spawnSync(process.execPath, [BIN, ...argv], { stdio: ['ignore', full, 'pipe'], encoding: 'utf8' });
        expect(r.status, argv.join(' ')).toBe(1);
        expect(r.stderr).toBe('error: cannot write the output: the disk is full\n');
      } finally {
        closeSync(full);
      }
    }
  });
});

describe('chats messages --jq and a lone surrogate', () => {
  it('one message holding half an emoji does not fail the others: it reads as U+FFFD', async () => {
    const message = (id: string, text: string) => ({
      object: 'message',
      id,
      livemode: false,
      created_at: '2026-01-01T00:00:00Z',
      chat_id: 'chat_000000000001',
      kind: 'text',
      text,
      language: 'en',
      translation: null,
      transcript: null,
    });
    let close = () => {};
    const server = await recordingServer(
      (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        // JSON.stringify writes the lone surrogate as the escape \ud83d.
        res.end(
          JSON.stringify({
            object: 'list',
            data: [message('msg_000000000001', 'fine'), message('msg_000000000002', 'half \ud83d')],
            has_more: false,
            next_cursor: null,
          }),
        );
      },
      (closer) => (close = closer),
    );
    closers.push(() => close());
    const env = { SVC_API_KEY: KEY, SVC_BASE_URL: server.origin };
    for (const filter of ['.[].text', '.[] | .text | length']) {
      const r = await runCli(['chats', 'messages', 'chat_000000000001', '--jq', filter], { env });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toBe(filter === '.[].text' ? 'fine\nhalf \ufffd\n' : '4\n6\n');
    }
  });
});
