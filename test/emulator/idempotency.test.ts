// Idempotent creates (docs/contract.md "Conventions"): a create sent again with its
// Idempotency-Key makes and bills nothing more and answers what the first made; another body
// with the key is 422; the key while its first request is still handled is 409; a request
// whose answer is held (an injected delay) has already acted, and its key tells what.
import { beforeEach, describe, expect, it } from 'vitest';
import { call, resetSeed, useEmulator } from './helpers.js';

const emulator = useEmulator();

const balance = async (key: string) => (await call(emulator(), 'GET', '/v1/balance', { key })).body.available as number;
const calls = async (key: string) => (await call(emulator(), 'GET', '/v1/calls', { key })).body.data as Array<{ id: string }>;

describe('idempotent creates', () => {
  beforeEach(async () => {
    await resetSeed(emulator());
  });

  it('the same key answers the same call again, draws nothing more, and says it is a replay', async () => {
    const { live } = emulator().seed.keys;
    const before = await balance(live);
    const send = () => call(emulator(), 'POST', '/v1/calls', { key: live, json: { languages: ['en', 'es'] }, headers: { 'idempotency-key': 'k-1' } });
    const first = await send();
    const again = await send();
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await calls(live)).map((c) => c.id)).toEqual([first.body.id]);
    expect(before - (await balance(live))).toBeCloseTo(2, 6);
  });

  it('another body with the key is 422 and makes nothing; without a key each request makes its own', async () => {
    const { test } = emulator().seed.keys;
    const headers = { 'idempotency-key': 'k-2' };
    expect((await call(emulator(), 'POST', '/v1/calls', { key: test, json: { languages: ['en', 'es'] }, headers })).status).toBe(201);
    const other = await call(emulator(), 'POST', '/v1/calls', { key: test, json: { languages: ['en', 'fr'] }, headers });
    expect(other.status).toBe(422);
    expect(JSON.stringify(other.body)).toContain('this Idempotency-Key was used with another request');
    await call(emulator(), 'POST', '/v1/calls', { key: test, json: { languages: ['en', 'es'] } });
    await call(emulator(), 'POST', '/v1/calls', { key: test, json: { languages: ['en', 'es'] } });
    expect(await calls(test)).toHaveLength(3);
  });

  it('a key is the credential’s own: another key with the same Idempotency-Key makes its own call', async () => {
    const emu = emulator();
    const headers = { 'idempotency-key': 'shared' };
    const a = await call(emu, 'POST', '/v1/calls', { key: emu.seed.keys.test, json: { languages: ['en', 'es'] }, headers });
    const b = await call(emu, 'POST', '/v1/calls', { key: emu.seed.keys.live, json: { languages: ['en', 'es'] }, headers });
    expect(a.body.id).not.toBe(b.body.id);
  });

  it('a key that is not printable ASCII is 422', async () => {
    const { test } = emulator().seed.keys;
    for (const key of ['', 'caf\u00e9', 'x'.repeat(256)]) {
      const answer = await call(emulator(), 'POST', '/v1/calls', { key: test, json: { languages: ['en', 'es'] }, headers: { 'idempotency-key': key } });
      expect(answer.status, JSON.stringify(key)).toBe(422);
    }
    expect(await calls(test)).toHaveLength(0);
  });

  it('an answer held by a delay: the call was made already, the key asked again answers it, and a 502 is not kept', async () => {
    const emu = emulator();
    const { test } = emu.seed.keys;
    const res = await fetch(`${emu.url}/_emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ path_prefix: '/v1/calls', delay_ms: 1500, count: 1 }),
    });
    expect(res.status).toBe(201);
    const headers = { 'idempotency-key': 'held' };
    const held = call(emu, 'POST', '/v1/calls', { key: test, json: { languages: ['en', 'es'] }, headers });
    let made: Array<{ id: string }> = [];
    for (let i = 0; i < 100 && made.length === 0; i++) made = await calls(test);
    expect(made).toHaveLength(1);
    const asked = await call(emu, 'POST', '/v1/calls', { key: test, json: { languages: ['en', 'es'] }, headers });
    expect(asked.body.id).toBe(made[0]!.id);
    expect((await held).body.id).toBe(made[0]!.id);
    await fetch(`${emu.url}/_emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ path_prefix: '/v1/translate', status: 502, count: 1 }),
    });
    const translate = { key: test, json: { text: 'hi', to: 'es' }, headers: { 'idempotency-key': 't' } };
    expect((await call(emu, 'POST', '/v1/translate', translate)).status).toBe(502);
    expect((await call(emu, 'POST', '/v1/translate', translate)).status).toBe(200);
  });
});
