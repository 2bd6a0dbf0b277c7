// Nothing answered with 2xx is lost (issue 13): the built `svc emulator --state FILE` in a real
// process, killed with SIGKILL while clients are busy changing things, then restarted on the same
// file. Every change a client saw succeed is still there; every stored credential still works.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'svc-emu-kill-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** Starts the built emulator; answers its first stdout line (JSON) and the process. */
async function start(statePath: string): Promise<{ info: any; child: ChildProcess; stderr: () => string }> {
  const child = spawn(process.execPath, [bin, 'emulator', '--state', statePath, '--port', '0', '--json'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH ?? '', HOME: dir, SVC_CONFIG_DIR: join(dir, 'config'), NO_COLOR: '1' },
  });
  children.push(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const info = await new Promise<any>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const end = out.indexOf('\n');
      if (end >= 0) resolve(JSON.parse(out.slice(0, end)));
    });
    child.on('exit', (code) => reject(new Error(`svc emulator exited ${code}: ${stderr}`)));
  });
  return { info, child, stderr: () => stderr };
}

async function api(url: string, method: string, path: string, key?: string, json?: unknown): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (json !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url + path, { method, headers, body: json === undefined ? null : JSON.stringify(json) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

describe('svc emulator --state FILE under kill -9', () => {
  it('keeps every change a client saw succeed, and every key, across a SIGKILL at a busy moment', async () => {
    const statePath = join(dir, 'emulator-state.jsonl');
    const first = await start(statePath);
    expect(first.info.state).toEqual({ path: statePath, loaded: false });
    const { url, org_id, keys } = first.info;
    const acknowledged: string[] = [];
    let events = { first_id: '', last_id: '' };
    // Four writers create chats as fast as they can; a fifth publishes events. The kill lands
    // mid-flight, after a few hundred answers: whatever was answered 201 must survive.
    let stop = false;
    const writer = async () => {
      while (!stop) {
        try {
          const answer = await api(url, 'POST', '/v1/chats', keys.test, { language: 'en' });
          if (answer.status === 201) acknowledged.push(answer.body.id);
        } catch {
          return; // the connection died with the process
        }
      }
    };
    const publisher = (async () => {
      const answer = await api(url, 'POST', '/_emulator/events', undefined, { org_id, mode: 'test', type: 'call.started', count: 2000 });
      events = answer.body;
    })();
    const writers = Array.from({ length: 4 }, writer);
    await publisher;
    while (acknowledged.length < 200) await new Promise((r) => setTimeout(r, 5));
    first.child.kill('SIGKILL');
    stop = true;
    await Promise.all(writers);
    await new Promise((resolve) => (first.child.exitCode !== null || first.child.signalCode !== null ? resolve(null) : first.child.once('exit', resolve)));
    expect(first.child.signalCode).toBe('SIGKILL');

    const second = await start(statePath);
    try {
      expect(second.info.state).toMatchObject({ path: statePath, loaded: true, keys: 2 });
      expect(second.info.keys).toBeUndefined(); // loaded, not new: no key is printed
      const url2 = second.info.url;
      // The stored keys still work, on the same organization.
      expect((await api(url2, 'GET', '/v1/account', keys.test)).body.id).toBe(org_id);
      expect((await api(url2, 'GET', '/v1/account', keys.live)).status).toBe(200);
      // Every acknowledged chat is there.
      const kept = new Set<string>();
      let cursor: string | null = null;
      do {
        const page: { status: number; body: any } = await api(url2, 'GET', `/v1/chats?limit=100${cursor ? `&cursor=${cursor}` : ''}`, keys.test);
        for (const chat of page.body.data) kept.add(chat.id);
        cursor = page.body.next_cursor;
      } while (cursor);
      const lost = acknowledged.filter((id) => !kept.has(id));
      expect(lost).toEqual([]);
      // The events published before the kill are retained, up to the last one.
      const list = await api(url2, 'GET', '/v1/events?limit=1&type=call.started', keys.test);
      expect(list.body.data[0].id).toBe(events.last_id);
    } finally {
      second.child.kill('SIGINT');
      await new Promise((resolve) => second.child.once('exit', resolve));
    }
    expect(second.child.exitCode).toBe(0);
  }, 90_000);
});
