// Every query is strict (unknown or repeated scalar parameters are 422), and bodiless operations refuse a body.
import { beforeEach, describe, expect, it } from 'vitest';
import { call, resetSeed, useEmulator } from './helpers.js';
import type { Answer } from './helpers.js';

const emulator = useEmulator();

function expectExtraQuery(answer: Answer, name = 'foo') {
  expect(answer.status).toBe(422);
  expect(answer.body.detail).toEqual([{ loc: ['query', name], msg: expect.any(String), type: 'extra_forbidden' }]);
}

describe('strict queries and bodiless operations', () => {
  beforeEach(async () => {
    await resetSeed(emulator());
  });

  it('an unknown query parameter is 422 extra_forbidden on every route, including those that take no query', async () => {
    const emu = emulator();
    const key = emu.seed.keys.test;
    const callObj = (await call(emu, 'POST', '/v1/calls', { key, json: { languages: ['en', 'es'] } })).body;
    const chat = (await call(emu, 'POST', '/v1/chats', { key, json: { language: 'en' } })).body;
    const line = (await call(emu, 'POST', '/v1/lines', { key, json: { country: 'US' } })).body;
    const routes: [string, string, { json?: unknown; body?: string; headers?: Record<string, string> }?][] = [
      ['GET', '/v1/account'],
      ['GET', '/v1/balance'],
      ['GET', '/v1/prices'],
      ['GET', '/v1/calls'],
      ['GET', `/v1/calls/${callObj.id}`],
      ['POST', '/v1/calls', { json: { languages: ['en', 'es'] } }],
      ['POST', `/v1/calls/${callObj.id}/end`],
      ['POST', `/v1/calls/${callObj.id}/dial`, { json: { to: '+14155550100' } }],
      ['GET', '/v1/links'],
      ['POST', '/v1/links', { json: {} }],
      ['GET', '/v1/lines'],
      ['POST', '/v1/lines', { json: { country: 'US' } }],
      ['DELETE', `/v1/lines/${line.id}`],
      ['GET', '/v1/chats'],
      ['GET', `/v1/chats/${chat.id}`],
      ['POST', '/v1/chats', { json: { language: 'en' } }],
      ['POST', `/v1/chats/${chat.id}/close`],
      ['GET', `/v1/chats/${chat.id}/messages`],
      ['POST', `/v1/chats/${chat.id}/messages`, { json: { text: 'hi' } }],
      ['POST', `/v1/chats/${chat.id}/voice`, { body: 'OggS', headers: { 'content-type': 'audio/ogg' } }],
      ['GET', `/v1/chats/${chat.id}/stream`],
      ['POST', '/v1/translate', { json: { text: 'hi', to: 'es' } }],
      ['GET', '/v1/events'],
      ['GET', '/v1/events/stream'],
    ];
    for (const [method, path, opts] of routes) {
      const answer = await call(emu, method, `${path}?foo=1`, { key, ...opts });
      expect(answer.status, `${method} ${path}`).toBe(422);
      expectExtraQuery(answer);
    }
    // Nothing was carried out: the call is still active, the chat open, the line active, one of each.
    expect((await call(emu, 'GET', `/v1/calls/${callObj.id}`, { key })).body.status).toBe('active');
    expect((await call(emu, 'GET', `/v1/chats/${chat.id}`, { key })).body.status).toBe('open');
    expect((await call(emu, 'GET', '/v1/lines', { key })).body.data).toMatchObject([{ id: line.id, status: 'active' }]);
    expect((await call(emu, 'GET', '/v1/calls', { key })).body.data).toHaveLength(1);
    expect((await call(emu, 'GET', `/v1/chats/${chat.id}/messages`, { key })).body.data).toEqual([]);
  });

  it('a repeated parameter that takes one value is 422, a repeatable one (type) is fine', async () => {
    const emu = emulator();
    const key = emu.seed.keys.test;
    for (const path of ['/v1/calls?limit=1&limit=abc', '/v1/calls?limit=1&limit=2', '/v1/chats?status=open&status=closed', '/v1/events?limit=5&limit=5']) {
      const answer = await call(emu, 'GET', path, { key });
      expect(answer.status, path).toBe(422);
      const name = new URLSearchParams(path.split('?')[1]).keys().next().value;
      expect(answer.body.detail[0], path).toMatchObject({ loc: ['query', name], type: 'value_error' });
    }
    expect((await call(emu, 'GET', '/v1/events?type=call&type=chat', { key })).status).toBe(200);
    expect((await call(emu, 'GET', '/v1/calls?limit=1', { key })).status).toBe(200);
  });

  it('a non-empty body on a bodiless POST or DELETE is 422 at ["body"]; an empty body or {} is accepted', async () => {
    const emu = emulator();
    const key = emu.seed.keys.test;
    const newCall = async () => (await call(emu, 'POST', '/v1/calls', { key, json: { languages: ['en', 'es'] } })).body.id;
    const newChat = async () => (await call(emu, 'POST', '/v1/chats', { key, json: { language: 'en' } })).body.id;
    const newLine = async () => (await call(emu, 'POST', '/v1/lines', { key, json: { country: 'US' } })).body.id;
    const ops: [string, (id: string) => string, () => Promise<string>, string][] = [
      ['POST', (id) => `/v1/calls/${id}/end`, newCall, 'ended'],
      ['POST', (id) => `/v1/chats/${id}/close`, newChat, 'closed'],
      ['DELETE', (id) => `/v1/lines/${id}`, newLine, 'released'],
    ];
    for (const [method, path, make, done] of ops) {
      const id = await make();
      for (const bad of [
        { json: { bogus: 1 } },
        { json: [] },
        { body: 'reason=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
        { body: '{', headers: { 'content-type': 'application/json' } },
      ]) {
        const answer = await call(emu, method, path(id), { key, ...bad });
        expect(answer.status, `${method} ${path(id)} ${JSON.stringify(bad)}`).toBe(422);
        expect(answer.body.detail).toEqual([{ loc: ['body'], msg: 'this operation takes no body', type: 'extra_forbidden' }]);
      }
      // Refused means not carried out.
      expect(
        (await call(emu, 'GET', '/v1/events?limit=100', { key })).body.data.filter((e: any) => e.data.id === id && /ended|closed|released/.test(e.type)),
      ).toEqual([]);
      const ok = await call(emu, method, path(id), { key });
      expect(ok.status).toBe(200);
      expect(ok.body.status).toBe(done);
      const other = await make();
      expect((await call(emu, method, path(other), { key, json: {} })).status).toBe(200);
    }
  });
});
