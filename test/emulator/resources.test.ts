import { beforeEach, describe, expect, it } from 'vitest';
import { call, login, resetSeed, useEmulator } from './helpers.js';

const emulator = useEmulator();

describe('resources, modes, billing and input rules', () => {
  beforeEach(async () => {
    await resetSeed(emulator());
  });

  it('a test key never sees live objects and vice versa (404)', async () => {
    const emu = emulator();
    const { test, live } = emu.seed.keys;
    const liveCall = (await call(emu, 'POST', '/v1/calls', { key: live, json: { languages: ['en', 'es'] } })).body;
    const testCall = (await call(emu, 'POST', '/v1/calls', { key: test, json: { languages: ['en', 'es'] } })).body;
    expect(liveCall.livemode).toBe(true);
    expect(testCall.livemode).toBe(false);
    expect((await call(emu, 'GET', `/v1/calls/${liveCall.id}`, { key: test })).status).toBe(404);
    expect((await call(emu, 'GET', `/v1/calls/${testCall.id}`, { key: live })).status).toBe(404);
    expect((await call(emu, 'POST', `/v1/calls/${liveCall.id}/end`, { key: test })).status).toBe(404);
    expect((await call(emu, 'GET', '/v1/calls', { key: test })).body.data.map((c: any) => c.id)).toEqual([testCall.id]);
    const events = await call(emu, 'GET', '/v1/events', { key: test });
    expect(events.body.data.every((e: any) => e.livemode === false)).toBe(true);
    expect(events.body.data.map((e: any) => e.data.id)).toEqual([testCall.id]);
  });

  it('an OAuth token is always live', async () => {
    const emu = emulator();
    const tokens = await login(emu);
    const made = await call(emu, 'POST', '/v1/calls', { key: tokens.access_token, json: { languages: ['en', 'de'] } });
    expect(made.body.livemode).toBe(true);
    expect((await call(emu, 'GET', `/v1/calls/${made.body.id}`, { key: emu.seed.keys.live })).status).toBe(200);
    expect((await call(emu, 'GET', `/v1/calls/${made.body.id}`, { key: emu.seed.keys.test })).status).toBe(404);
  });

  it('another organization gets 404 for an object', async () => {
    const emu = emulator();
    const other = await call(emu, 'POST', '/_emulator/orgs', { json: { name: 'Globex', balance: 500 } });
    expect(other.status).toBe(201);
    expect(other.body.admin.email).toContain('@');
    const key = (await call(emu, 'POST', `/_emulator/orgs/${other.body.id}/keys`, { json: { mode: 'test' } })).body.key;
    const mine = (await call(emu, 'POST', '/v1/chats', { key: emu.seed.keys.test, json: { language: 'en' } })).body;
    expect((await call(emu, 'GET', `/v1/chats/${mine.id}`, { key })).status).toBe(404);
    expect((await call(emu, 'GET', '/v1/account', { key })).body.name).toBe('Globex');
  });

  it('test mode is free and dialling in test mode is refused with 400', async () => {
    const emu = emulator();
    const key = emu.seed.keys.test;
    await call(emu, 'PUT', `/_emulator/orgs/${emu.seed.org_id}/balance`, { json: { available: 0 } });
    const made = await call(emu, 'POST', '/v1/calls', { key, json: { languages: ['en', 'es'] } });
    expect(made.status).toBe(201);
    const dial = await call(emu, 'POST', `/v1/calls/${made.body.id}/dial`, { key, json: { to: '+14155550123' } });
    expect(dial.status).toBe(400);
    expect(dial.body.detail).toMatch(/test mode/);
    const translated = await call(emu, 'POST', '/v1/translate', { key, json: { text: 'Hello', to: 'es' } });
    expect(translated.body).toEqual({ object: 'translation', text: '[es] Hello', to: 'es', from: null, characters: 5, livemode: false });
    expect((await call(emu, 'GET', '/v1/balance', { key })).body.available).toBe(0);
  });

  it('live mode draws from the balance at published prices, publishes balance.updated and answers 402 at zero', async () => {
    const emu = emulator();
    const key = emu.seed.keys.live;
    const prices = (await call(emu, 'GET', '/v1/prices', { key })).body.data;
    expect(prices.map((p: any) => p.item).sort()).toEqual(['call_minute', 'dial_minute', 'line_month', 'translation_character']);
    const callMinute = prices.find((p: any) => p.item === 'call_minute').unit_amount;
    const before = (await call(emu, 'GET', '/v1/balance', { key })).body;
    expect(before).toEqual({ object: 'balance', currency: 'usd', available: 10_000, livemode: true });
    const made = await call(emu, 'POST', '/v1/calls', { key, json: { languages: ['en', 'es'] } });
    expect(made.status).toBe(201);
    expect((await call(emu, 'GET', '/v1/balance', { key })).body.available).toBe(10_000 - callMinute);
    const balanceEvents = await call(emu, 'GET', '/v1/events?type=balance.updated', { key });
    expect(balanceEvents.body.data[0].data.available).toBe(10_000 - callMinute);

    await call(emu, 'PUT', `/_emulator/orgs/${emu.seed.org_id}/balance`, { json: { available: 0 } });
    const refusals = [
      await call(emu, 'POST', '/v1/calls', { key, json: { languages: ['en', 'es'] } }),
      await call(emu, 'POST', `/v1/calls/${made.body.id}/dial`, { key, json: { to: '+14155550123' } }),
      await call(emu, 'POST', '/v1/lines', { key, json: { country: 'US' } }),
      await call(emu, 'POST', '/v1/translate', { key, json: { text: 'hi', to: 'fr' } }),
    ];
    for (const refusal of refusals) expect(refusal).toMatchObject({ status: 402, body: { detail: "the organization's prepaid balance has run out" } });
    // A refused operation changed nothing.
    expect((await call(emu, 'GET', '/v1/calls', { key })).body.data).toHaveLength(1);
    expect((await call(emu, 'GET', '/v1/lines', { key })).body.data).toHaveLength(0);
  });

  it('dialling in live mode answers a ringing participant and publishes call.participant.dialed', async () => {
    const emu = emulator();
    const key = emu.seed.keys.live;
    const made = (await call(emu, 'POST', '/v1/calls', { key, json: { languages: ['en', 'es'] } })).body;
    const dial = await call(emu, 'POST', `/v1/calls/${made.id}/dial`, { key, json: { to: '+14155550123', language: 'es' } });
    expect(dial.status).toBe(201);
    expect(dial.body).toMatchObject({ object: 'participant', call_id: made.id, phone: '+14155550123', language: 'es', status: 'ringing' });
    expect(dial.body.id).toMatch(/^part_/);
    const events = (await call(emu, 'GET', '/v1/events?type=call', { key })).body.data.map((e: any) => e.type);
    expect(events).toEqual(['call.participant.dialed', 'call.started']);
  });

  it('answers 409 for an ended call, a closed chat and a released line', async () => {
    const emu = emulator();
    const key = emu.seed.keys.live;
    const made = (await call(emu, 'POST', '/v1/calls', { key, json: { languages: ['en', 'es'] } })).body;
    await call(emu, 'POST', `/v1/calls/${made.id}/end`, { key });
    expect((await call(emu, 'POST', `/v1/calls/${made.id}/end`, { key })).status).toBe(409);
    expect((await call(emu, 'POST', `/v1/calls/${made.id}/dial`, { key, json: { to: '+14155550123' } })).status).toBe(409);
    const chat = (await call(emu, 'POST', '/v1/chats', { key, json: { language: 'en' } })).body;
    await call(emu, 'POST', `/v1/chats/${chat.id}/close`, { key });
    expect((await call(emu, 'POST', `/v1/chats/${chat.id}/close`, { key })).status).toBe(409);
    expect((await call(emu, 'POST', `/v1/chats/${chat.id}/messages`, { key, json: { text: 'hi' } })).status).toBe(409);
    const voice = await call(emu, 'POST', `/v1/chats/${chat.id}/voice`, { key, body: new Uint8Array(10), headers: { 'content-type': 'audio/ogg' } });
    expect(voice.status).toBe(409);
    const line = (await call(emu, 'POST', '/v1/lines', { key, json: { country: 'US', area_code: '415' } })).body;
    expect(line).toMatchObject({ object: 'line', status: 'active', country: 'US' });
    expect(line.number).toMatch(/^\+1415\d{7}$/);
    expect((await call(emu, 'DELETE', `/v1/lines/${line.id}`, { key })).body.status).toBe('released');
    expect((await call(emu, 'DELETE', `/v1/lines/${line.id}`, { key })).status).toBe(409);
  });

  it('chats: messages with stand-in translation, voice with a placeholder transcript, 413 and 415', async () => {
    const emu = emulator();
    const key = emu.seed.keys.test;
    const chat = (await call(emu, 'POST', '/v1/chats', { key, json: { language: 'en', subject: 'Help' } })).body;
    expect(chat).toMatchObject({ object: 'chat', status: 'open', language: 'en', subject: 'Help' });
    const message = await call(emu, 'POST', `/v1/chats/${chat.id}/messages`, { key, json: { text: 'Hola', language: 'es' } });
    expect(message.status).toBe(201);
    expect(message.body).toMatchObject({
      object: 'message',
      chat_id: chat.id,
      kind: 'text',
      text: 'Hola',
      language: 'es',
      translation: { language: 'en', text: '[en] Hola' },
      transcript: null,
    });
    const voice = await call(emu, 'POST', `/v1/chats/${chat.id}/voice`, { key, body: new Uint8Array(2048), headers: { 'content-type': 'audio/ogg' } });
    expect(voice.status).toBe(201);
    expect(voice.body.kind).toBe('voice');
    expect(voice.body.transcript).toMatch(/placeholder/);
    const notAudio = await call(emu, 'POST', `/v1/chats/${chat.id}/voice`, { key, body: 'text', headers: { 'content-type': 'text/plain' } });
    expect(notAudio.status).toBe(415);
    const tooBig = await call(emu, 'POST', `/v1/chats/${chat.id}/voice`, {
      key,
      body: new Uint8Array(10 * 1024 * 1024 + 1),
      headers: { 'content-type': 'audio/wav' },
    });
    expect(tooBig.status).toBe(413);
    expect(typeof tooBig.body.detail).toBe('string');
    const messages = (await call(emu, 'GET', `/v1/chats/${chat.id}/messages`, { key })).body.data;
    expect(messages.map((m: any) => m.kind)).toEqual(['voice', 'text']);
  });

  it('invalid bodies and queries answer 422 in the list form, never corrupting state', async () => {
    const emu = emulator();
    const key = emu.seed.keys.test;
    const cases: [string, string, unknown, string[]][] = [
      ['POST', '/v1/calls', { languages: ['en'] }, ['body', 'languages']],
      ['POST', '/v1/calls', { languages: ['en', 'not a tag!'] }, ['body', 'languages', '1']],
      ['POST', '/v1/calls', { languages: 'en,es' }, ['body', 'languages']],
      ['POST', '/v1/calls', {}, ['body', 'languages']],
      ['POST', '/v1/calls', { languages: ['en', 'es'], colour: 'red' }, ['body', 'colour']],
      ['POST', '/v1/translate', { text: 'x'.repeat(5001), to: 'es' }, ['body', 'text']],
      ['POST', '/v1/translate', { text: 'hi', to: 'español' }, ['body', 'to']],
      ['POST', '/v1/chats', { language: 42 }, ['body', 'language']],
      ['POST', '/v1/lines', { country: 'usa' }, ['body', 'country']],
      ['POST', '/v1/links', { expires_in: 'soon' }, ['body', 'expires_in']],
    ];
    for (const [method, path, json, loc] of cases) {
      const answer = await call(emu, method, path, { key, json });
      expect(answer.status, JSON.stringify(json)).toBe(422);
      expect(Array.isArray(answer.body.detail)).toBe(true);
      expect(answer.body.detail[0].loc.map(String)).toEqual(loc);
      expect(typeof answer.body.detail[0].msg).toBe('string');
      expect(typeof answer.body.detail[0].type).toBe('string');
    }
    const made = (await call(emu, 'POST', '/v1/calls', { key, json: { languages: ['en', 'es'] } })).body;
    const badPhone = await call(emu, 'POST', `/v1/calls/${made.id}/dial`, { key, json: { to: '4155550123' } });
    expect(badPhone.status).toBe(422);
    expect(badPhone.body.detail[0].loc).toEqual(['body', 'to']);
    expect((await call(emu, 'GET', '/v1/calls?status=maybe', { key })).status).toBe(422);
    const unknownQuery = await call(emu, 'GET', '/v1/calls?colour=red', { key });
    expect(unknownQuery.status).toBe(422);
    expect(unknownQuery.body.detail[0]).toMatchObject({ loc: ['query', 'colour'], type: 'extra_forbidden' });
    expect((await call(emu, 'GET', '/v1/calls', { key })).body.data).toHaveLength(1);
  });

  it('malformed JSON is 422, a non-JSON content type 415, a body over 1 MiB 413', async () => {
    const emu = emulator();
    const key = emu.seed.keys.test;
    const malformed = await call(emu, 'POST', '/v1/calls', { key, body: '{"languages": [', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
    const wrongType = await call(emu, 'POST', '/v1/calls', { key, body: 'languages=en', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(wrongType.status).toBe(415);
    const huge = await call(emu, 'POST', '/v1/translate', { key, json: { text: 'x'.repeat(1024 * 1024 + 10), to: 'es' } });
    expect(huge.status).toBe(413);
    const array = await call(emu, 'POST', '/v1/calls', { key, json: [1, 2] });
    expect(array.status).toBe(422);
    expect((await call(emu, 'GET', '/v1/calls', { key })).body.data).toEqual([]);
    expect((await call(emu, 'GET', '/v1/nothing', { key })).status).toBe(404);
    // Odd input anywhere is answered, never a crash (500).
    const odd = [
      await call(emu, 'GET', '/v1/calls/%E0%A4%A', { key }),
      await call(emu, 'GET', '/v1/account', { headers: { authorization: 'Bearer' } }),
      await call(emu, 'GET', '/v1/account', { headers: { authorization: 'Basic !!!' } }),
      await call(emu, 'POST', '/oauth2/token', { body: '%%%', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic %%%' } }),
      await call(emu, 'POST', '/v1/calls', { key, body: 'null', headers: { 'content-type': 'application/json' } }),
      await call(emu, 'POST', '/v1/calls', { key, body: '"text"', headers: { 'content-type': 'application/json' } }),
      await call(emu, 'GET', `/v1/events?type=${encodeURIComponent('<bad>')}`, { key }),
      await call(emu, 'POST', '/_emulator/orgs', { body: '{', headers: { 'content-type': 'application/json' } }),
    ];
    for (const answer of odd) {
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
    }
  });

  it('links: made for a call, listed newest first', async () => {
    const emu = emulator();
    const key = emu.seed.keys.test;
    const made = (await call(emu, 'POST', '/v1/calls', { key, json: { languages: ['en', 'es'] } })).body;
    const link = await call(emu, 'POST', '/v1/links', { key, json: { call_id: made.id, language: 'es', expires_in: 3600 } });
    expect(link.status).toBe(201);
    expect(link.body).toMatchObject({ object: 'link', call_id: made.id, language: 'es' });
    expect(link.body.url).toContain(link.body.id);
    expect(Date.parse(link.body.expires_at) - Date.parse(link.body.created_at)).toBe(3_600_000);
    expect((await call(emu, 'POST', '/v1/links', { key, json: { call_id: 'call_nope' } })).status).toBe(404);
    expect((await call(emu, 'GET', '/v1/links', { key })).body.data.map((l: any) => l.id)).toEqual([link.body.id]);
  });

  it('rate limit: 600 per minute per key, then 429 with Retry-After and RateLimit-* headers, not carried out', async () => {
    const emu = emulator();
    const made = await call(emu, 'POST', `/_emulator/orgs/${emu.seed.org_id}/keys`, { json: { mode: 'test' } });
    const key = made.body.key;
    const first = await call(emu, 'GET', '/v1/account', { key });
    expect(first.headers.get('ratelimit-limit')).toBe('600');
    expect(first.headers.get('ratelimit-remaining')).toBe('599');
    await Promise.all(Array.from({ length: 598 }, () => call(emu, 'GET', '/v1/account', { key })));
    const last = await call(emu, 'POST', '/v1/calls', { key, json: { languages: ['en', 'es'] } });
    expect(last.status).toBe(201);
    const limited = await call(emu, 'POST', '/v1/calls', { key, json: { languages: ['en', 'es'] } });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect((await call(emu, 'GET', '/v1/calls', { key: emu.seed.keys.test })).body.data).toHaveLength(1);
    // Another key has its own budget; the window reopens after a minute of the emulator's clock.
    expect((await call(emu, 'GET', '/v1/account', { key: emu.seed.keys.test })).status).toBe(200);
    await call(emu, 'POST', '/_emulator/clock', { json: { advance_seconds: 61 } });
    expect((await call(emu, 'GET', '/v1/account', { key })).status).toBe(200);
    expect((await call(emu, 'GET', '/_emulator/stats')).body.rate_limited).toBe(1);
  });

  it('rate limit: 600 per minute for each connected app, too', async () => {
    const emu = emulator();
    const tokens = await login(emu);
    const answers = await Promise.all(Array.from({ length: 601 }, () => call(emu, 'GET', '/v1/account', { key: tokens.access_token })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(600);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited).toHaveLength(1);
    expect(limited[0]!.headers.get('retry-after')).toMatch(/^\d+$/);
    // API keys of the same organization keep their own budgets.
    expect((await call(emu, 'GET', '/v1/account', { key: emu.seed.keys.live })).status).toBe(200);
  });

  it('faults: the next N requests under a path prefix fail with the chosen status, then work again', async () => {
    const emu = emulator();
    const key = emu.seed.keys.test;
    expect((await call(emu, 'POST', '/_emulator/faults', { json: { path_prefix: '/v1/calls', status: 502, count: 2 } })).status).toBe(201);
    await call(emu, 'POST', '/_emulator/faults', { json: { path_prefix: '/v1/account', status: 429, count: 1 } });
    expect((await call(emu, 'GET', '/v1/account', { key })).headers.get('retry-after')).toBe('1');
    expect((await call(emu, 'POST', '/v1/calls', { key, json: { languages: ['en', 'es'] } })).status).toBe(502);
    expect((await call(emu, 'GET', '/v1/calls', { key })).status).toBe(502);
    expect((await call(emu, 'GET', '/v1/calls', { key })).body.data).toEqual([]);
    expect((await call(emu, 'GET', '/v1/account', { key })).status).toBe(200);
    expect((await call(emu, 'POST', '/_emulator/faults', { json: { path_prefix: 'v1', status: 500, count: 1 } })).status).toBe(422);
  });

  it('the control plane: reset empties the world, stats count requests, balance and approvals are validated', async () => {
    const emu = emulator();
    const oldKey = emu.seed.keys.test;
    await call(emu, 'POST', '/v1/calls', { key: oldKey, json: { languages: ['en', 'es'] } });
    const seed = await resetSeed(emu);
    expect(seed.keys.test).not.toBe(oldKey);
    expect((await call(emu, 'GET', '/v1/account', { key: oldKey })).status).toBe(401);
    expect((await call(emu, 'GET', '/v1/calls', { key: seed.keys.test })).body.data).toEqual([]);
    const stats = (await call(emu, 'GET', '/_emulator/stats')).body;
    expect(stats).toEqual({ requests: 3, tokens_issued: 0, refreshes: 0, refresh_reuse: 0, rate_limited: 0, open_streams: 0 });
    expect((await call(emu, 'PUT', `/_emulator/orgs/${seed.org_id}/balance`, { json: { available: -1 } })).status).toBe(422);
    expect((await call(emu, 'PUT', '/_emulator/orgs/org_nope/balance', { json: { available: 1 } })).status).toBe(404);
    expect((await call(emu, 'POST', '/_emulator/approvals', { json: { email: 'nobody@x.test', org_id: seed.org_id, decision: 'approve' } })).status).toBe(404);
    expect((await call(emu, 'POST', '/_emulator/apps', { json: { name: 'Bad', redirect_uris: ['http://example.com/cb'] } })).status).toBe(422);
  });
});
