import { beforeEach, describe, expect, it } from 'vitest';
import { advancingClock } from '../../src/emulator/clock.js';
import { createApp } from '../../src/emulator/server.js';
import { createState } from '../../src/emulator/state.js';
import { call, login, openStream, resetSeed, useEmulator } from './helpers.js';

const emulator = useEmulator({ keepaliveMs: 100 });

describe('events: list and live stream', () => {
  beforeEach(async () => {
    await resetSeed(emulator());
  });

  it('every state change publishes its event with livemode; the list filters by type prefix', async () => {
    const emu = emulator();
    const key = emu.seed.keys.test;
    const made = (await call(emu, 'POST', '/v1/calls', { key, json: { languages: ['en', 'es'] } })).body;
    await call(emu, 'POST', `/v1/calls/${made.id}/end`, { key });
    const chat = (await call(emu, 'POST', '/v1/chats', { key, json: { language: 'en' } })).body;
    await call(emu, 'POST', `/v1/chats/${chat.id}/messages`, { key, json: { text: 'hi' } });
    await call(emu, 'POST', `/v1/chats/${chat.id}/close`, { key });
    await call(emu, 'POST', '/v1/translate', { key, json: { text: 'hi', to: 'de' } });
    await call(emu, 'POST', '/v1/links', { key, json: {} });
    const line = (await call(emu, 'POST', '/v1/lines', { key, json: { country: 'GB' } })).body;
    await call(emu, 'DELETE', `/v1/lines/${line.id}`, { key });
    const all = (await call(emu, 'GET', '/v1/events?limit=100', { key })).body;
    expect(all.data.map((e: any) => e.type)).toEqual([
      'line.released',
      'line.created',
      'link.created',
      'translation.created',
      'chat.closed',
      'chat.message.created',
      'chat.started',
      'call.ended',
      'call.started',
    ]);
    for (const event of all.data) {
      expect(event).toMatchObject({ object: 'event', livemode: false });
      expect(event.id).toMatch(/^evt_/);
    }
    for (const filter of ['type=call', 'type=call.*']) {
      expect((await call(emu, 'GET', `/v1/events?${filter}`, { key })).body.data.map((e: any) => e.type)).toEqual(['call.ended', 'call.started']);
    }
    expect((await call(emu, 'GET', '/v1/events?type=*&limit=100', { key })).body.data).toHaveLength(9);
    const two = (await call(emu, 'GET', '/v1/events?type=chat.closed&type=line.created', { key })).body.data.map((e: any) => e.type);
    expect(two).toEqual(['line.created', 'chat.closed']);
    const page1 = (await call(emu, 'GET', '/v1/events?limit=4', { key })).body;
    const page2 = (await call(emu, 'GET', `/v1/events?limit=100&cursor=${page1.next_cursor}`, { key })).body;
    expect([...page1.data, ...page2.data].map((e: any) => e.id)).toEqual(all.data.map((e: any) => e.id));
  });

  it('the stream sends id/event/data frames, keepalive comments, and filters by type', async () => {
    const emu = emulator();
    const key = emu.seed.keys.test;
    const stream = await openStream(`${emu.url}/v1/events/stream?type=chat`, key);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await call(emu, 'POST', '/v1/calls', { key, json: { languages: ['en', 'es'] } });
    const chat = (await call(emu, 'POST', '/v1/chats', { key, json: { language: 'en' } })).body;
    await stream.waitFor(() => stream.messages.length === 1 && stream.comments.includes('keepalive'));
    const [message] = stream.messages;
    expect(message!.event).toBe('chat.started');
    expect(message!.data).not.toContain('\n');
    const event = JSON.parse(message!.data);
    expect(event).toMatchObject({ object: 'event', type: 'chat.started', livemode: false, data: { id: chat.id } });
    expect(message!.id).toBe(event.id);
    expect((await call(emu, 'GET', '/_emulator/stats')).body.open_streams).toBe(1);
    stream.close();
  });

  it('a test credential never receives live events on the stream', async () => {
    const emu = emulator();
    const stream = await openStream(`${emu.url}/v1/events/stream`, emu.seed.keys.test);
    await call(emu, 'POST', '/v1/calls', { key: emu.seed.keys.live, json: { languages: ['en', 'es'] } });
    await call(emu, 'POST', '/v1/chats', { key: emu.seed.keys.test, json: { language: 'en' } });
    await stream.waitFor(() => stream.messages.length >= 1);
    expect(stream.messages.map((m) => m.event)).toEqual(['chat.started']);
    stream.close();
  });

  it('resumes with Last-Event-ID over thousands of events with no gap and no repeat, across a drop', async () => {
    const emu = emulator();
    const key = emu.seed.keys.live;
    const stream = await openStream(`${emu.url}/v1/events/stream`, key);
    const published = await call(emu, 'POST', '/_emulator/events', { json: { org_id: emu.seed.org_id, mode: 'live', type: 'call.started', count: 3000 } });
    expect(published.status).toBe(201);
    await stream.waitFor(() => stream.messages.length >= 1000);
    // Cut every stream mid-flight, then publish more while the client is away.
    expect((await call(emu, 'POST', '/_emulator/streams/drop')).body.dropped).toBe(1);
    await stream.ended;
    const received = stream.messages.length;
    expect(received).toBeGreaterThanOrEqual(1000);
    await call(emu, 'POST', '/_emulator/events', { json: { org_id: emu.seed.org_id, mode: 'live', type: 'call.ended', count: 2000 } });
    const lastId = stream.messages[received - 1]!.id!;
    const resumed = await openStream(`${emu.url}/v1/events/stream`, key, { 'last-event-id': lastId });
    await call(emu, 'POST', '/_emulator/events', { json: { org_id: emu.seed.org_id, mode: 'live', type: 'call.ended', count: 500 } });
    await resumed.waitFor(() => received + resumed.messages.length >= 5500);
    const all = [...stream.messages, ...resumed.messages].map((m) => JSON.parse(m.data));
    expect(all).toHaveLength(5500);
    expect(new Set(all.map((e) => e.id)).size).toBe(5500);
    const counts = all.map((e) => `${e.type}:${e.data.n}`);
    expect(counts.slice(0, 3000)).toEqual(Array.from({ length: 3000 }, (_, i) => `call.started:${i + 1}`));
    expect(counts.slice(3000, 5000)).toEqual(Array.from({ length: 2000 }, (_, i) => `call.ended:${i + 1}`));
    resumed.close();
  });

  it('a stream ends when its key is revoked, its OAuth token expires, is revoked or is replaced by a refresh', async () => {
    const emu = emulator();
    const made = (await call(emu, 'POST', `/_emulator/orgs/${emu.seed.org_id}/keys`, { json: { mode: 'test' } })).body;
    const byKey = await openStream(`${emu.url}/v1/events/stream`, made.key);
    await call(emu, 'DELETE', `/_emulator/orgs/${emu.seed.org_id}/keys/${made.id}`);
    await byKey.ended;
    const tokens = await login(emu);
    const byToken = await openStream(`${emu.url}/v1/events/stream`, tokens.access_token);
    await call(emu, 'POST', '/_emulator/clock', { json: { advance_seconds: 3601 } });
    await byToken.ended;
    const revokedLater = await login(emu);
    const byRevoked = await openStream(`${emu.url}/v1/events/stream`, revokedLater.access_token);
    await call(emu, 'POST', '/oauth2/revoke', {
      body: `token=${revokedLater.refresh_token}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    await byRevoked.ended;
    const refreshedLater = await login(emu);
    const byRefreshed = await openStream(`${emu.url}/v1/events/stream`, refreshedLater.access_token);
    const refreshed = await call(emu, 'POST', '/oauth2/token', {
      body: `grant_type=refresh_token&client_id=svc_app_cli&refresh_token=${refreshedLater.refresh_token}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(refreshed.status).toBe(200);
    await byRefreshed.ended;
    expect((await call(emu, 'GET', '/_emulator/stats')).body.open_streams).toBe(0);
  });

  it('a bad Last-Event-ID is 422 and the stream needs events:read', async () => {
    const emu = emulator();
    const bad = await call(emu, 'GET', '/v1/events/stream', { key: emu.seed.keys.test, headers: { 'last-event-id': 'nonsense' } });
    expect(bad.status).toBe(422);
    const made = (await call(emu, 'POST', `/_emulator/orgs/${emu.seed.org_id}/keys`, { json: { mode: 'test', scopes: ['calls:read'] } })).body;
    expect((await call(emu, 'GET', '/v1/events/stream', { key: made.key })).body).toEqual({ detail: 'this key or app lacks the events:read scope' });
  });

  it("the chat stream sends the chat's new messages as event: message", async () => {
    const emu = emulator();
    const key = emu.seed.keys.test;
    const chat = (await call(emu, 'POST', '/v1/chats', { key, json: { language: 'en' } })).body;
    const other = (await call(emu, 'POST', '/v1/chats', { key, json: { language: 'en' } })).body;
    const stream = await openStream(`${emu.url}/v1/chats/${chat.id}/stream`, key);
    await call(emu, 'POST', `/v1/chats/${other.id}/messages`, { key, json: { text: 'elsewhere' } });
    const posted = (await call(emu, 'POST', `/v1/chats/${chat.id}/messages`, { key, json: { text: 'hello' } })).body;
    await stream.waitFor(() => stream.messages.length === 1);
    expect(stream.messages[0]!.event).toBe('message');
    expect(JSON.parse(stream.messages[0]!.data)).toEqual(posted);
    await call(emu, 'POST', `/v1/chats/${chat.id}/close`, { key });
    await stream.ended;
  });

  it('the stream of an already closed chat ends at once, empty', async () => {
    const emu = emulator();
    const key = emu.seed.keys.test;
    const chat = (await call(emu, 'POST', '/v1/chats', { key, json: { language: 'en' } })).body;
    await call(emu, 'POST', `/v1/chats/${chat.id}/close`, { key });
    const stream = await openStream(`${emu.url}/v1/chats/${chat.id}/stream`, key);
    await stream.ended;
    expect(stream.messages).toEqual([]);
  });

  it('a stream the client closes is forgotten by the emulator', async () => {
    const emu = emulator();
    const stream = await openStream(`${emu.url}/v1/events/stream`, emu.seed.keys.test);
    expect((await call(emu, 'GET', '/_emulator/stats')).body.open_streams).toBe(1);
    stream.close();
    for (let i = 0; i < 200 && emu.state.subscribers.size > 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await call(emu, 'GET', '/_emulator/stats')).body.open_streams).toBe(0);
  });

  it('retains the last 10,000 events per organization and mode', async () => {
    const emu = emulator();
    const key = emu.seed.keys.test;
    const published = (await call(emu, 'POST', '/_emulator/events', { json: { org_id: emu.seed.org_id, mode: 'test', type: 'chat.started', count: 10_500 } }))
      .body;
    // Resuming from the very first id: it and the 499 after it fell out of retention, so the stream
    // says so with one gap frame (no id) before the 10,000 it still has.
    const resumed = await openStream(`${emu.url}/v1/events/stream`, key, { 'last-event-id': published.first_id });
    await resumed.waitFor(() => resumed.messages.at(-1)?.id === published.last_id);
    // A marker published last: once it arrived, anything more replayed would have arrived before it.
    const marker = (await call(emu, 'POST', '/_emulator/events', { json: { org_id: emu.seed.org_id, mode: 'test', type: 'chat.started', count: 1 } })).body;
    await resumed.waitFor(() => resumed.messages.some((m) => m.id === marker.last_id));
    const [gap, ...events] = resumed.messages;
    expect(gap!.event).toBe('gap');
    expect(gap!.id).toBeUndefined();
    expect(events).toHaveLength(10_001);
    expect(JSON.parse(gap!.data)).toEqual({ last_event_id: published.first_id, resumed_from: events[0]!.id });
    expect(JSON.parse(events[0]!.data).data.n).toBe(501);
    expect(events[9_999]!.id).toBe(published.last_id);
    resumed.close();
    // The live key's log is another one: nothing there.
    expect((await call(emu, 'GET', '/v1/events', { key: emu.seed.keys.live })).body.data).toEqual([]);
  });

  it('with an injected clock, a stream ends at the next keepalive once its token has expired', async () => {
    const { startEmulator } = await import('../../src/emulator/index.js');
    let now = Date.UTC(2030, 0, 1);
    const own = await startEmulator({ port: 0, clock: { now: () => now }, keepaliveMs: 50 });
    try {
      const tokens = await login(own);
      const stream = await openStream(`${own.url}/v1/events/stream`, tokens.access_token);
      await stream.waitFor(() => stream.comments.includes('keepalive'));
      now += 3600 * 1000;
      await stream.ended;
      expect((await call(own, 'GET', '/v1/account', { key: tokens.access_token })).status).toBe(401);
    } finally {
      await own.close();
    }
  });

  it('a stream ends when its access token expires on the emulator clock, without waiting for a keepalive', async () => {
    const { startEmulator } = await import('../../src/emulator/index.js');
    // Keepalives once a minute: only the expiry timer can end these streams within the test's time.
    const own = await startEmulator({ port: 0, keepaliveMs: 60_000 });
    try {
      // Opened before the clock moves: the advance re-arms the timer to the ~1 s left.
      const early = await login(own);
      const before = await openStream(`${own.url}/v1/events/stream`, early.access_token);
      // Opened after: the timer is armed for the ~1 s left at once.
      const late = await login(own);
      await call(own, 'POST', '/_emulator/clock', { json: { advance_seconds: 3599 } });
      const after = await openStream(`${own.url}/v1/events/stream`, late.access_token);
      const chat = (await call(own, 'POST', '/v1/chats', { key: late.access_token, json: { language: 'en' } })).body;
      const chatStream = await openStream(`${own.url}/v1/chats/${chat.id}/stream`, late.access_token);
      expect([before.status, after.status, chatStream.status]).toEqual([200, 200, 200]);
      // Bounded well below the first keepalive (60 s), and no keepalive was sent: only the expiry timer ended them.
      const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 15_000).unref());
      const ended = await Promise.race([Promise.all([before.ended, after.ended, chatStream.ended]).then(() => 'ended' as const), timeout]);
      expect(ended).toBe('ended');
      expect(before.comments).toEqual([]);
      expect(after.comments).toEqual([]);
      expect((await call(own, 'GET', '/v1/account', { key: late.access_token })).status).toBe(401);
      expect(own.state.subscribers.size).toBe(0);
    } finally {
      await own.close();
    }
  });

  it('close() ends open streams and resolves promptly', async () => {
    const { startEmulator } = await import('../../src/emulator/index.js');
    const own = await startEmulator({ port: 0 });
    const stream = await openStream(`${own.url}/v1/events/stream`, own.seed.keys.test);
    await own.close();
    await stream.ended;
    expect(own.state.subscribers.size).toBe(0);
  });
});

describe('events stream under app.request() (no Node response to write to)', () => {
  it('is a ReadableStream of the same frames, with the middleware headers, and ends when dropped', async () => {
    const state = createState(advancingClock(), 15_000);
    state.address = { url: 'http://127.0.0.1:1', port: 1, hostnames: new Set(['127.0.0.1']) };
    const app = createApp(state);
    const seed = state.seed!;
    const host = { host: '127.0.0.1:1' };
    const response = await app.request('/v1/events/stream', { headers: { ...host, authorization: `Bearer ${seed.keys.live}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('ratelimit-limit')).toBe('600');
    const published = await app.request('/_emulator/events', {
      method: 'POST',
      headers: { ...host, 'content-type': 'application/json' },
      body: JSON.stringify({ org_id: seed.org_id, mode: 'live', type: 'call.started', count: 3 }),
    });
    expect(published.status).toBe(201);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (text.split('\n\n').length <= 4) text += decoder.decode((await reader.read()).value);
    // The position frame (no events yet), then the three events.
    const [position, ...frames] = text.split('\n\n').slice(0, 4);
    expect(position).toBe('id: start');
    frames.forEach((frame, i) => {
      const [idLine, eventLine, dataLine] = frame.split('\n');
      const event = JSON.parse(dataLine!.slice('data: '.length));
      expect(idLine).toBe(`id: ${event.id}`);
      expect(eventLine).toBe('event: call.started');
      expect(event).toMatchObject({ object: 'event', type: 'call.started', livemode: true, data: { object: 'synthetic', n: i + 1, of: 3 } });
    });
    expect((await app.request('/_emulator/streams/drop', { method: 'POST', headers: host })).status).toBe(200);
    expect(await reader.read()).toEqual({ done: true, value: undefined });
    expect(state.subscribers.size).toBe(0);
  });
});
