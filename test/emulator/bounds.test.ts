// Bounded under abuse (issue 13), the reduced versions of bench/emulator.mjs's memory checks:
// retention, a burst that does not block, a stalled stream client cut off, authorize-page
// sessions capped and expired on the injected clock, and the clock's bound.
import { request } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { call, openAuthorizePage, openStream, pkcePair, useEmulator } from './helpers.js';

async function until(predicate: () => boolean | Promise<boolean>, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Every event the list answers, page by page. */
async function listAll(emu: RunningEmulator, key: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const answer = await call(emu, 'GET', `/v1/events?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { key });
    ids.push(...answer.body.data.map((e: { id: string }) => e.id));
    cursor = answer.body.next_cursor;
  } while (cursor);
  return ids;
}

describe('events: retention and bursts', () => {
  const emulator = useEmulator();

  it('retains exactly the last 10,000 per organization and mode after 25,000, in memory too', async () => {
    const emu = emulator();
    const key = emu.seed.keys.test;
    const published = (await call(emu, 'POST', '/_emulator/events', { json: { org_id: emu.seed.org_id, mode: 'test', type: 'call.started', count: 25_000 } }))
      .body;
    const ids = await listAll(emu, key);
    expect(ids).toHaveLength(10_000);
    expect(ids[0]).toBe(published.last_id);
    const log = emu.state.eventLogs.get(`${emu.seed.org_id}:test`)!;
    // The log trims in batches of at most 1,000; never more is held.
    expect(log.events.length).toBeLessThanOrEqual(11_000);
    // The oldest retained is the 15,001st: a resume from the first says so with a gap frame.
    const resumed = await openStream(`${emu.url}/v1/events/stream`, key, { 'last-event-id': published.first_id });
    await resumed.waitFor(() => resumed.messages.at(-1)?.id === published.last_id);
    expect(resumed.messages[0]!.event).toBe('gap');
    expect(JSON.parse(resumed.messages[1]!.data).data.n).toBe(15_001);
    expect(resumed.messages).toHaveLength(10_001);
    resumed.close();
  }, 60_000);

  it('a burst of 200,000 published events does not hold the server: a request sent meanwhile is answered first', async () => {
    const emu = emulator();
    let burstDone = false;
    const burst = call(emu, 'POST', '/_emulator/events', { json: { org_id: emu.seed.org_id, mode: 'live', type: 'call.started', count: 200_000 } }).then(
      (answer) => {
        burstDone = true;
        return answer;
      },
    );
    // Wait until the burst is under way (events are being published), then ask for something else.
    // (The emulator shares this process's event loop: the burst is large enough that the request's
    // few turns of the loop cannot all fit before its last slice, as a 50,000-event one could on a fast Node.)
    await until(() => (emu.state.eventLogs.get(`${emu.seed.org_id}:live`)?.events.length ?? 0) > 0, 'the burst to start');
    const account = await call(emu, 'GET', '/v1/account', { key: emu.seed.keys.test });
    expect(account.status).toBe(200);
    expect(burstDone).toBe(false);
    expect((await burst).status).toBe(201);
  }, 60_000);
});

describe('stream clients that stop reading', () => {
  it('are disconnected once their unsent backlog passes the bound; when they read again the stream is cut short', async () => {
    const emu = await startEmulator({ port: 0, keepaliveMs: 100, limits: { streamBacklogChars: 256 * 1024 } });
    try {
      const key = emu.seed.keys.live;
      // A client that stops reading: it opens the stream and pauses (its socket is not read either).
      let stalledResponse: IncomingMessage | undefined;
      const stalled = request(`${emu.url}/v1/events/stream`, { headers: { authorization: `Bearer ${key}` }, agent: false }, (res) => {
        res.pause();
        stalledResponse = res;
      });
      stalled.end();
      await until(async () => stalledResponse !== undefined && (await call(emu, 'GET', '/_emulator/stats')).body.open_streams === 1, 'the stream to open');
      // ~20 MB of frames: more than the socket buffers of a client that never reads absorb.
      const count = 100_000;
      await call(emu, 'POST', '/_emulator/events', { json: { org_id: emu.seed.org_id, mode: 'live', type: 'call.started', count } });
      await until(async () => (await call(emu, 'GET', '/_emulator/stats')).body.open_streams === 0, 'the stalled stream to be dropped');
      // Its queue went with it.
      expect(emu.state.subscribers.size).toBe(0);
      // When the client reads again it finds its connection cut short, mid-stream: it resumes with Last-Event-ID.
      let text = '';
      const cut = new Promise<void>((resolve) => stalledResponse!.on('close', resolve));
      stalledResponse!.setEncoding('utf8');
      stalledResponse!.on('data', (chunk: string) => (text += chunk));
      stalledResponse!.resume();
      await cut;
      const ids = text.match(/^id: /gm) ?? [];
      expect(ids.length).toBeGreaterThan(0);
      expect(ids.length).toBeLessThan(count);
    } finally {
      await emu.close();
    }
  }, 90_000);
});

describe('authorize page: sessions and pending requests', () => {
  it('are capped, and expire after 10 minutes of the emulator clock', async () => {
    let now = Date.UTC(2030, 0, 1);
    const emu = await startEmulator({ port: 0, clock: { now: () => now }, limits: { authorizeSessions: 50, authorizeRequests: 50 } });
    try {
      const { challenge } = pkcePair();
      const query = new URLSearchParams({
        client_id: 'svc_app_cli',
        redirect_uri: 'http://127.0.0.1:1/callback',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      // A page a person opened first, then 120 visitors with no cookie (each gets a session and a request).
      const page = await openAuthorizePage(emu);
      for (let i = 0; i < 120; i++) expect((await call(emu, 'GET', `/oauth/authorize?${query}`)).status).toBe(200);
      expect(emu.state.sessions.size).toBe(50);
      expect(emu.state.authorizeRequests.size).toBe(50);
      // The oldest were dropped first: the first page's request is no longer pending.
      const stale = await page.post('/oauth/authorize/signin', { csrf: page.csrf, request: page.request, email: 'admin@acme.test', password: 'acme-admin' });
      expect(stale.status).toBe(403); // its session went with the cap

      // Ten minutes later everything there is expired and goes with the next visit.
      const fresh = await openAuthorizePage(emu);
      now += 10 * 60_000 + 1;
      const late = await fresh.post('/oauth/authorize/signin', { csrf: fresh.csrf, request: fresh.request, email: 'admin@acme.test', password: 'acme-admin' });
      expect(late.status).toBe(403); // the session expired: a new one (new CSRF token) was made
      expect((await call(emu, 'GET', `/oauth/authorize?${query}`)).status).toBe(200);
      expect(emu.state.sessions.size).toBeLessThanOrEqual(2);
      expect(emu.state.authorizeRequests.size).toBe(1);
    } finally {
      await emu.close();
    }
  });
});

describe('the clock', () => {
  const emulator = useEmulator();

  it('refuses an absurd advance with 422 and keeps working', async () => {
    const emu = emulator();
    for (const advance_seconds of [1e13, 315_360_001, -1]) {
      const answer = await call(emu, 'POST', '/_emulator/clock', { json: { advance_seconds } });
      expect(answer.status, String(advance_seconds)).toBe(422);
      expect(answer.body.detail[0].loc).toEqual(['body', 'advance_seconds']);
    }
    expect((await call(emu, 'POST', '/_emulator/clock', { json: { advance_seconds: 315_360_000 } })).status).toBe(200);
    expect((await call(emu, 'POST', '/v1/calls', { key: emu.seed.keys.test, json: { languages: ['en', 'es'] } })).status).toBe(201);
    expect((await call(emu, 'POST', '/_emulator/reset')).status).toBe(200);
  });

  it('never moves past what RFC 3339 can write, however many bounded moves', async () => {
    const emu = await startEmulator({ port: 0, clock: { now: () => Date.UTC(9995, 0, 1) } });
    try {
      expect((await call(emu, 'POST', '/_emulator/clock', { json: { advance_seconds: 315_360_000 } })).status).toBe(422);
      expect((await call(emu, 'GET', '/v1/account', { key: emu.seed.keys.test })).status).toBe(200);
    } finally {
      await emu.close();
    }
  });
});
