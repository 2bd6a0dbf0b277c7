import { beforeEach, describe, expect, it } from 'vitest';
import { call, resetSeed, useEmulator } from './helpers.js';

const emulator = useEmulator();

describe('emulator core: seed, keys, account, calls', () => {
  beforeEach(async () => {
    await resetSeed(emulator());
  });

  it('starts on a real port and answers the seed of the contract', async () => {
    const emu = emulator();
    expect(emu.url).toBe(`http://127.0.0.1:${emu.port}`);
    expect(emu.port).toBeGreaterThan(0);
    const seed = await resetSeed(emu);
    expect(seed.org_name).toBe('Acme');
    expect(seed.org_id).toMatch(/^org_/);
    expect(seed.admin).toEqual({ email: 'admin@acme.test', password: 'acme-admin' });
    expect(seed.keys.test).toMatch(/^svc_test_/);
    expect(seed.keys.live).toMatch(/^svc_live_/);
    expect(seed.cli_client_id).toBe('svc_app_cli');
    expect(emu.seed).toEqual(seed);
  });

  it('keeps only a sha256 of each key, never the key itself', async () => {
    const emu = emulator();
    const dump = JSON.stringify([...emu.state.keys.values()]);
    expect(dump).not.toContain(emu.seed.keys.test);
    expect(dump).not.toContain(emu.seed.keys.live);
    expect([...emu.state.keys.values()].every((k) => /^[0-9a-f]{64}$/.test(k.hash))).toBe(true);
  });

  it('accepts a key as Bearer or as X-Api-Key', async () => {
    const emu = emulator();
    const bearer = await call(emu, 'GET', '/v1/account', { key: emu.seed.keys.test });
    expect(bearer.status).toBe(200);
    expect(bearer.body).toMatchObject({ object: 'account', id: emu.seed.org_id, name: 'Acme', livemode: false });
    expect(bearer.body.credential.type).toBe('api_key');
    expect(bearer.body.credential.key_id).toMatch(/^key_/);
    expect(bearer.body.credential.scopes).toHaveLength(7);
    const header = await call(emu, 'GET', '/v1/account', { headers: { 'x-api-key': emu.seed.keys.live } });
    expect(header.status).toBe(200);
    expect(header.body.livemode).toBe(true);
  });

  it('answers 401 with a detail for a missing or unknown credential', async () => {
    const emu = emulator();
    const none = await call(emu, 'GET', '/v1/account');
    expect(none.status).toBe(401);
    expect(typeof none.body.detail).toBe('string');
    expect((await call(emu, 'GET', '/v1/account', { key: 'svc_test_nope' })).status).toBe(401);
    expect((await call(emu, 'GET', '/v1/account', { key: 'garbage' })).status).toBe(401);
  });

  it('a revoked key answers 401 at once', async () => {
    const emu = emulator();
    const made = await call(emu, 'POST', `/_emulator/orgs/${emu.seed.org_id}/keys`, { json: { mode: 'test' } });
    expect(made.status).toBe(201);
    expect((await call(emu, 'GET', '/v1/account', { key: made.body.key })).status).toBe(200);
    expect((await call(emu, 'DELETE', `/_emulator/orgs/${emu.seed.org_id}/keys/${made.body.id}`)).status).toBe(200);
    expect((await call(emu, 'GET', '/v1/account', { key: made.body.key })).status).toBe(401);
  });

  it('a key without the scope answers 403 naming the scope', async () => {
    const emu = emulator();
    const made = await call(emu, 'POST', `/_emulator/orgs/${emu.seed.org_id}/keys`, { json: { mode: 'test', scopes: ['calls:read'] } });
    const answer = await call(emu, 'GET', '/v1/account', { key: made.body.key });
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ detail: 'this key or app lacks the account:read scope' });
    expect((await call(emu, 'GET', '/v1/calls', { key: made.body.key })).status).toBe(200);
    const write = await call(emu, 'POST', '/v1/calls', { key: made.body.key, json: { languages: ['en', 'es'] } });
    expect(write.body).toEqual({ detail: 'this key or app lacks the calls:write scope' });
  });

  it('starts, lists, reads and ends calls', async () => {
    const emu = emulator();
    const key = emu.seed.keys.test;
    const started = await call(emu, 'POST', '/v1/calls', { key, json: { languages: ['EN', 'es-mx'], title: 'Intake' } });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ object: 'call', status: 'active', languages: ['en', 'es-MX'], title: 'Intake', livemode: false });
    expect(started.body.id).toMatch(/^call_/);
    expect(started.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const read = await call(emu, 'GET', `/v1/calls/${started.body.id}`, { key });
    expect(read.body).toEqual(started.body);
    const list = await call(emu, 'GET', '/v1/calls', { key });
    expect(list.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect(list.body.data.map((c: any) => c.id)).toEqual([started.body.id]);
    const ended = await call(emu, 'POST', `/v1/calls/${started.body.id}/end`, { key });
    expect(ended.body.status).toBe('ended');
    expect((await call(emu, 'GET', '/v1/calls?status=active', { key })).body.data).toEqual([]);
    expect((await call(emu, 'GET', '/v1/calls?status=ended', { key })).body.data).toHaveLength(1);
  });

  it('lists newest first with limit, opaque cursor, has_more and next_cursor', async () => {
    const emu = emulator();
    const key = emu.seed.keys.test;
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      ids.push((await call(emu, 'POST', '/v1/calls', { key, json: { languages: ['en', 'fr'] } })).body.id);
    }
    const first = await call(emu, 'GET', '/v1/calls', { key });
    expect(first.body.data).toHaveLength(20);
    expect(first.body.has_more).toBe(true);
    expect(first.body.data[0].id).toBe(ids[24]);
    const second = await call(emu, 'GET', `/v1/calls?cursor=${first.body.next_cursor}`, { key });
    expect(second.body.data.map((c: any) => c.id)).toEqual(ids.slice(0, 5).reverse());
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    const small = await call(emu, 'GET', '/v1/calls?limit=100', { key });
    expect(small.body.data).toHaveLength(25);
    for (const bad of ['limit=0', 'limit=101', 'limit=abc', 'cursor=zzz']) {
      const answer = await call(emu, 'GET', `/v1/calls?${bad}`, { key });
      expect(answer.status, bad).toBe(422);
      expect(answer.body.detail[0].loc[0]).toBe('query');
    }
  });
});
