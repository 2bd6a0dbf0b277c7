// `svc emulator --state FILE`, `--export`, `--import` (issue 13), in process over real HTTP:
// a restart on the same file keeps the whole world (compared as export documents) and every
// credential; a second emulator on the file is refused; a corrupt file is reported and left
// as it is; an incomplete last record (a write a crash cut short) is dropped and kept aside.
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportStateFile, startEmulator, StateFileError, InvalidDocumentError } from '../../src/emulator/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { call, exchange, authorizeViaApproval, openAuthorizePage, openStream } from './helpers.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-emu-state-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The world as the control plane exports it, minus the moment of export. */
async function world(emu: RunningEmulator): Promise<Record<string, unknown>> {
  const { exported_at: _at, ...doc } = (await call(emu, 'GET', '/_emulator/state')).body;
  return doc;
}

/** Touches every kind of record: orgs, admins, keys, apps, OAuth connections, codes, tokens, balances, resources, events, clock. */
async function busyDay(emu: RunningEmulator) {
  const seed = emu.seed;
  const test = seed.keys.test;
  const live = seed.keys.live;
  const org = (await call(emu, 'POST', '/_emulator/orgs', { json: { name: 'Globex', balance: 500 } })).body;
  const extraKey = (await call(emu, 'POST', `/_emulator/orgs/${org.id}/keys`, { json: { mode: 'test', scopes: ['calls:read'] } })).body;
  const revoked = (await call(emu, 'POST', `/_emulator/orgs/${seed.org_id}/keys`, { json: { mode: 'live' } })).body;
  await call(emu, 'DELETE', `/_emulator/orgs/${seed.org_id}/keys/${revoked.id}`);
  const app = (await call(emu, 'POST', '/_emulator/apps', { json: { name: 'Partner', redirect_uris: ['https://partner.example/cb'] } })).body;
  const auth = await authorizeViaApproval(emu);
  const tokens = (await exchange(emu, auth.location.searchParams.get('code')!, auth.verifier, auth.redirectUri)).body;
  const call1 = (await call(emu, 'POST', '/v1/calls', { key: live, json: { languages: ['en', 'es'], title: 'kept' } })).body;
  await call(emu, 'POST', `/v1/calls/${call1.id}/end`, { key: live });
  const chat = (await call(emu, 'POST', '/v1/chats', { key: test, json: { language: 'en' } })).body;
  const message = (await call(emu, 'POST', `/v1/chats/${chat.id}/messages`, { key: test, json: { text: 'hola', language: 'es' } })).body;
  await call(emu, 'POST', '/v1/links', { key: test, json: { expires_in: 600 } });
  const line = (await call(emu, 'POST', '/v1/lines', { key: live, json: { country: 'US' } })).body;
  await call(emu, 'DELETE', `/v1/lines/${line.id}`, { key: live });
  await call(emu, 'PUT', `/_emulator/orgs/${seed.org_id}/balance`, { json: { available: 4242 } });
  await call(emu, 'POST', '/_emulator/clock', { json: { advance_seconds: 120 } });
  const events = (await call(emu, 'POST', '/_emulator/events', { json: { org_id: seed.org_id, mode: 'test', type: 'call.started', count: 50 } })).body;
  return { seed, org, extraKey, revoked, app, tokens, chat, message, events };
}

describe('--state FILE', () => {
  it('a restart on the same file keeps the whole world, every key, OAuth connection and event', async () => {
    const path = join(dir, 'state.jsonl');
    const first = await startEmulator({ port: 0, statePath: path });
    expect(first.loaded).toMatchObject({ path, loaded: false });
    const day = await busyDay(first);
    const before = await world(first);
    await first.close();

    const second = await startEmulator({ port: 0, statePath: path });
    try {
      expect(second.loaded).toMatchObject({ path, loaded: true, keys: 4, apps: 2 });
      // The keys are hashes in the file: the world has no seed keys to show.
      expect(() => second.seed).toThrow(/shown when they were made/);
      expect(await world(second)).toEqual(before);
      const account = await call(second, 'GET', '/v1/account', { key: day.seed.keys.test });
      expect(account.body).toMatchObject({ id: day.seed.org_id, name: 'Acme' });
      expect((await call(second, 'GET', '/v1/account', { key: day.extraKey.key, headers: {} })).status).toBe(403); // calls:read only: known, scoped
      expect((await call(second, 'GET', '/v1/balance', { key: day.seed.keys.live })).body.available).toBe(4242);
      // The OAuth connection: its access token works, and its refresh token rotates.
      expect((await call(second, 'GET', '/v1/account', { key: day.tokens.access_token })).status).toBe(200);
      const refreshed = await call(second, 'POST', '/oauth2/token', {
        body: `grant_type=refresh_token&client_id=svc_app_cli&refresh_token=${day.tokens.refresh_token}`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(refreshed.status).toBe(200);
      // A stream resumes from an event seen before the restart, with no gap.
      const stream = await openStream(`${second.url}/v1/events/stream`, day.seed.keys.test, { 'last-event-id': day.events.first_id });
      await stream.waitFor(() => stream.messages.at(-1)?.id === day.events.last_id);
      expect(stream.messages.map((m) => m.event)).not.toContain('gap');
      expect(stream.messages).toHaveLength(49);
      stream.close();
      // New ids keep counting up from where the first run stopped.
      const next = (await call(second, 'POST', '/_emulator/events', { json: { org_id: day.seed.org_id, mode: 'test', type: 'call.ended', count: 1 } })).body;
      expect(next.first_id > day.events.last_id).toBe(true);
    } finally {
      await second.close();
    }
  }, 60_000);

  it('a clock move alone is kept (time never runs back across a restart)', async () => {
    const path = join(dir, 'state.jsonl');
    const first = await startEmulator({ port: 0, statePath: path });
    expect((await call(first, 'POST', '/_emulator/clock', { json: { advance_seconds: 86_400 * 30 } })).status).toBe(200);
    await first.close();
    const second = await startEmulator({ port: 0, statePath: path });
    try {
      expect(second.clock.offsetMs()).toBeGreaterThanOrEqual(86_400 * 30 * 1000);
    } finally {
      await second.close();
    }
  });

  it('a reset is kept too: after a restart the old keys are gone and the new seed works', async () => {
    const path = join(dir, 'state.jsonl');
    const first = await startEmulator({ port: 0, statePath: path });
    const old = first.seed.keys.test;
    const fresh = (await call(first, 'POST', '/_emulator/reset')).body;
    await first.close();
    const second = await startEmulator({ port: 0, statePath: path });
    try {
      expect((await call(second, 'GET', '/v1/account', { key: old })).status).toBe(401);
      expect((await call(second, 'GET', '/v1/account', { key: fresh.keys.test })).status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it("a create's Idempotency-Key is kept: sent again after a restart it answers the same call and bills nothing; one never answered is handled anew", async () => {
    const path = join(dir, 'state.jsonl');
    const first = await startEmulator({ port: 0, statePath: path });
    const { live } = first.seed.keys;
    const send = (emu: RunningEmulator, key: string) =>
      call(emu, 'POST', '/v1/calls', { key: live, json: { languages: ['en', 'es'] }, headers: { 'idempotency-key': key } });
    const made = await send(first, 'k-kept');
    expect(made.status).toBe(201);
    const balance = (await call(first, 'GET', '/v1/balance', { key: live })).body.available;
    await first.close();
    // The file as a stop in the middle of a request leaves it: that request's key written, with no answer.
    const kept = readFileSync(path, 'utf8')
      .split('\n')
      .map((line) => (line ? (JSON.parse(line) as { put?: string; row?: { id: string; answer?: unknown } }) : {}))
      .find((line) => line.put === 'idempotency_keys' && line.row?.answer)!;
    const { answer: _answer, ...pending } = { ...kept.row!, id: kept.row!.id.replace(/k-kept$/, 'k-pending') };
    appendFileSync(path, `${JSON.stringify({ put: 'idempotency_keys', row: pending })}\n`);

    const second = await startEmulator({ port: 0, statePath: path });
    try {
      const again = await send(second, 'k-kept');
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(made.body);
      expect((await call(second, 'GET', '/v1/balance', { key: live })).body.available).toBe(balance);
      // Never answered: not "still being handled" (409) for 24 hours, but made now, once.
      const anew = await send(second, 'k-pending');
      expect(anew.status).toBe(201);
      expect(anew.body.id).not.toBe(made.body.id);
      expect((await send(second, 'k-pending')).body.id).toBe(anew.body.id);
      const calls = (await call(second, 'GET', '/v1/calls', { key: live })).body.data as Array<{ id: string }>;
      expect(calls.map((c) => c.id).sort()).toEqual([made.body.id, anew.body.id].sort());
    } finally {
      await second.close();
    }
  });

  it('refuses a file another emulator holds, and takes over the lock of one that is gone', async () => {
    const path = join(dir, 'state.jsonl');
    const first = await startEmulator({ port: 0, statePath: path });
    try {
      const refused = await startEmulator({ port: 0, statePath: path }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(StateFileError);
      expect((refused as Error).message).toContain(path);
      expect((refused as Error).message).toContain(`pid ${process.pid}`);
    } finally {
      await first.close();
    }
    // A lock left by a process that no longer exists (a kill -9) does not block a restart.
    writeFileSync(`${path}.lock`, '999999999\n');
    const again = await startEmulator({ port: 0, statePath: path });
    await again.close();
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('a corrupt file is reported with its path and line and is never written', async () => {
    const path = join(dir, 'state.jsonl');
    const first = await startEmulator({ port: 0, statePath: path });
    await call(first, 'POST', '/v1/calls', { key: first.seed.keys.test, json: { languages: ['en', 'es'] } });
    await first.close();
    const lines = readFileSync(path, 'utf8').split('\n');
    const corrupt = [lines[0], '{"put":"calls","row":{"nonsense":true}}', ''].join('\n');
    for (const text of [
      corrupt,
      'not json at all\n',
      '',
      '{"svc_emulator_state":1,"snapshot":{"format":"svc-emulator-state","version":1,"orgs":[{"id":"org_1"}]}}\n',
    ]) {
      writeFileSync(path, text);
      const error = await startEmulator({ port: 0, statePath: path }).catch((e: unknown) => e);
      expect(error, text.slice(0, 40)).toBeInstanceOf(StateFileError);
      expect((error as Error).message).toContain(path);
      expect(readFileSync(path, 'utf8')).toBe(text);
      expect(existsSync(`${path}.lock`)).toBe(false);
    }
    expect((await startEmulator({ port: 0, statePath: path }).catch((e: Error) => e.message)) as string).toMatch(/corrupt at line 1/);
  });

  it('an incomplete last record (a write cut short by a crash) is dropped, reported, and the file as it was kept aside', async () => {
    const path = join(dir, 'state.jsonl');
    const first = await startEmulator({ port: 0, statePath: path });
    const key = first.seed.keys.test;
    const made = (await call(first, 'POST', '/v1/calls', { key, json: { languages: ['en', 'es'] } })).body;
    await first.close();
    appendFileSync(path, '{"put":"calls","row":{"org_id":"org_x","se');
    const torn = readFileSync(path, 'utf8');
    const second = await startEmulator({ port: 0, statePath: path });
    try {
      expect(second.loaded!.notices.join('\n')).toMatch(/incomplete last record/);
      expect(readFileSync(`${path}.torn`, 'utf8')).toBe(torn);
      expect((await call(second, 'GET', `/v1/calls/${made.id}`, { key })).status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('stays bounded: restarting compacts the journal into one snapshot line', async () => {
    const path = join(dir, 'state.jsonl');
    const first = await startEmulator({ port: 0, statePath: path });
    for (let i = 0; i < 20; i++) await call(first, 'POST', '/v1/chats', { key: first.seed.keys.test, json: { language: 'en' } });
    expect(readFileSync(path, 'utf8').trim().split('\n').length).toBeGreaterThan(20);
    await first.close();
    const second = await startEmulator({ port: 0, statePath: path });
    await second.close();
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(1);
  });
});

describe('--export and --import', () => {
  it('exports a readable document, and a fixture imports with plaintext keys hashed on the way in', async () => {
    const path = join(dir, 'state.jsonl');
    const first = await startEmulator({ port: 0, statePath: path });
    const chat = (await call(first, 'POST', '/v1/chats', { key: first.seed.keys.test, json: { language: 'en', subject: 'fixture' } })).body;
    const orgId = first.seed.org_id;
    await first.close();
    const out = join(dir, 'fixture.json');
    const summary = exportStateFile(path, out);
    expect(summary.orgs).toEqual([{ id: orgId, name: 'Acme' }]);
    const text = readFileSync(out, 'utf8');
    expect(text).toContain('\n  "orgs": [');
    const doc = JSON.parse(text);
    expect(doc).toMatchObject({ format: 'svc-emulator-state', version: 2 });
    expect(doc.chats[0].obj).toMatchObject({ id: chat.id, subject: 'fixture' });
    expect(text).not.toMatch(/svc_test_[A-Za-z0-9_-]{20}/); // keys only as hashes

    // A team's fixture: add a key written by hand, in plaintext.
    doc.keys.push({ id: 'key_fixture', org_id: orgId, mode: 'test', scopes: ['account:read'], key: 'svc_test_fixture-key-for-ci' });
    // A balance finer than a cent (exact to 1/10,000 of one) is read and written back as it was.
    doc.orgs[0].balance = 9999.958;
    const imported = await startEmulator({ port: 0, importDocument: doc });
    try {
      expect((await call(imported, 'GET', '/_emulator/state')).body.orgs[0].balance).toBe(9999.958);
      expect(imported.loaded).toMatchObject({ imported: true, keys: 3 });
      expect((await call(imported, 'GET', '/v1/account', { key: 'svc_test_fixture-key-for-ci' })).body.id).toBe(orgId);
      expect((await call(imported, 'GET', `/v1/chats/${chat.id}`, { key: 'svc_test_fixture-key-for-ci' })).status).toBe(403);
      expect(JSON.stringify((await call(imported, 'GET', '/_emulator/state')).body)).not.toContain('fixture-key-for-ci');
    } finally {
      await imported.close();
    }
  });

  it('never exports an admin password in clear, yet the admin signs in after an import, from an old plaintext document too', async () => {
    const first = await startEmulator({ port: 0 });
    let doc: Record<string, any>;
    try {
      const globex = (await call(first, 'POST', '/_emulator/orgs', { json: { name: 'Globex', admin_email: 'ops@globex.test' } })).body;
      const fromControlPlane = JSON.stringify((await call(first, 'GET', '/_emulator/state')).body);
      const fromDashboard = await (await fetch(`${first.url}/_dashboard/export`, { headers: { 'sec-fetch-site': 'same-origin' } })).text();
      for (const text of [fromControlPlane, fromDashboard]) {
        expect(text).not.toContain('acme-admin');
        expect(text).not.toContain(globex.admin.password);
      }
      doc = JSON.parse(fromControlPlane);
    } finally {
      await first.close();
    }
    const signsIn = async (emu: RunningEmulator, password: string) => {
      const page = await openAuthorizePage(emu);
      return (await page.post('/oauth/authorize/signin', { csrf: page.csrf, request: page.request, email: 'admin@acme.test', password })).status;
    };
    // A document written before passwords were hashed carries `password` in clear: it still imports.
    const old = { ...doc, users: doc.users.map((u: Record<string, unknown>) => ({ email: u.email, password: 'acme-admin', orgs: u.orgs })) };
    for (const input of [doc, old]) {
      const imported = await startEmulator({ port: 0, importDocument: input });
      try {
        expect(await signsIn(imported, 'acme-admin')).toBe(200);
        expect(await signsIn(imported, 'wrong-password')).toBe(401);
        expect(JSON.stringify((await call(imported, 'GET', '/_emulator/state')).body)).not.toContain('acme-admin');
      } finally {
        await imported.close();
      }
    }
  });

  it('refuses an invalid document with the path of the problem, and an import over an existing state file', async () => {
    const bad = await startEmulator({
      port: 0,
      importDocument: { format: 'svc-emulator-state', version: 1, orgs: [{ id: 'org_1', name: 'x', balance: -1 }] },
    }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(InvalidDocumentError);
    expect((bad as Error).message).toMatch(/orgs\.0\.balance/);
    const path = join(dir, 'state.jsonl');
    writeFileSync(path, 'anything\n');
    const refused = await startEmulator({ port: 0, statePath: path, importDocument: { format: 'svc-emulator-state', version: 1 } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StateFileError);
    expect(readFileSync(path, 'utf8')).toBe('anything\n');
  });
});
