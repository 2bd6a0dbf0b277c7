// The spec's rules as a table: one describe per rule group, one real-HTTP test per rule, named after
// the rule. Some duplicate coverage elsewhere on purpose, so that every rule can be found here.
import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { authorizeViaApproval, call, exchange, form, login, openAuthorizePage, openStream, pkcePair, resetSeed, useEmulator } from './helpers.js';
import type { Answer, OpenStream } from './helpers.js';
import { controlPlane } from '../helpers/emulator.js';

const emulator = useEmulator({ keepaliveMs: 100 });
let emu: RunningEmulator;
let test: string;
let live: string;
let org: string;

beforeEach(async () => {
  emu = emulator();
  await resetSeed(emu);
  test = emu.seed.keys.test;
  live = emu.seed.keys.live;
  org = emu.seed.org_id;
});

const control = (method: string, path: string, json?: unknown) => controlPlane(emu).request(method, path, json);
const makeKey = (mode: 'test' | 'live', scopes?: string[]) => controlPlane(emu).createKey(org, mode, scopes);
const newCall = (key: string) => call(emu, 'POST', '/v1/calls', { key, json: { languages: ['en', 'es'] } });
const newChat = async (key: string) => (await call(emu, 'POST', '/v1/chats', { key, json: { language: 'en' } })).body;
const balance = async () => (await call(emu, 'GET', '/v1/balance', { key: live })).body.available as number;
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves 'ended' when the stream ends within `ms` (a generous bound on a loaded machine), else 'open'. */
const endsWithin = (stream: OpenStream, ms = 10_000) => Promise.race([stream.ended.then(() => 'ended' as const), sleep(ms).then(() => 'open' as const)]);

function expect422(answer: Answer, loc: (string | number)[], type?: string) {
  expect(answer.status).toBe(422);
  expect(Array.isArray(answer.body.detail)).toBe(true);
  const item = answer.body.detail.find((d: any) => JSON.stringify(d.loc) === JSON.stringify(loc));
  expect(item, JSON.stringify(answer.body)).toMatchObject({ loc, msg: expect.any(String), ...(type ? { type } : {}) });
}

/** Every string anywhere in a value (Maps, Sets, arrays, objects), to look for a plaintext secret. */
function allStrings(value: unknown, seen = new Set<unknown>()): string[] {
  if (typeof value === 'string') return [value];
  if (value === null || typeof value !== 'object' || seen.has(value)) return [];
  seen.add(value);
  if (value instanceof Map) return [...value.entries()].flatMap(([k, v]) => [...allStrings(k, seen), ...allStrings(v, seen)]);
  if (value instanceof Set || Array.isArray(value)) return [...value].flatMap((v) => allStrings(v, seen));
  return Object.entries(value).flatMap(([k, v]) => [k, ...allStrings(v, seen)]);
}

async function confidentialApp() {
  return (await control('POST', '/apps', { name: 'Server app', redirect_uris: ['https://app.example/cb'] })) as { client_id: string; client_secret: string };
}

describe('API keys', () => {
  it('stored only as a hash', async () => {
    const made = await makeKey('live');
    // The emulator's state (what a database would hold) never contains the key, only its sha256;
    // the seed's keys are answered by reset and kept in `seed` for `svc emulator` to print, so they are left out.
    const { seed: _seed, ...world } = emu.state;
    const strings = allStrings(world);
    expect(strings.some((s) => s.includes(made.key))).toBe(false);
    expect(strings).toContain(createHash('sha256').update(made.key).digest('hex'));
    expect(emu.state.keys.get(made.id)).not.toHaveProperty('key');
    // The key is shown once; the control plane's key list (connections) never shows it again.
    expect((await call(emu, 'GET', `/_emulator/orgs/${org}/connections`)).text).not.toContain(made.key);
    expect((await call(emu, 'GET', '/v1/account', { key: made.key })).status).toBe(200);
  });

  it('svc_live_/svc_test_ prefixes', async () => {
    expect(test).toMatch(/^svc_test_/);
    expect(live).toMatch(/^svc_live_/);
    expect((await makeKey('test')).key).toMatch(/^svc_test_/);
    expect((await makeKey('live')).key).toMatch(/^svc_live_/);
    expect((await call(emu, 'GET', '/v1/account', { key: test })).body.livemode).toBe(false);
    expect((await call(emu, 'GET', '/v1/account', { key: live })).body.livemode).toBe(true);
    // A live key's secret with the test prefix is not a key at all.
    expect((await call(emu, 'GET', '/v1/account', { key: live.replace('svc_live_', 'svc_test_') })).status).toBe(401);
  });

  it('header Authorization: Bearer or X-Api-Key', async () => {
    expect((await call(emu, 'GET', '/v1/account', { headers: { authorization: `Bearer ${test}` } })).status).toBe(200);
    expect((await call(emu, 'GET', '/v1/account', { headers: { 'x-api-key': test } })).status).toBe(200);
    const none = await call(emu, 'GET', '/v1/account');
    expect(none.status).toBe(401);
    expect(typeof none.body.detail).toBe('string');
  });

  it('a revoked key answers 401 at once', async () => {
    const made = await makeKey('test');
    expect((await call(emu, 'GET', '/v1/account', { key: made.key })).status).toBe(200);
    await control('DELETE', `/orgs/${org}/keys/${made.id}`);
    expect((await call(emu, 'GET', '/v1/account', { key: made.key })).status).toBe(401);
    expect((await call(emu, 'GET', '/v1/account', { headers: { 'x-api-key': made.key } })).status).toBe(401);
  });
});

describe('Scopes', () => {
  it('scopes on keys and on OAuth connections; a request outside them answers 403 with `this key or app lacks the <scope> scope`', async () => {
    const made = await makeKey('test', ['calls:read']);
    expect((await call(emu, 'GET', '/v1/calls', { key: made.key })).status).toBe(200);
    expect(await newCall(made.key)).toMatchObject({ status: 403, body: { detail: 'this key or app lacks the calls:write scope' } });
    expect(await call(emu, 'GET', '/v1/balance', { key: made.key })).toMatchObject({
      status: 403,
      body: { detail: 'this key or app lacks the account:read scope' },
    });
    const tokens = await login(emu, 'sessions:read');
    expect((await call(emu, 'GET', '/v1/chats', { key: tokens.access_token })).status).toBe(200);
    expect(await call(emu, 'POST', '/v1/translate', { key: tokens.access_token, json: { text: 'a', to: 'de' } })).toMatchObject({
      status: 403,
      body: { detail: 'this key or app lacks the translate scope' },
    });
    expect((await call(emu, 'GET', '/v1/calls', { key: made.key })).body.data).toEqual([]);
  });
});

describe('Modes', () => {
  it('a test credential never sees live objects or events and vice versa (404)', async () => {
    const liveCall = (await newCall(live)).body;
    const testCall = (await newCall(test)).body;
    expect((await call(emu, 'GET', `/v1/calls/${liveCall.id}`, { key: test })).status).toBe(404);
    expect((await call(emu, 'GET', `/v1/calls/${testCall.id}`, { key: live })).status).toBe(404);
    expect((await call(emu, 'POST', `/v1/calls/${liveCall.id}/end`, { key: test })).status).toBe(404);
    expect((await call(emu, 'GET', '/v1/calls', { key: test })).body.data.map((c: any) => c.id)).toEqual([testCall.id]);
    const testEvents = (await call(emu, 'GET', '/v1/events', { key: test })).body.data;
    expect(testEvents.every((e: any) => e.livemode === false)).toBe(true);
    expect(testEvents.some((e: any) => e.data.id === liveCall.id)).toBe(false);
    // A live key's stream never receives a test event, and a test key's stream never a live one.
    const liveStream = await openStream(emu.url + '/v1/events/stream', live);
    const testStream = await openStream(emu.url + '/v1/events/stream', test);
    const testChat = await newChat(test);
    await call(emu, 'POST', '/v1/translate', { key: test, json: { text: 'hi', to: 'de' } });
    const liveChat = await newChat(live);
    // Streams deliver in publication order: once each has the other mode's last event's successor, any
    // misrouted event would already be there. The live chat came after every test event; a test marker follows it.
    const testMarker = await newChat(test);
    await liveStream.waitFor(() => liveStream.messages.some((m) => JSON.parse(m.data).data.id === liveChat.id));
    await testStream.waitFor(() => testStream.messages.some((m) => JSON.parse(m.data).data.id === testMarker.id));
    expect(testStream.messages.some((m) => JSON.parse(m.data).data.id === testChat.id)).toBe(true);
    expect(liveStream.messages.map((m) => JSON.parse(m.data).livemode)).toEqual(liveStream.messages.map(() => true));
    expect(liveStream.messages.some((m) => JSON.parse(m.data).data.id === testChat.id || m.event === 'translation.created')).toBe(false);
    expect(testStream.messages.some((m) => JSON.parse(m.data).data.id === liveChat.id)).toBe(false);
    liveStream.close();
    testStream.close();
  });

  it('an OAuth token is always live', async () => {
    const tokens = await login(emu);
    expect((await call(emu, 'GET', '/v1/account', { key: tokens.access_token })).body).toMatchObject({ livemode: true, credential: { type: 'oauth' } });
    const made = (await newCall(tokens.access_token)).body;
    expect(made.livemode).toBe(true);
    expect((await call(emu, 'GET', `/v1/calls/${made.id}`, { key: live })).status).toBe(200);
    expect((await call(emu, 'GET', `/v1/calls/${made.id}`, { key: test })).status).toBe(404);
  });

  it('test mode is free', async () => {
    const before = await balance();
    const made = (await newCall(test)).body;
    await call(emu, 'POST', '/v1/lines', { key: test, json: { country: 'US' } });
    await call(emu, 'POST', '/v1/translate', { key: test, json: { text: 'hello', to: 'es' } });
    const chat = await newChat(test);
    await call(emu, 'POST', `/v1/chats/${chat.id}/messages`, { key: test, json: { text: 'hi', language: 'de' } });
    expect(made.livemode).toBe(false);
    expect(await balance()).toBe(before);
    // Free even at zero balance.
    await control('PUT', `/orgs/${org}/balance`, { available: 0 });
    expect((await newCall(test)).status).toBe(201);
  });

  it('translates to `[<language>] <text>`', async () => {
    const translated = await call(emu, 'POST', '/v1/translate', { key: test, json: { text: 'Hello there', to: 'es' } });
    expect(translated.body).toMatchObject({ object: 'translation', text: '[es] Hello there', to: 'es', livemode: false });
    const chat = await newChat(test);
    const message = (await call(emu, 'POST', `/v1/chats/${chat.id}/messages`, { key: test, json: { text: 'Hallo', language: 'de' } })).body;
    expect(message.translation).toEqual({ language: 'en', text: '[en] Hallo' });
  });

  it('gives voice messages a placeholder transcript', async () => {
    const chat = await newChat(test);
    const voice = await call(emu, 'POST', `/v1/chats/${chat.id}/voice`, { key: test, body: new Uint8Array(64), headers: { 'content-type': 'audio/ogg' } });
    expect(voice.status).toBe(201);
    expect(voice.body).toMatchObject({ object: 'message', kind: 'voice', livemode: false });
    expect(voice.body.transcript).toMatch(/placeholder/);
  });

  it('refuses dialling with 400', async () => {
    const made = (await newCall(test)).body;
    const dial = await call(emu, 'POST', `/v1/calls/${made.id}/dial`, { key: test, json: { to: '+14155550100' } });
    expect(dial.status).toBe(400);
    expect(typeof dial.body.detail).toBe('string');
    expect((await call(emu, 'GET', '/v1/events?type=call.participant.dialed', { key: test })).body.data).toEqual([]);
  });
});

describe('Billing', () => {
  it('billing in live mode from the prepaid balance', async () => {
    const start = await balance();
    expect(start).toBe(10_000);
    const made = (await newCall(live)).body;
    expect(await balance()).toBe(start - 2);
    await call(emu, 'POST', `/v1/calls/${made.id}/dial`, { key: live, json: { to: '+14155550100' } });
    expect(await balance()).toBe(start - 5);
    await call(emu, 'POST', '/v1/lines', { key: live, json: { country: 'US' } });
    expect(await balance()).toBe(start - 105);
    const updates = (await call(emu, 'GET', '/v1/events?type=balance.updated', { key: live })).body.data;
    expect(updates[0].data).toMatchObject({ object: 'balance', available: start - 105, livemode: true });
  });

  it('draws each price exactly (docs/contract.md "Billing"): 21 translated characters cost 0.042 cents, not a cent', async () => {
    const start = await balance();
    const prices = (await call(emu, 'GET', '/v1/prices', { key: live })).body.data as Array<{ item: string; unit_amount: number }>;
    expect(prices.find((p) => p.item === 'translation_character')?.unit_amount).toBe(0.002);
    const text = 'twenty-one characters';
    expect(text).toHaveLength(21);
    expect((await call(emu, 'POST', '/v1/translate', { key: live, json: { text, to: 'fr' } })).status).toBe(200);
    expect(await balance()).toBe(9999.958);
    expect(start - (await balance())).toBeCloseTo(0.042, 10);
    // A balance set finer than a cent is kept exactly; finer than 1/10,000 of a cent is refused.
    expect((await control('PUT', `/orgs/${org}/balance`, { available: 12.3456 })).available).toBe(12.3456);
    expect((await call(emu, 'PUT', `/_emulator/orgs/${org}/balance`, { json: { available: 0.00001 } })).status).toBe(422);
    await control('PUT', `/orgs/${org}/balance`, { available: 0.041 });
    expect((await call(emu, 'POST', '/v1/translate', { key: live, json: { text, to: 'fr' } })).status).toBe(402);
    await control('PUT', `/orgs/${org}/balance`, { available: 0.042 });
    expect((await call(emu, 'POST', '/v1/translate', { key: live, json: { text, to: 'fr' } })).status).toBe(200);
    expect(await balance()).toBe(0);
  });

  it('402 at zero', async () => {
    const made = (await newCall(live)).body;
    const chat = await newChat(live);
    await control('PUT', `/orgs/${org}/balance`, { available: 0 });
    const refused = [
      await newCall(live),
      await call(emu, 'POST', `/v1/calls/${made.id}/dial`, { key: live, json: { to: '+14155550100' } }),
      await call(emu, 'POST', '/v1/lines', { key: live, json: { country: 'US' } }),
      await call(emu, 'POST', '/v1/translate', { key: live, json: { text: 'hi', to: 'es' } }),
      await call(emu, 'POST', `/v1/chats/${chat.id}/messages`, { key: live, json: { text: 'hi' } }),
      await call(emu, 'POST', `/v1/chats/${chat.id}/voice`, { key: live, body: new Uint8Array(32), headers: { 'content-type': 'audio/ogg' } }),
    ];
    for (const answer of refused) expect(answer).toMatchObject({ status: 402, body: { detail: "the organization's prepaid balance has run out" } });
    // Refused means not carried out: no new message, call, line, and the balance stays at zero.
    expect((await call(emu, 'GET', `/v1/chats/${chat.id}/messages`, { key: live })).body.data).toEqual([]);
    expect((await call(emu, 'GET', '/v1/calls', { key: live })).body.data).toHaveLength(1);
    expect((await call(emu, 'GET', '/v1/lines', { key: live })).body.data).toEqual([]);
    expect(await balance()).toBe(0);
  });
});

describe('Rate limit', () => {
  it('600 requests a minute for each API key and each connected app', async () => {
    // An emulator whose clock stands still but for its control plane: the minute is the test's
    // to move, however long 1,800 requests take beside CPU-bound processes.
    const still = Date.now();
    const own = await startEmulator({ clock: { now: () => still }, keepaliveMs: 100 });
    try {
      const a = await controlPlane(own).createKey(own.seed.org_id, 'test');
      const b = await controlPlane(own).createKey(own.seed.org_id, 'test');
      const burst = async (key: string, n: number) =>
        (await Promise.all(Array.from({ length: n }, () => call(own, 'GET', '/v1/prices', { key })))).map((r) => r.status);
      expect((await burst(a.key, 600)).every((s) => s === 200)).toBe(true);
      expect((await call(own, 'GET', '/v1/prices', { key: a.key })).status).toBe(429);
      // Another key, and a connected app, each have their own 600.
      expect((await burst(b.key, 600)).every((s) => s === 200)).toBe(true);
      const tokens = await login(own);
      expect((await burst(tokens.access_token, 600)).every((s) => s === 200)).toBe(true);
      expect((await call(own, 'GET', '/v1/prices', { key: tokens.access_token })).status).toBe(429);
      // A new minute of the emulator clock opens the window again.
      await controlPlane(own).request('POST', '/clock', { advance_seconds: 61 });
      expect((await call(own, 'GET', '/v1/prices', { key: a.key })).status).toBe(200);
    } finally {
      await own.close();
    }
    // (1,800 requests: seconds on an idle machine, many times that on a busy one.)
  }, 120_000);

  it('past it 429 with Retry-After in seconds, and the request is not carried out', async () => {
    const a = await makeKey('test');
    await Promise.all(Array.from({ length: 600 }, () => call(emu, 'GET', '/v1/prices', { key: a.key })));
    const limited = await call(emu, 'POST', '/v1/calls', { key: a.key, json: { languages: ['en', 'es'] } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(typeof limited.body.detail).toBe('string');
    expect((await call(emu, 'GET', '/v1/calls', { key: test })).body.data).toEqual([]);
  });
});

describe('OAuth', () => {
  it('RFC 8414 metadata', async () => {
    const meta = (await call(emu, 'GET', '/.well-known/oauth-authorization-server')).body;
    expect(meta).toMatchObject({
      issuer: emu.url,
      authorization_endpoint: `${emu.url}/oauth/authorize`,
      token_endpoint: `${emu.url}/oauth2/token`,
      revocation_endpoint: `${emu.url}/oauth2/revoke`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
    });
  });

  it('the authorize page: sign in, choose an organization the user administers, see the requested scopes, approve or deny → error=access_denied with the state', async () => {
    const second = await control('POST', '/orgs', { name: 'Second', admin_email: 'admin@acme.test' });
    const stranger = await control('POST', '/orgs', { name: 'Stranger' });
    const page = await openAuthorizePage(emu, { scope: 'calls:read translate', state: 'xyz<1>' });
    expect(page.html).toMatch(/password/i);
    const consent = await (
      await page.post('/oauth/authorize/signin', { csrf: page.csrf, request: page.request, email: 'admin@acme.test', password: 'acme-admin' })
    ).text();
    expect(consent).toContain(`value="${org}"`);
    expect(consent).toContain(`value="${second.id}"`);
    expect(consent).not.toContain(stranger.id);
    expect(consent).toContain('calls:read');
    expect(consent).toContain('translate');
    expect(consent).not.toContain('sessions:write');
    const csrf = page.field(consent, 'csrf');
    const request = page.field(consent, 'request');
    expect((await page.post('/oauth/authorize/decision', { csrf, request, org_id: stranger.id, decision: 'approve' })).status).toBe(403);
    const approved = await page.post('/oauth/authorize/decision', { csrf, request, org_id: second.id, decision: 'approve' });
    const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
    expect((await exchange(emu, code, page.verifier, page.redirectUri)).body).toMatchObject({ org_id: second.id, scope: 'calls:read translate' });
    const again = await openAuthorizePage(emu, { state: 'deny-state' });
    const denyConsent = await (
      await again.post('/oauth/authorize/signin', { csrf: again.csrf, request: again.request, email: 'admin@acme.test', password: 'acme-admin' })
    ).text();
    const denied = await again.post('/oauth/authorize/decision', {
      csrf: again.field(denyConsent, 'csrf'),
      request: again.field(denyConsent, 'request'),
      org_id: org,
      decision: 'deny',
    });
    const location = new URL(denied.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('deny-state');
    expect(location.searchParams.get('code')).toBeNull();
  });

  it('CSRF protection on its forms', async () => {
    const page = await openAuthorizePage(emu);
    expect(page.csrf).not.toBe('');
    expect(
      (await page.post('/oauth/authorize/signin', { csrf: 'forged', request: page.request, email: 'admin@acme.test', password: 'acme-admin' })).status,
    ).toBe(403);
    expect((await page.post('/oauth/authorize/signin', { request: page.request, email: 'admin@acme.test', password: 'acme-admin' })).status).toBe(403);
    const consent = await (
      await page.post('/oauth/authorize/signin', { csrf: page.csrf, request: page.request, email: 'admin@acme.test', password: 'acme-admin' })
    ).text();
    const forged = await page.post('/oauth/authorize/decision', { csrf: 'forged', request: page.field(consent, 'request'), org_id: org, decision: 'approve' });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('location')).toBeNull();
    expect(emu.state.codes.size).toBe(0);
  });

  it('loopback redirect URIs with any port', async () => {
    for (const redirectUri of [
      'http://127.0.0.1:1234/callback',
      'http://127.0.0.1:65000/callback',
      'http://[::1]:2345/callback',
      'http://localhost:3456/callback',
    ]) {
      const auth = await authorizeViaApproval(emu, { redirectUri });
      expect(auth.location.searchParams.get('code'), redirectUri).toBeTruthy();
    }
    const { challenge } = pkcePair();
    const wrongPath = await call(
      emu,
      'GET',
      `/oauth/authorize?${new URLSearchParams({ client_id: 'svc_app_cli', redirect_uri: 'http://127.0.0.1:1234/other', code_challenge: challenge, code_challenge_method: 'S256' })}`,
    );
    expect(wrongPath.status).toBe(400);
    expect(wrongPath.headers.get('location')).toBeNull();
  });

  it('PKCE S256 verified', async () => {
    const auth = await authorizeViaApproval(emu);
    const code = auth.location.searchParams.get('code')!;
    const wrong = await exchange(emu, code, pkcePair().verifier, auth.redirectUri);
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const { challenge } = pkcePair();
    const plain = await call(
      emu,
      'GET',
      `/oauth/authorize?${new URLSearchParams({ client_id: 'svc_app_cli', redirect_uri: 'http://127.0.0.1:1/callback', state: 's', code_challenge: challenge, code_challenge_method: 'plain' })}`,
    );
    expect(new URL(plain.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    const good = await authorizeViaApproval(emu);
    expect((await exchange(emu, good.location.searchParams.get('code')!, good.verifier, good.redirectUri)).status).toBe(200);
  });

  it('codes single use and dead after 10 minutes', async () => {
    const auth = await authorizeViaApproval(emu);
    const code = auth.location.searchParams.get('code')!;
    const first = await exchange(emu, code, auth.verifier, auth.redirectUri);
    expect(first.status).toBe(200);
    expect((await exchange(emu, code, auth.verifier, auth.redirectUri)).body.error).toBe('invalid_grant');
    // A replayed code also revokes what it issued (RFC 6749 §4.1.2).
    expect((await call(emu, 'GET', '/v1/account', { key: first.body.access_token })).status).toBe(401);
    const late = await authorizeViaApproval(emu);
    await control('POST', '/clock', { advance_seconds: 601 });
    expect((await exchange(emu, late.location.searchParams.get('code')!, late.verifier, late.redirectUri)).body.error).toBe('invalid_grant');
  });

  it('access tokens dead after an hour', async () => {
    const tokens = await login(emu);
    await control('POST', '/clock', { advance_seconds: 3599 });
    expect((await call(emu, 'GET', '/v1/account', { key: tokens.access_token })).status).toBe(200);
    await control('POST', '/clock', { advance_seconds: 2 });
    expect((await call(emu, 'GET', '/v1/account', { key: tokens.access_token })).status).toBe(401);
  });

  it('refresh tokens single use, rotating, the old access token dead after a refresh', async () => {
    const tokens = await login(emu);
    const refresh = (token: string) =>
      call(emu, 'POST', '/oauth2/token', form({ grant_type: 'refresh_token', refresh_token: token, client_id: 'svc_app_cli' }));
    const next = await refresh(tokens.refresh_token);
    expect(next.status).toBe(200);
    expect(next.body.refresh_token).not.toBe(tokens.refresh_token);
    expect(next.body.access_token).not.toBe(tokens.access_token);
    expect((await call(emu, 'GET', '/v1/account', { key: tokens.access_token })).status).toBe(401);
    expect((await call(emu, 'GET', '/v1/account', { key: next.body.access_token })).status).toBe(200);
    expect(await refresh(tokens.refresh_token)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await refresh(next.body.refresh_token)).status).toBe(200);
  });

  it('revoke by either token', async () => {
    for (const which of ['access_token', 'refresh_token'] as const) {
      const tokens = await login(emu);
      const revoked = await call(emu, 'POST', '/oauth2/revoke', form({ token: tokens[which], client_id: 'svc_app_cli' }));
      expect(revoked.status).toBe(200);
      expect(revoked.text).toBe('');
      expect((await call(emu, 'GET', '/v1/account', { key: tokens.access_token })).status, which).toBe(401);
      const refreshed = await call(
        emu,
        'POST',
        '/oauth2/token',
        form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'svc_app_cli' }),
      );
      expect(refreshed.body.error, which).toBe('invalid_grant');
    }
    expect((await call(emu, 'POST', '/oauth2/revoke', form({ token: 'svc_oat_unknown' }))).status).toBe(200);
  });

  it('org disconnecting an app and deleting an app end its tokens at once', async () => {
    const tokens = await login(emu);
    expect((await call(emu, 'GET', `/_emulator/orgs/${org}/connections`)).body.data.map((c: any) => c.client_id)).toContain('svc_app_cli');
    await control('DELETE', `/orgs/${org}/connections/svc_app_cli`);
    expect((await call(emu, 'GET', '/v1/account', { key: tokens.access_token })).status).toBe(401);
    const refreshed = await call(
      emu,
      'POST',
      '/oauth2/token',
      form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'svc_app_cli' }),
    );
    expect(refreshed.body.error).toBe('invalid_grant');
    const app = await confidentialApp();
    const auth = await authorizeViaApproval(emu, { clientId: app.client_id, redirectUri: 'https://app.example/cb' });
    const appTokens = (
      await exchange(emu, auth.location.searchParams.get('code')!, auth.verifier, auth.redirectUri, { id: app.client_id, secret: app.client_secret })
    ).body;
    expect((await call(emu, 'GET', '/v1/account', { key: appTokens.access_token })).status).toBe(200);
    await control('DELETE', `/apps/${app.client_id}`);
    expect((await call(emu, 'GET', '/v1/account', { key: appTokens.access_token })).status).toBe(401);
  });

  it('token endpoint errors as RFC 6749 §5.2', async () => {
    const token = (params: Record<string, string>, headers: Record<string, string> = {}) => {
      const f = form(params);
      return call(emu, 'POST', '/oauth2/token', { body: f.body, headers: { ...f.headers, ...headers } });
    };
    const cases: [Answer, number, string][] = [
      [await token({ client_id: 'svc_app_cli' }), 400, 'invalid_request'],
      [await token({ client_id: 'svc_app_cli', grant_type: 'password' }), 400, 'unsupported_grant_type'],
      [await token({ client_id: 'svc_app_cli', grant_type: 'refresh_token', refresh_token: 'svc_ort_nope' }), 400, 'invalid_grant'],
      [
        await token({
          client_id: 'svc_app_cli',
          grant_type: 'authorization_code',
          code: 'nope',
          code_verifier: 'x'.repeat(43),
          redirect_uri: 'http://127.0.0.1/callback',
        }),
        400,
        'invalid_grant',
      ],
      [await token({ client_id: 'svc_app_nope', grant_type: 'refresh_token', refresh_token: 'x' }), 401, 'invalid_client'],
    ];
    for (const [answer, status, error] of cases) {
      expect(answer.status, error).toBe(status);
      expect(answer.body.error).toBe(error);
      expect(answer.headers.get('cache-control')).toBe('no-store');
    }
    const tokens = await login(emu, 'calls:read');
    expect((await token({ client_id: 'svc_app_cli', grant_type: 'refresh_token', refresh_token: tokens.refresh_token, scope: 'calls:write' })).body.error).toBe(
      'invalid_scope',
    );
  });

  it('public clients and confidential ones (HTTP Basic) both work', async () => {
    expect((await login(emu)).access_token).toMatch(/^svc_oat_/);
    const app = await confidentialApp();
    expect(app.client_secret).toBeTruthy();
    const auth = await authorizeViaApproval(emu, { clientId: app.client_id, redirectUri: 'https://app.example/cb' });
    const code = auth.location.searchParams.get('code')!;
    expect((await exchange(emu, code, auth.verifier, auth.redirectUri, { id: app.client_id })).body.error).toBe('invalid_client');
    const tokens = (await exchange(emu, code, auth.verifier, auth.redirectUri, { id: app.client_id, secret: app.client_secret })).body;
    expect(tokens.access_token).toMatch(/^svc_oat_/);
    // Revoke by the confidential client over HTTP Basic; a wrong secret is 401 invalid_client and revokes nothing.
    const revoke = (secret: string) =>
      call(emu, 'POST', '/oauth2/revoke', {
        body: new URLSearchParams({ token: tokens.refresh_token }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(app.client_id, secret) },
      });
    const wrong = await revoke('svc_cs_wrong');
    expect(wrong).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect((await call(emu, 'GET', '/v1/account', { key: tokens.access_token })).status).toBe(200);
    const revoked = await revoke(app.client_secret);
    expect(revoked.status).toBe(200);
    expect((await call(emu, 'GET', '/v1/account', { key: tokens.access_token })).status).toBe(401);
  });
});

describe('Errors', () => {
  it('{"detail"} bodies', async () => {
    const answers = [
      await call(emu, 'GET', '/v1/account'),
      await call(emu, 'GET', '/v1/calls/call_nope', { key: test }),
      await call(emu, 'GET', '/v1/nothing', { key: test }),
      await call(emu, 'POST', '/v1/calls', { key: (await makeKey('test', ['calls:read'])).key, json: { languages: ['en', 'es'] } }),
    ];
    expect(answers.map((a) => a.status)).toEqual([401, 404, 404, 403]);
    for (const answer of answers) {
      expect(Object.keys(answer.body)).toEqual(['detail']);
      expect(typeof answer.body.detail).toBe('string');
      expect(answer.headers.get('content-type')).toMatch(/application\/json/);
    }
  });

  it('422 list form for every body and query that does not validate', async () => {
    expect422(await call(emu, 'POST', '/v1/calls', { key: test, json: { languages: ['en'] } }), ['body', 'languages']);
    expect422(await call(emu, 'POST', '/v1/calls', { key: test, json: {} }), ['body', 'languages'], 'missing');
    expect422(await call(emu, 'POST', '/v1/chats', { key: test, json: { language: 'en', extra: 1 } }), ['body', 'extra'], 'extra_forbidden');
    expect422(await call(emu, 'GET', '/v1/calls?limit=0', { key: test }), ['query', 'limit']);
    expect422(await call(emu, 'GET', '/v1/calls?status=maybe', { key: test }), ['query', 'status']);
    expect422(await call(emu, 'GET', '/v1/calls?limit=1&limit=abc', { key: test }), ['query', 'limit']);
    expect422(await call(emu, 'GET', '/v1/account?foo=1', { key: test }), ['query', 'foo'], 'extra_forbidden');
    expect422(await call(emu, 'GET', '/v1/balance?foo=1', { key: test }), ['query', 'foo'], 'extra_forbidden');
    const made = (await newCall(test)).body;
    expect422(await call(emu, 'POST', `/v1/calls/${made.id}/end`, { key: test, json: { bogus: 1 } }), ['body'], 'extra_forbidden');
    expect((await call(emu, 'GET', `/v1/calls/${made.id}`, { key: test })).body.status).toBe('active');
  });

  it('409 for an ended call, a closed chat, a released line', async () => {
    const made = (await newCall(test)).body;
    await call(emu, 'POST', `/v1/calls/${made.id}/end`, { key: test });
    expect((await call(emu, 'POST', `/v1/calls/${made.id}/end`, { key: test })).status).toBe(409);
    expect((await call(emu, 'POST', `/v1/calls/${(await newCall(live)).body.id}/end`, { key: live })).status).toBe(200);
    const liveCall = (await newCall(live)).body;
    await call(emu, 'POST', `/v1/calls/${liveCall.id}/end`, { key: live });
    expect((await call(emu, 'POST', `/v1/calls/${liveCall.id}/dial`, { key: live, json: { to: '+14155550100' } })).status).toBe(409);
    const chat = await newChat(test);
    await call(emu, 'POST', `/v1/chats/${chat.id}/close`, { key: test });
    expect((await call(emu, 'POST', `/v1/chats/${chat.id}/close`, { key: test })).status).toBe(409);
    expect((await call(emu, 'POST', `/v1/chats/${chat.id}/messages`, { key: test, json: { text: 'hi' } })).status).toBe(409);
    expect(
      (await call(emu, 'POST', `/v1/chats/${chat.id}/voice`, { key: test, body: new Uint8Array(8), headers: { 'content-type': 'audio/ogg' } })).status,
    ).toBe(409);
    const line = (await call(emu, 'POST', '/v1/lines', { key: test, json: { country: 'US' } })).body;
    await call(emu, 'DELETE', `/v1/lines/${line.id}`, { key: test });
    const again = await call(emu, 'DELETE', `/v1/lines/${line.id}`, { key: test });
    expect(again.status).toBe(409);
    expect(typeof again.body.detail).toBe('string');
  });

  it('502 through the fault control', async () => {
    await control('POST', '/faults', { path_prefix: '/v1/translate', status: 502, count: 2 });
    const translate = () => call(emu, 'POST', '/v1/translate', { key: test, json: { text: 'hi', to: 'es' } });
    const first = await translate();
    expect(first.status).toBe(502);
    expect(typeof first.body.detail).toBe('string');
    expect((await translate()).status).toBe(502);
    expect((await translate()).status).toBe(200);
    expect((await call(emu, 'GET', '/v1/events?type=translation.created', { key: test })).body.data).toHaveLength(1);
  });
});

describe('Events', () => {
  it('every state change publishes its event with livemode', async () => {
    const made = (await newCall(live)).body;
    await call(emu, 'POST', `/v1/calls/${made.id}/dial`, { key: live, json: { to: '+14155550100' } });
    await call(emu, 'POST', '/v1/links', { key: live, json: { call_id: made.id } });
    await call(emu, 'POST', `/v1/calls/${made.id}/end`, { key: live });
    const line = (await call(emu, 'POST', '/v1/lines', { key: live, json: { country: 'US' } })).body;
    await call(emu, 'DELETE', `/v1/lines/${line.id}`, { key: live });
    const chat = await newChat(live);
    await call(emu, 'POST', `/v1/chats/${chat.id}/messages`, { key: live, json: { text: 'hi' } });
    await call(emu, 'POST', `/v1/chats/${chat.id}/close`, { key: live });
    await call(emu, 'POST', '/v1/translate', { key: live, json: { text: 'hi', to: 'es' } });
    const events = (await call(emu, 'GET', '/v1/events?limit=100', { key: live })).body.data;
    const types = new Set(events.map((e: any) => e.type));
    for (const type of [
      'call.started',
      'call.ended',
      'call.participant.dialed',
      'link.created',
      'line.created',
      'line.released',
      'chat.started',
      'chat.message.created',
      'chat.closed',
      'translation.created',
      'balance.updated',
    ]) {
      expect(types.has(type), type).toBe(true);
    }
    for (const event of events)
      expect(event).toMatchObject({ object: 'event', id: expect.stringMatching(/^evt_/), livemode: true, created_at: expect.any(String) });
    const ended = events.find((e: any) => e.type === 'call.ended');
    expect(ended.data).toMatchObject({ id: made.id, status: 'ended' });
    const testEvent = (await call(emu, 'GET', '/v1/events', { key: test })).body.data;
    expect(testEvent).toEqual([]);
  });

  it('SSE keepalive comments', async () => {
    // This file's emulator sends keepalives every 100 ms (the keepaliveMs option; 15 s by default).
    const stream = await openStream(emu.url + '/v1/events/stream', test);
    expect(stream.status).toBe(200);
    await stream.waitFor(() => stream.comments.filter((c) => c === 'keepalive').length >= 2);
    stream.close();
  });

  it('Last-Event-ID resume with no gap and no repeat', async () => {
    const first = await openStream(emu.url + '/v1/events/stream', test);
    await control('POST', '/events', { org_id: org, mode: 'test', type: 'chat.started', count: 10 });
    await first.waitFor(() => first.messages.length === 10);
    first.close();
    const lastSeen = first.messages[4]!.id!;
    await control('POST', '/events', { org_id: org, mode: 'test', type: 'chat.started', count: 5 });
    const resumed = await openStream(emu.url + '/v1/events/stream', test, { 'last-event-id': lastSeen });
    await resumed.waitFor(() => resumed.messages.length >= 10);
    await control('POST', '/events', { org_id: org, mode: 'test', type: 'chat.started', count: 3 });
    await resumed.waitFor(() => resumed.messages.length >= 13);
    // A marker published last: once it arrived, any repeat of an earlier event would have arrived before it.
    const marker = await control('POST', '/events', { org_id: org, mode: 'test', type: 'chat.started', count: 1 });
    await resumed.waitFor(() => resumed.messages.some((m) => m.id === marker.last_id));
    resumed.close();
    const all = (await call(emu, 'GET', '/v1/events?limit=100', { key: test })).body.data.map((e: any) => e.id).reverse();
    const expected = all.slice(all.indexOf(lastSeen) + 1);
    expect(resumed.messages.map((m) => m.id)).toEqual(expected);
    expect(new Set(resumed.messages.map((m) => m.id)).size).toBe(resumed.messages.length);
  });

  it('the stream closes when its credential dies', async () => {
    // A revoked key.
    const made = await makeKey('test');
    const byKey = await openStream(emu.url + '/v1/events/stream', made.key);
    await control('DELETE', `/orgs/${org}/keys/${made.id}`);
    expect(await endsWithin(byKey)).toBe('ended');
    // The org disconnects the app: both the event stream and a chat stream end.
    const tokens = await login(emu);
    const chat = await newChat(tokens.access_token);
    const byToken = await openStream(emu.url + '/v1/events/stream', tokens.access_token);
    const byChat = await openStream(emu.url + `/v1/chats/${chat.id}/stream`, tokens.access_token);
    await control('DELETE', `/orgs/${org}/connections/svc_app_cli`);
    expect(await endsWithin(byToken)).toBe('ended');
    expect(await endsWithin(byChat)).toBe('ended');
    // The app is deleted.
    const app = await confidentialApp();
    const auth = await authorizeViaApproval(emu, { clientId: app.client_id, redirectUri: 'https://app.example/cb' });
    const appTokens = (
      await exchange(emu, auth.location.searchParams.get('code')!, auth.verifier, auth.redirectUri, { id: app.client_id, secret: app.client_secret })
    ).body;
    const byApp = await openStream(emu.url + '/v1/events/stream', appTokens.access_token);
    expect(byApp.status).toBe(200);
    await control('DELETE', `/apps/${app.client_id}`);
    expect(await endsWithin(byApp)).toBe('ended');
    // The access token expires.
    const expiring = await login(emu);
    const byExpiring = await openStream(emu.url + '/v1/events/stream', expiring.access_token);
    await control('POST', '/clock', { advance_seconds: 3601 });
    expect(await endsWithin(byExpiring)).toBe('ended');
    expect((await call(emu, 'GET', '/_emulator/stats')).body.open_streams).toBe(0);
  });
});

describe('Bad input never crashes it or corrupts its state', () => {
  /** After bad input: no 500, nothing made, and the emulator still answers a good request. */
  async function stillSound(answers: Answer[]) {
    for (const answer of answers) {
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
    }
    expect((await call(emu, 'GET', '/v1/calls', { key: test })).body.data).toEqual([]);
    expect((await call(emu, 'GET', '/v1/chats', { key: test })).body.data).toEqual([]);
    expect((await call(emu, 'GET', '/v1/events', { key: test })).body.data).toEqual([]);
    expect((await newCall(test)).status).toBe(201);
  }
  const raw = (path: string, body: string | Uint8Array, type: string) => call(emu, 'POST', path, { key: test, body, headers: { 'content-type': type } });

  it('malformed JSON', async () => {
    const answers = await Promise.all(
      ['{', '{"languages": [', 'nul', '\u0000', '{"a":1}}', '[1,', '"'].map((body) => raw('/v1/calls', body, 'application/json')),
    );
    for (const answer of answers) expect422(answer, ['body'], 'json_invalid');
    await stillSound(answers);
  });

  it('wrong content types', async () => {
    const answers = [
      await raw('/v1/calls', 'languages=en&languages=es', 'application/x-www-form-urlencoded'),
      await raw('/v1/calls', '{"languages":["en","es"]}', 'text/plain'),
      await raw('/v1/chats', '--x\r\n\r\n', 'multipart/form-data; boundary=x'),
      await raw('/oauth2/token', '{"grant_type":"refresh_token"}', 'application/json'),
      await call(emu, 'POST', '/oauth/authorize/signin', { body: '--x\r\ngarbage', headers: { 'content-type': 'multipart/form-data; boundary=x' } }),
    ];
    expect(answers.map((a) => a.status)).toEqual([415, 415, 415, 400, 415]);
    const chat = await newChat(test);
    expect((await raw(`/v1/chats/${chat.id}/voice`, '{"text":"hi"}', 'application/json')).status).toBe(415);
    expect((await call(emu, 'GET', `/v1/chats/${chat.id}/messages`, { key: test })).body.data).toEqual([]);
    await resetSeed(emu);
    test = emu.seed.keys.test;
    await stillSound(answers);
  });

  it('huge bodies (413)', async () => {
    const answers = [
      await call(emu, 'POST', '/v1/translate', { key: test, json: { text: 'x'.repeat(1024 * 1024 + 1), to: 'es' } }),
      await call(emu, 'POST', '/v1/calls', { key: test, json: { languages: ['en', 'es'], title: 'y'.repeat(2 * 1024 * 1024) } }),
      await call(emu, 'POST', '/oauth2/token', {
        body: `grant_type=${'z'.repeat(2 * 1024 * 1024)}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
    ];
    expect(answers.map((a) => a.status)).toEqual([413, 413, 413]);
    const chat = await newChat(test);
    const voice = await raw(`/v1/chats/${chat.id}/voice`, new Uint8Array(10 * 1024 * 1024 + 1), 'audio/ogg');
    expect(voice.status).toBe(413);
    expect((await call(emu, 'GET', `/v1/chats/${chat.id}/messages`, { key: test })).body.data).toEqual([]);
    await resetSeed(emu);
    test = emu.seed.keys.test;
    await stillSound(answers);
  });

  it('unknown fields', async () => {
    const answers = [
      await call(emu, 'POST', '/v1/calls', { key: test, json: { languages: ['en', 'es'], colour: 'red' } }),
      await raw('/v1/chats', '{"language":"en","__proto__":{"admin":true},"constructor":1}', 'application/json'),
      await call(emu, 'POST', '/v1/translate', { key: test, json: { text: 'a', to: 'es', extra: null } }),
      await call(emu, 'GET', '/v1/calls?colour=red', { key: test }),
    ];
    expect422(answers[0]!, ['body', 'colour'], 'extra_forbidden');
    expect422(answers[1]!, ['body', 'constructor'], 'extra_forbidden');
    expect422(answers[2]!, ['body', 'extra'], 'extra_forbidden');
    expect422(answers[3]!, ['query', 'colour'], 'extra_forbidden');
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    await stillSound(answers);
  });

  it('wrong types', async () => {
    const answers = [
      await call(emu, 'POST', '/v1/calls', { key: test, json: { languages: 'en,es' } }),
      await call(emu, 'POST', '/v1/calls', { key: test, json: { languages: [1, 2] } }),
      await call(emu, 'POST', '/v1/calls', { key: test, json: null }),
      await call(emu, 'POST', '/v1/calls', { key: test, json: [{ languages: ['en', 'es'] }] }),
      await call(emu, 'POST', '/v1/chats', { key: test, json: { language: 'en', subject: 42 } }),
      await call(emu, 'POST', '/v1/translate', { key: test, json: { text: { a: 1 }, to: 'es' } }),
      await call(emu, 'GET', '/v1/calls?limit=abc', { key: test }),
    ];
    for (const answer of answers) expect(answer.status).toBe(422);
    expect422(answers[0]!, ['body', 'languages']);
    expect422(answers[6]!, ['query', 'limit']);
    await stillSound(answers);
  });

  it('invalid language tags or phone numbers', async () => {
    const answers = [
      await call(emu, 'POST', '/v1/calls', { key: test, json: { languages: ['en', 'not a tag!'] } }),
      await call(emu, 'POST', '/v1/chats', { key: test, json: { language: 'x-'.repeat(40) } }),
      await call(emu, 'POST', '/v1/translate', { key: test, json: { text: 'a', to: '' } }),
    ];
    expect422(answers[0]!, ['body', 'languages', 1]);
    expect422(answers[1]!, ['body', 'language']);
    expect422(answers[2]!, ['body', 'to']);
    await stillSound(answers);
    const liveCall = (await newCall(live)).body;
    const before = await balance();
    for (const to of ['4155550100', '+0123', '+1 415 555 0100', '+1234567890123456', 'tel:+14155550100', '']) {
      expect422(await call(emu, 'POST', `/v1/calls/${liveCall.id}/dial`, { key: live, json: { to } }), ['body', 'to']);
    }
    expect(await balance()).toBe(before);
    expect((await call(emu, 'GET', '/v1/events?type=call.participant.dialed', { key: live })).body.data).toEqual([]);
  });
});
