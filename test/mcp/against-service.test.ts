// `svc mcp log --verify --against-service`: the log's acts checked against what the service
// itself made in each session's window, which whoever edits the log cannot change. An intact
// log accounts for everything; a log deleted whole is caught with --since; a line removed
// from the acts is caught; something made beside svc mcp is named. The built svc, a fresh
// HOME, the emulator, sessions through the official SDK client.
import { rmSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { callTool as call, useMcpSuite } from '../helpers/mcp.js';
import { spawnCollect, svcCommand } from '../helpers/spawn.js';

const { emulator, svcDir, envFor, connect } = useMcpSuite({ tmpPrefix: 'svc-mcp-against-' });
const liveKey = () => emulator().seed.keys.live;

async function verify(...flags: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [command, args] = svcCommand(['mcp', 'log', '--verify', '--against-service', ...flags]);
  return spawnCollect(command, args, { env: envFor(liveKey()) });
}

async function session(): Promise<string> {
  const { client } = await connect(['--live', '--allow-write', '--max-spend', '1'], { env: envFor(liveKey()) });
  expect((await call(client, 'translate', { text: 'Thanks for calling', to: 'es' })).isError).toBeFalsy();
  const started = await call(client, 'calls_start', { languages: 'en,es' });
  const id = started.structuredContent.id as string;
  expect((await call(client, 'calls_end', { id })).isError).toBeFalsy();
  await client.close();
  return id;
}

describe('the log checked against the service', () => {
  it('an intact log accounts for everything the service made in its session', async () => {
    await session();
    const checked = await verify();
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
    expect(checked.stdout).toMatch(/against the service \(live mode, .*\): 2 things made, each accounted for by the log/);
  });

  it('the log deleted whole: without --since it says to name the window; with it, what the service made is named, exit 1', async () => {
    const id = await session();
    for (const file of readdirSync(svcDir())) if (file.startsWith('mcp-')) rmSync(join(svcDir(), file), { recursive: true });
    const unnamed = await verify();
    expect(unnamed.code).toBe(2);
    expect(unnamed.stderr).toContain('--since');
    const checked = await verify('--since', '1h', '--json');
    expect(checked.code).toBe(1);
    const report = JSON.parse(checked.stdout);
    expect(report.service.unaccounted).toEqual(
      expect.arrayContaining([expect.stringContaining(`call.started ${id}`), expect.stringContaining('translation.created')]),
    );
    expect(checked.stderr).toContain('no line of the log accounts for');
  });

  it('a call made beside svc mcp in the session window is named', async () => {
    const { client } = await connect(['--live', '--allow-write', '--max-spend', '1'], { env: envFor(liveKey()) });
    expect((await call(client, 'translate', { text: 'hello', to: 'es' })).isError).toBeFalsy();
    const beside = await fetch(`${emulator().url}/v1/calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${liveKey()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ languages: ['en', 'fr'] }),
    }).then((r) => r.json() as Promise<{ id: string }>);
    await client.close();
    const checked = await verify();
    expect(checked.code).toBe(1);
    expect(checked.stdout).toContain(`call.started ${beside.id}`);
    expect(checked.stdout).not.toContain('translation.created');
  });

  it("past the events' retention, the lists still name what was made: a chat and its message made beside svc mcp", async () => {
    const callId = await session();
    const post = (path: string, body: object) =>
      fetch(`${emulator().url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${liveKey()}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<{ id: string }>);
    const chat = await post('/v1/chats', { language: 'es' });
    const message = await post(`/v1/chats/${chat.id}/messages`, { text: 'hola' });
    // More events than the service keeps, and than svc reads: what the session made is no longer among them.
    const flood = await fetch(`${emulator().url}/_emulator/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ org_id: emulator().seed.org_id, mode: 'live', type: 'balance.updated', count: 10_500 }),
    });
    expect(flood.status).toBe(201);
    const checked = await verify('--json');
    expect(checked.code, checked.stderr).toBe(1);
    const report = JSON.parse(checked.stdout);
    expect(report.service.unaccounted).toHaveLength(2);
    expect(report.service.unaccounted).toEqual(
      expect.arrayContaining([expect.stringContaining(`chat.message.created ${message.id}`), expect.stringContaining(`chat.started ${chat.id}`)]),
    );
    // The session's own call is found in the calls list and accounted for by its acts.
    expect(JSON.stringify(report.service.unseen)).not.toContain(callId);
  }, 60_000);
});
