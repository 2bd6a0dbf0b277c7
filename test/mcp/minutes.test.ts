// The cap covers every minute of a live call: svc mcp run in-process (its clock the emulator's,
// so moving the emulator's clock moves both), driven by the MCP SDK's own client. The ledger
// holds each live call's next minute before it begins; a minute the cap cannot cover is never
// begun: svc ends the call before it, tells the assistant (a log message) and the audit log.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LoggingMessageNotificationSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { execute } from '../../src/main.js';
import type { Runtime } from '../../src/cli/context.js';
import type { Clock } from '../../src/context.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { readAudit } from '../../src/mcp/audit.js';
import { useTestEmulator } from '../helpers/emulator.js';

const emulator = useTestEmulator();
let home: string;
let sessions: Array<{ client: Client; exited: Promise<number> }> = [];

beforeEach(async () => {
  await emulator().reset();
  home = mkdtempSync(join(tmpdir(), 'svc-mcp-minutes-'));
});

afterEach(async () => {
  for (const { client, exited } of sessions) {
    await client.close();
    await exited;
  }
  sessions = [];
});

/** svc's clock is the emulator's: a sleep ends when the emulator's clock (moved or not) reaches its end. */
function emulatorClock(): Clock {
  const clock = emulator().emulator.clock;
  return {
    now: () => clock.now(),
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        const until = clock.now() + ms;
        let timer: NodeJS.Timeout | undefined;
        const done = () => {
          clearTimeout(timer);
          unsubscribe();
          signal?.removeEventListener('abort', aborted);
        };
        const check = () => {
          const left = until - clock.now();
          if (left <= 0) return void (done(), resolve());
          clearTimeout(timer);
          timer = setTimeout(check, Math.min(left, 1_000));
        };
        const aborted = () => (done(), reject(signal!.reason));
        const unsubscribe = clock.onAdvance(check);
        signal?.addEventListener('abort', aborted, { once: true });
        if (signal?.aborted) return aborted();
        check();
      }),
  };
}

/** `svc mcp ARGS` in-process with the emulator's clock, and the SDK's client connected to its stdio. */
async function connect(args: string[]): Promise<{ client: Client; logged: string[]; stderr: () => string }> {
  const toServer: string[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  let stderr = '';
  let buffered = '';
  const transport: Transport = {
    start: async () => {},
    send: async (message: JSONRPCMessage) => {
      toServer.push(`${JSON.stringify(message)}\n`);
      wake?.();
    },
    close: async () => {
      ended = true;
      wake?.();
    },
  };
  const runtime: Runtime = {
    env: { HOME: home, SVC_CONFIG_DIR: join(home, 'svc'), SVC_API_KEY: emulator().seed.keys.live, SVC_BASE_URL: emulator().url },
    stdout: {
      isTTY: false,
      write(chunk) {
        buffered += chunk;
        for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
          transport.onmessage?.(JSON.parse(buffered.slice(0, newline)) as JSONRPCMessage);
          buffered = buffered.slice(newline + 1);
        }
      },
    },
    stderr: { isTTY: false, write: (chunk) => void (stderr += chunk) },
    stdin: {
      isTTY: false,
      readAll: async () => '',
      lines: async function* () {},
      async *chunks(signal) {
        signal?.addEventListener('abort', () => ((ended = true), wake?.()), { once: true });
        for (;;) {
          if (toServer.length > 0) yield toServer.shift()!;
          else if (ended) return;
          else await new Promise<void>((resolve) => (wake = resolve));
        }
      },
    },
    clock: emulatorClock(),
    random: { bytes: (n) => new Uint8Array(randomBytes(n)) },
    browser: { open: async () => {} },
    signal: new AbortController().signal,
    secrets: new MemorySecretStore(),
  };
  const exited = execute(['mcp', '--live', '--allow-write', ...args], runtime);
  const client = new Client({ name: 'svc-minutes', version: '1.0.0' });
  const logged: string[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (note) => void logged.push(String(note.params.data)));
  await client.connect(transport);
  sessions.push({ client, exited });
  return { client, logged, stderr: () => stderr };
}

type Result = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text?: string }> };
const call = (client: Client, name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args }) as Promise<Result>;

const live = () => ({ authorization: `Bearer ${emulator().seed.keys.live}` });
const balance = async () => ((await (await fetch(`${emulator().url}/v1/balance`, { headers: live() })).json()) as { available: number }).available;
const callOf = async (id: string) => (await (await fetch(`${emulator().url}/v1/calls/${id}`, { headers: live() })).json()) as Record<string, unknown>;

/** Moves both clocks, then lets svc act on what came due (bounded). */
async function advance(seconds: number, until?: () => Promise<boolean>): Promise<void> {
  await emulator().plane.advanceClock(seconds);
  for (let i = 0; until && i < 200 && !(await until()); i++) await new Promise((r) => setTimeout(r, 10));
}

describe('--max-spend covers every minute of a live call', () => {
  it('the second minute held from the start; a third the cap cannot cover is never begun: svc ends the call before it, tells the assistant and the audit log', async () => {
    const before = await balance();
    const { client, logged } = await connect(['--max-spend', '0.05']);
    const started = await call(client, 'calls_start', { languages: 'en,es' });
    expect(started.isError, started.content[0]?.text).toBeFalsy();
    const id = started.structuredContent.id as string;
    // The second minute begins, and is drawn; the cap ($0.05) has no room for a third ($0.06).
    await advance(61);
    expect(before - (await balance())).toBe(4);
    expect((await callOf(id)).status).toBe('active');
    await advance(56, async () => (await callOf(id)).status === 'ended');
    expect(await callOf(id)).toMatchObject({ status: 'ended', ended_reason: 'requested' });
    // Two minutes drawn, none past the cap; a fourth minute's time passes and nothing more is drawn.
    await advance(120);
    expect(before - (await balance())).toBe(4);
    for (let i = 0; i < 100 && logged.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(logged.join('\n')).toContain(`the call ${id} was ended: the session's cap (--max-spend) has no room for minute 3 of this call`);
    const end = readAudit(join(home, 'svc')).find((e) => e.tool === 'calls_end');
    expect(end).toMatchObject({ result: 'ok', args: { id, by: 'svc mcp' }, ids: [id] });
    expect(end!.args.why).toContain('no room for minute 3');
  });

  it('a cap with no room for even the second minute: the result says when svc will end the call, and only the first minute is drawn', async () => {
    const before = await balance();
    const { client } = await connect(['--max-spend', '0.03']);
    const started = await call(client, 'calls_start', { languages: 'en,es' });
    const id = started.structuredContent.id as string;
    expect(started.content).toHaveLength(1);
    expect(JSON.parse(started.content[0]!.text!)).toEqual(started.structuredContent);
    expect(started.structuredContent.note).toMatch(new RegExp(`svc mcp will end ${id} at .+, before that minute begins`));
    await advance(57, async () => (await callOf(id)).status === 'ended');
    expect((await callOf(id)).status).toBe('ended');
    await advance(120);
    expect(before - (await balance())).toBe(2);
  });

  it('a dialled phone holds its own next minute too: the cap counts both, and the call ends before a minute of either would pass it', async () => {
    const before = await balance();
    const { client } = await connect(['--max-spend', '0.12']);
    const id = (await call(client, 'calls_start', { languages: 'en,es' })).structuredContent.id as string;
    const dialled = await call(client, 'calls_dial', { id, to: '+14155550100' });
    expect(dialled.isError, dialled.content[0]?.text).toBeFalsy();
    // Drawn 2 + 3, held 2 + 3: 10 of 12 cents. At the first boundary the next minutes (5) do not fit.
    await advance(61);
    expect(before - (await balance())).toBe(10);
    await advance(56, async () => (await callOf(id)).status === 'ended');
    expect((await callOf(id)).status).toBe('ended');
    await advance(120);
    expect(before - (await balance())).toBe(10);
  });

  it('a call ended outside the session stops counting: svc reads the call at the next minute, says so, and the session has spent what was drawn', async () => {
    const before = await balance();
    const { client, logged } = await connect(['--max-spend', '1']);
    const id = (await call(client, 'calls_start', { languages: 'en,es' })).structuredContent.id as string;
    await fetch(`${emulator().url}/v1/calls/${id}/end`, { method: 'POST', headers: live() });
    await advance(61, async () => logged.some((l) => l.includes('outside')));
    await advance(240);
    expect(before - (await balance())).toBe(2);
    expect(logged.join('\n')).toContain(`the call ${id} was ended outside this session`);
    expect(logged.join('\n')).toContain('1 drawn; the session has spent $0.02 of $1.00');
    // The next billed call is priced against what was drawn: a call's first minute fits.
    expect((await call(client, 'calls_start', { languages: 'en,es' })).isError).toBeFalsy();
  });

  it('svc not running for 130 s (a suspended machine): the minutes the service drew meanwhile are counted and said, past the cap, and the call is ended', async () => {
    const before = await balance();
    const { client, logged } = await connect(['--max-spend', '0.04']);
    const id = (await call(client, 'calls_start', { languages: 'en,es' })).structuredContent.id as string;
    await advance(130, async () => (await callOf(id)).status === 'ended');
    expect((await callOf(id)).status).toBe('ended');
    expect(before - (await balance())).toBe(6);
    for (let i = 0; i < 100 && !logged.some((l) => l.includes('did not run')); i++) await new Promise((r) => setTimeout(r, 10));
    expect(logged.join('\n')).toMatch(
      /the service drew 2 minutes of the call call_\w+ meanwhile, where svc had held one; the session has spent \$0\.06 of \$0\.04/,
    );
  });

  it('a call the assistant ends releases its held minute: the cap has room for the next call', async () => {
    const { client } = await connect(['--max-spend', '0.04']);
    const first = (await call(client, 'calls_start', { languages: 'en,es' })).structuredContent.id as string;
    expect((await call(client, 'calls_end', { id: first })).isError).toBeFalsy();
    const second = await call(client, 'calls_start', { languages: 'en,es' });
    expect(second.isError, second.content[0]?.text).toBeFalsy();
  });
});
