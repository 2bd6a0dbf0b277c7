// The context owns what one invocation opens (docs/design.md "Layout rules": no module-level
// mutable state): its HTTP pool is its own and closes with it, and the terminal questions
// (may we ask? progress? a spinner?) are answered by ctx.io alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createHttp } from '../../src/api/http.js';
import { createContext, type Runtime } from '../../src/cli/context.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import type { GlobalOptions } from '../../src/context.js';
import { createState } from '../../src/emulator/state.js';
import { advancingClock } from '../../src/emulator/clock.js';

let server: Server;
let url: string;
const sockets: Socket[] = [];
const closed: Socket[] = [];

beforeAll(async () => {
  server = createServer((_req, res) => res.end('ok'));
  server.on('connection', (socket) => {
    sockets.push(socket);
    socket.on('close', () => closed.push(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('createHttp owns its pool', () => {
  it('keeps one connection alive across requests, and close() ends it; a later fetch opens a new pool', async () => {
    sockets.length = 0;
    closed.length = 0;
    const http = createHttp({ env: {}, userAgent: 'svc/test' });
    expect(await (await http.fetch(url)).text()).toBe('ok');
    expect(await (await http.fetch(url)).text()).toBe('ok');
    expect(sockets).toHaveLength(1);
    const ended = new Promise((resolve) => sockets[0]!.once('close', resolve));
    await http.close();
    await ended;
    expect(closed).toEqual([sockets[0]]);
    expect(await (await http.fetch(url)).text()).toBe('ok');
    expect(sockets).toHaveLength(2);
    await http.close();
  });

  it("two transports share nothing: closing one leaves the other's connection open", async () => {
    sockets.length = 0;
    closed.length = 0;
    const a = createHttp({ env: {}, userAgent: 'svc/test' });
    const b = createHttp({ env: {}, userAgent: 'svc/test' });
    await (await a.fetch(url)).text();
    await (await b.fetch(url)).text();
    expect(sockets).toHaveLength(2);
    const ended = new Promise((resolve) => sockets[0]!.once('close', resolve));
    await a.close();
    await ended;
    // (an earlier test's socket may report its close late: only this test's count)
    expect(closed.filter((socket) => sockets.includes(socket))).toEqual([sockets[0]]);
    expect(sockets[1]!.destroyed).toBe(false);
    await b.close();
  });
});

const globals: GlobalOptions = { json: false, debug: false, color: true, yes: false };

function runtimeWith(tty: { stdin: boolean; stderr: boolean }, extra: Partial<Runtime> = {}): { runtime: Runtime; stderr: string[] } {
  const stderr: string[] = [];
  const runtime: Runtime = {
    env: { SVC_CONFIG_DIR: '/nonexistent-svc-test' },
    stdout: { write: () => {}, isTTY: false },
    stderr: { write: (chunk) => void stderr.push(chunk), isTTY: tty.stderr },
    stdin: { isTTY: tty.stdin, readAll: async () => '', async *lines() {} },
    clock: { now: () => 0, sleep: async () => {} },
    random: { bytes: (n) => new Uint8Array(n) },
    browser: { open: async () => {} },
    signal: new AbortController().signal,
    secrets: new MemorySecretStore(),
    ...extra,
  };
  return { runtime, stderr };
}

describe('ctx.io answers the terminal questions', () => {
  it('canPrompt: only with a terminal on both stdin and stderr', () => {
    expect(createContext(runtimeWith({ stdin: true, stderr: true }).runtime, globals, '0').io.canPrompt()).toBe(true);
    expect(createContext(runtimeWith({ stdin: false, stderr: true }).runtime, globals, '0').io.canPrompt()).toBe(false);
    expect(createContext(runtimeWith({ stdin: true, stderr: false }).runtime, globals, '0').io.canPrompt()).toBe(false);
  });

  it('progress: said on a terminal, silent when stderr is piped', () => {
    const onTty = runtimeWith({ stdin: false, stderr: true });
    createContext(onTty.runtime, globals, '0').io.progress('rate limited: waiting 2 s');
    expect(onTty.stderr).toEqual(['rate limited: waiting 2 s\n']);
    const piped = runtimeWith({ stdin: false, stderr: false });
    createContext(piped.runtime, globals, '0').io.progress('rate limited: waiting 2 s');
    expect(piped.stderr).toEqual([]);
  });

  it("spinner: the runtime's, on a terminal only, with the context's colour decision", async () => {
    const asked: Array<[string, boolean]> = [];
    const spinner = async (text: string, color: boolean) => {
      asked.push([text, color]);
      return { stop() {} };
    };
    await createContext(runtimeWith({ stdin: false, stderr: false }, { spinner }).runtime, globals, '0').io.spinner('fetching…');
    expect(asked).toEqual([]);
    await createContext(runtimeWith({ stdin: false, stderr: true }, { spinner }).runtime, globals, '0').io.spinner('fetching…');
    // Colour follows stdout, a pipe here.
    expect(asked).toEqual([['fetching…', false]]);
  });

  it('a runtime without a prompter cannot ask: a usage error, not a hang on the real terminal', async () => {
    const ctx = createContext(runtimeWith({ stdin: true, stderr: true }).runtime, globals, '0');
    await expect(ctx.prompter.confirm('continue?', ctx.signal)).rejects.toMatchObject({ exitCode: 2 });
  });
});

describe('emulator event times', () => {
  it("each state keeps its own last second: one state's clock never leaks into another's times", () => {
    const a = createState(advancingClock({ now: () => 1_700_000_000_500 }), 15_000, { seed: false });
    const b = createState(advancingClock({ now: () => 1_700_000_000_500 }), 15_000, { seed: false });
    expect(a.eventTime(1_700_000_000_500)).toBe('2023-11-14T22:13:20Z');
    expect(b.eventTime(1_700_000_001_000)).toBe('2023-11-14T22:13:21Z');
    expect(a.eventTime(1_700_000_000_900)).toBe('2023-11-14T22:13:20Z');
  });
});
