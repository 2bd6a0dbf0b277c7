// The dashboard's server side without a browser (the browser suite is test/real/dashboard.test.ts):
// its guards, what the Requests page keeps (bounded, no secrets), and that an open dashboard
// stays bounded under 100,000 events and many times more requests than it keeps. The bounds are
// structural (a ring of REQUEST_LOG_SIZE entries with capped bodies, pages of PAGE_ROWS rows, one
// gathered change message), so five ring-fulls of requests show what 100,000 would: each request
// through the whole app costs about half a millisecond here, too slow for 100,000 in a unit test.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { advancingClock } from '../../src/emulator/clock.js';
import { BODY_CHARS, REQUEST_LOG_SIZE, RequestLog, redactBody } from '../../src/emulator/dashboard/requests.js';
import { PAGE_ROWS } from '../../src/emulator/dashboard/parts.js';
import { createApp } from '../../src/emulator/server.js';
import { createState } from '../../src/emulator/state.js';
import { sha256 } from '../../src/emulator/ids.js';
import type { TestEmulator } from '../helpers/emulator.js';
import { testEmulator } from '../helpers/emulator.js';
import { runCli } from '../helpers/cli.js';

/** A dashboard session as a browser has it: its cookie and the CSRF token of its pages. */
async function session(url: string, page = '/keys') {
  const answer = await fetch(`${url}${page}`);
  const cookie = answer.headers.get('set-cookie')!.split(';')[0]!;
  const html = await answer.text();
  return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(html)![1]!, html };
}

function post(url: string, path: string, fields: Record<string, string>, headers: Record<string, string>) {
  return fetch(`${url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields),
  });
}

describe('the dashboard over http', () => {
  let t: TestEmulator;
  beforeAll(async () => {
    t = await testEmulator();
  });
  afterAll(() => t.emulator.close());

  it('serves its pages at the root URL; an action is a same-origin POST with the session token, anything else 403 and no change', async () => {
    const { cookie, csrf, html } = await session(t.url);
    expect(html).toContain('<nav aria-label="Dashboard">');
    const key = [...t.emulator.state.keys.values()].find((k) => k.mode === 'test')!;
    const action = `/_dashboard/keys/${key.id}/revoke`;
    const refusals: { csrf?: string; mode: string; headers: Record<string, string> }[] = [
      { csrf, mode: 'test', headers: { cookie, origin: 'http://evil.test' } },
      { csrf, mode: 'test', headers: { cookie, 'sec-fetch-site': 'cross-site' } },
      { csrf, mode: 'test', headers: { cookie, origin: `http://127.0.0.1:${t.emulator.port + 1}` } },
      { csrf: 'x'.repeat(csrf.length), mode: 'test', headers: { cookie, origin: t.url } },
      { csrf, mode: 'test', headers: { origin: t.url } },
      { mode: 'test', headers: { cookie, origin: t.url } },
    ];
    for (const { headers, ...fields } of refusals) {
      const answer = await post(t.url, action, fields as Record<string, string>, headers);
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(key.revoked).toBe(false);
    }
    const done = await post(t.url, action, { csrf, mode: 'test' }, { cookie, origin: t.url, 'sec-fetch-site': 'same-origin' });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toMatch(/^\/keys\?mode=test&notice=Revoked/);
    expect(key.revoked).toBe(true);
    const account = await fetch(`${t.url}/v1/account`, { headers: { authorization: `Bearer ${t.seed.keys.test}` } });
    expect(account.status).toBe(401);
  });

  it('answers only loopback Host names (421) and is never failed by an injected fault', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${t.url}/keys`, { headers: { host: 'evil.test' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject).end();
    });
    expect(status).toBe(421);
    await t.control('POST', '/faults', { path_prefix: '/', status: 502, count: 5 });
    for (const path of ['/', '/keys', '/requests', '/_dashboard/app.js']) expect((await fetch(`${t.url}${path}`)).status, path).toBe(200);
    expect((await fetch(`${t.url}/v1/account`)).status).toBe(502);
    await t.control('POST', '/reset');
  });

  it('shows money as the CLI does: dollars, exactly (a price of 0.002 cents is $0.00002)', async () => {
    const { cookie, csrf, html } = await session(t.url, '/');
    expect(html).toContain('<td>translation character</td><td>$0.00002</td>');
    expect(html).toContain('<td>call minute</td><td>$0.02</td>');
    expect(html).toContain('<strong>$100.00</strong>');
    // Edited in dollars, as shown.
    expect(html).toContain('in dollars</label>');
    expect(html).toMatch(/name="available"[^>]* value="100.00"/);
    const saved = await post(t.url, `/_dashboard/orgs/${t.seed.org_id}/balance`, { csrf, mode: 'test', available: '12.34' }, { cookie, origin: t.url });
    expect(saved.status).toBe(303);
    expect(new URL(saved.headers.get('location')!, t.url).searchParams.get('notice')).toBe('The balance of Acme is now $12.34.');
    expect(await (await fetch(`${t.url}/`)).text()).toContain('<strong>$12.34</strong>');
    // The smallest amount kept is $0.000001 (1/10,000 cent): a finer one is refused, not rounded, and the value typed stays.
    const exact = await post(t.url, `/_dashboard/orgs/${t.seed.org_id}/balance`, { csrf, mode: 'test', available: '0.000001' }, { cookie, origin: t.url });
    expect(exact.status).toBe(303);
    expect(new URL(exact.headers.get('location')!, t.url).searchParams.get('notice')).toBe('The balance of Acme is now $0.000001.');
    const finer = await post(t.url, `/_dashboard/orgs/${t.seed.org_id}/balance`, { csrf, mode: 'test', available: '0.0000001' }, { cookie, origin: t.url });
    expect(finer.status).toBe(422);
    const refused = await finer.text();
    expect(refused).toContain('Balance: at most 6 decimal places');
    expect(refused).toMatch(/value="0.0000001" aria-invalid="true"/);
    // Finer than that on a whole dollar too ($1.0000001 was once taken as $1.00).
    const finerOnDollar = await post(
      t.url,
      `/_dashboard/orgs/${t.seed.org_id}/balance`,
      { csrf, mode: 'test', available: '1.0000001' },
      { cookie, origin: t.url },
    );
    expect(finerOnDollar.status).toBe(422);
    expect(await finerOnDollar.text()).toContain('Balance: at most 6 decimal places');
    expect(await (await fetch(`${t.url}/`)).text()).toContain('<strong>$0.000001</strong>');
    await t.control('POST', '/reset');
  });

  it('a refused form comes back as a page with every value kept and the error next to its field, never as JSON', async () => {
    const { cookie, csrf } = await session(t.url, '/apps');
    const headers = { cookie, origin: t.url };
    const app = await post(
      t.url,
      '/_dashboard/apps',
      { csrf, mode: 'test', name: 'Kept name', redirect_uris: 'https://ok.test/cb\nhttp://example.test/cb', public: '1' },
      headers,
    );
    expect(app.status).toBe(422);
    expect(app.headers.get('content-type')).toMatch(/text\/html/);
    const html = await app.text();
    expect(html).toMatch(/<dialog id="register-app"[^>]* open=""/);
    expect(html).toMatch(/value="Kept name"/);
    expect(html).toContain('https://ok.test/cb\nhttp://example.test/cb</textarea>');
    expect(html).toMatch(/<p class="field-error" id="[^"]+">Redirect URI 2: https only; http only for localhost<\/p>/);
    expect(html).toMatch(/name="public" value="1" checked=""/);

    const key = await post(t.url, '/_dashboard/keys', { csrf, mode: 'test', org_id: t.seed.org_id, name: 'no scopes', key_mode: 'live' }, headers);
    expect(key.status).toBe(422);
    const keyPage = await key.text();
    expect(keyPage).toContain('Scopes: choose at least one');
    expect(keyPage).toMatch(/value="no scopes"/);
    expect(keyPage).toMatch(/<option value="live" selected="">/);
    expect(keyPage).not.toMatch(/name="scopes" value="[^"]+" checked/);

    const clock = await post(t.url, '/_dashboard/clock', { csrf, mode: 'test', advance_seconds: '999999999999' }, headers);
    expect(clock.status).toBe(422);
    const clockPage = await clock.text();
    expect(clockPage).toMatch(/<p class="field-error" id="[^"]+">Advance by \(seconds\): the clock would pass the year 9999/);
    expect(clockPage).toMatch(/value="999999999999"/);

    // A token from before a restart (any token this emulator did not give): the form again, with a token that holds.
    const stale = await post(
      t.url,
      '/_dashboard/keys',
      { csrf: 'y'.repeat(csrf.length), mode: 'test', org_id: t.seed.org_id, name: 'typed before', scopes: 'translate' },
      headers,
    );
    expect(stale.status).toBe(403);
    const stalePage = await stale.text();
    expect(stalePage).toContain('loaded before the emulator restarted');
    expect(stalePage).toMatch(/value="typed before"/);
    const fresh = /name="csrf" value="([^"]+)"/.exec(stalePage)![1]!;
    const again = await post(
      t.url,
      '/_dashboard/keys',
      { csrf: fresh, mode: 'test', org_id: t.seed.org_id, name: 'typed before', scopes: 'translate' },
      headers,
    );
    expect(again.status).toBe(200);
    expect(await again.text()).toContain('Your new API key');

    // Another site's post, and a post that is not a form: pages too.
    for (const [fields, extra] of [
      [{ csrf }, { origin: 'http://evil.test' }],
      [{ csrf }, { 'content-type': 'application/json' }],
    ] as const) {
      const answer = await post(t.url, '/_dashboard/reset', fields, { ...headers, ...extra });
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.headers.get('content-type'), JSON.stringify(extra)).toMatch(/text\/html/);
    }
  });

  it('a notice in the URL is shown only when the dashboard wrote it; export goes to this dashboard only; words that hold', async () => {
    const forged = await (await fetch(`${t.url}/keys?notice=${encodeURIComponent('Your keys leaked: call +1 555 0100')}`)).text();
    expect(forged).not.toContain('Your keys leaked');
    const { cookie, csrf } = await session(t.url, '/keys');
    const key = [...t.emulator.state.keys.values()].find((k) => k.mode === 'test' && !k.revoked)!;
    const done = await post(t.url, `/_dashboard/keys/${key.id}/revoke`, { csrf, mode: 'test' }, { cookie, origin: t.url });
    const back = await (await fetch(`${t.url}${done.headers.get('location')!}`)).text();
    expect(back).toContain(`Revoked ${key.name ?? key.id}`);
    const tampered = new URL(done.headers.get('location')!, t.url);
    tampered.searchParams.set('notice', 'Something else');
    expect(await (await fetch(tampered)).text()).not.toContain('Something else');

    expect((await fetch(`${t.url}/_dashboard/export`, { headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
    expect((await fetch(`${t.url}/_dashboard/export`, { headers: { 'sec-fetch-site': 'same-site' } })).status).toBe(403);
    expect((await fetch(`${t.url}/_dashboard/export`, { headers: { 'sec-fetch-site': 'same-origin' } })).status).toBe(200);

    const apps = await (await fetch(`${t.url}/apps`)).text();
    expect(apps).toMatch(/data-confirm="Delete svc CLI\?[^"]*svc login stops working/);
    const authorize = await fetch(
      `${t.url}/oauth/authorize?client_id=svc_app_cli&redirect_uri=${encodeURIComponent('http://127.0.0.1:9/callback')}&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256`,
    );
    const cookieSet = authorize.headers.get('set-cookie')!;
    expect(cookieSet).toMatch(new RegExp(`^svc_emulator_session_${t.emulator.port}=`));
    expect(cookieSet).not.toMatch(/; Secure/i);
    await t.control('POST', '/reset');
  });

  it('every svc command the dashboard shows runs against this emulator', async () => {
    const env = { SVC_BASE_URL: t.url, SVC_API_KEY: t.seed.keys.test };
    expect((await runCli(['--test', 'events', 'trigger', 'chat.message.created'], { env })).exitCode).toBe(0);
    const chatId = [...t.emulator.state.chats.keys()].at(-1)!;
    const unescape = (html: string) =>
      html
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&#39;/g, "'")
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&');
    const overview = unescape(/<pre class="commands"[^>]*>([\s\S]*?)<\/pre>/.exec(await (await fetch(`${t.url}/?mode=test`)).text())![1]!);
    const chat = unescape(await (await fetch(`${t.url}/chats/${chatId}?mode=test`)).text());
    const shown = [
      ...overview.split('\n').map((line) => line.replace(/#.*$/, '').trim()),
      ...[...chat.matchAll(/<code>(svc [^<]+)<\/code>/g)].map((m) => m[1]!),
    ].filter((line) => /(^|\s)svc\s/.test(line));
    expect(shown.length).toBeGreaterThanOrEqual(4);
    for (const line of shown) {
      const argv = line.replace(/^.*?\bsvc\s+/, '').split(/\s+/);
      if (argv[0] === 'login') {
        // The sign-in itself runs in the browser suite; here, that the command is svc's.
        expect((await runCli([...argv, '--help'], { env })).exitCode, line).toBe(0);
        continue;
      }
      const streaming = argv.includes('tail') || argv.includes('stream');
      const stop = new AbortController();
      const running = runCli(argv, { env, signal: stop.signal });
      if (streaming) {
        // A stream shows what happens next: one event, then the test stops it as Ctrl-C would.
        // (Several times, spaced, so one lands after the stream is open.)
        for (let i = 0; i < 5; i++) {
          await new Promise((resolve) => setTimeout(resolve, 150));
          if (argv[0] === 'chats') await runCli(['--test', 'chats', 'send', chatId, `hello ${i}`], { env });
          else await runCli(['--test', 'events', 'trigger', 'call.started'], { env });
        }
        stop.abort();
      }
      const result = await running;
      expect(result.stderr, line).not.toMatch(/unknown command|error: /i);
      if (!streaming) expect(result.exitCode, line).toBe(0);
      else expect(result.stdout, line).not.toBe('');
    }
  });

  it('a call link opens a page a person can read; a GB line has a GB number', async () => {
    const headers = { authorization: `Bearer ${t.seed.keys.test}`, 'content-type': 'application/json' };
    const link = (await (await fetch(`${t.url}/v1/links`, { method: 'POST', headers, body: JSON.stringify({ language: 'es' }) })).json()) as {
      url: string;
      id: string;
    };
    const opened = await fetch(link.url);
    expect(opened.status).toBe(200);
    expect(opened.headers.get('content-type')).toMatch(/text\/html/);
    expect(await opened.text()).toContain(`This link (<code>${link.id}</code>) joins a call that is not started yet in es.`);
    const missing = await fetch(`${t.url}/join/link_nothing`);
    expect([missing.status, missing.headers.get('content-type')]).toEqual([404, expect.stringMatching(/text\/html/)]);
    const line = (await (await fetch(`${t.url}/v1/lines`, { method: 'POST', headers, body: JSON.stringify({ country: 'GB' }) })).json()) as { number: string };
    expect(line.number).toMatch(/^\+44207946\d{4}$/);
  });

  it('every list pages back to its oldest row; any object is found by its id; Events filters by object', async () => {
    const headers = { authorization: `Bearer ${t.seed.keys.test}`, 'content-type': 'application/json' };
    const made: string[] = [];
    for (let i = 0; i < PAGE_ROWS + 5; i++) {
      const call = (await (await fetch(`${t.url}/v1/calls`, { method: 'POST', headers, body: JSON.stringify({ languages: ['en', 'es'] }) })).json()) as {
        id: string;
      };
      made.push(call.id);
    }
    const first = await (await fetch(`${t.url}/calls?mode=test`)).text();
    expect(first.match(/<tr data-key="call_/g)).toHaveLength(PAGE_ROWS);
    const older = /<a href="([^"]+)">Older calls<\/a>/.exec(first)![1]!.replace(/&amp;/g, '&');
    const second = await (await fetch(`${t.url}${older}`)).text();
    expect(second).toContain(`data-key="${made[0]}"`);
    expect(second).not.toContain('Older calls');

    const found = await fetch(`${t.url}/_dashboard/find?id=${made[3]}&mode=live`, { redirect: 'manual' });
    expect([found.status, found.headers.get('location')]).toEqual([303, `/calls/${made[3]}?mode=test`]);
    const nothing = await fetch(`${t.url}/_dashboard/find?id=call_nothing`);
    expect(nothing.status).toBe(404);
    expect(await nothing.text()).toContain('Nothing on this emulator has the id call_nothing.');

    const events = await (await fetch(`${t.url}/events?mode=test&object=${made[3]}`)).text();
    expect(events.match(/<li data-key="evt_/g)).toHaveLength(1);
    expect(events).toContain(made[3]);
    expect(events).not.toContain(made[4]);
    await t.control('POST', '/reset');
  });

  it("a call's and a chat's page show their own events and the requests that touched them", async () => {
    const headers = { authorization: `Bearer ${t.seed.keys.test}`, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) =>
      (await (await fetch(`${t.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })).json()) as { id: string };
    const call = await post('/v1/calls', { languages: ['en', 'es'] });
    const other = await post('/v1/calls', { languages: ['en', 'fr'] });
    const chat = await post('/v1/chats', { language: 'en' });
    const callPage = await (await fetch(`${t.url}/calls/${call.id}?mode=test`)).text();
    const section = (html: string, label: string) => new RegExp(`<ol class="log" aria-label="${label}">([\\s\\S]*?)</ol>`).exec(html)?.[1] ?? '';
    expect(section(callPage, 'Events')).toContain('<strong>call.started</strong>');
    expect(section(callPage, 'Events')).not.toContain(other.id);
    expect(section(callPage, 'Requests')).toContain(`<strong>POST</strong> <code>/v1/calls</code>`);
    expect(section(callPage, 'Requests')).not.toContain(other.id);
    const chatPage = await (await fetch(`${t.url}/chats/${chat.id}?mode=test`)).text();
    expect(section(chatPage, 'Events')).toContain('<strong>chat.started</strong>');
    expect(section(chatPage, 'Requests')).toContain(`<strong>POST</strong> <code>/v1/chats</code>`);
  });

  it("a key's page shows the requests it authenticated", async () => {
    const made = await t.control('POST', `/orgs/${t.seed.org_id}/keys`, { mode: 'test' });
    await fetch(`${t.url}/v1/account?by=made`, { headers: { authorization: `Bearer ${made.key}` } });
    await fetch(`${t.url}/v1/account?by=seed`, { headers: { authorization: `Bearer ${t.seed.keys.test}` } });
    expect(await (await fetch(`${t.url}/keys?mode=test`)).text()).toContain(`href="/keys/${made.id}?mode=test"`);
    const page = await (await fetch(`${t.url}/keys/${made.id}?mode=test`)).text();
    const requests = /<ol class="log" aria-label="Requests">([\s\S]*?)<\/ol>/.exec(page)?.[1] ?? '';
    expect(requests).toContain('/v1/account?by=made');
    expect(requests).not.toContain('/v1/account?by=seed');
  });

  it("an app's page shows the requests made with its credential and is found by its id; an unknown app is a 404 page", async () => {
    const made = await t.control('POST', '/apps', { name: 'Basic app', redirect_uris: ['https://basic.test/cb'] });
    const basic = (clientId: string, secret: string) => ({
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=refresh_token&refresh_token=made_up',
    });
    await fetch(`${t.url}/oauth2/token?by=made`, basic(made.client_id, made.client_secret));
    await fetch(`${t.url}/oauth2/token?by=other`, basic('svc_app_other', 'nothing'));
    const found = await fetch(`${t.url}/_dashboard/find?id=${made.client_id}&mode=live`, { redirect: 'manual' });
    expect([found.status, found.headers.get('location')]).toEqual([303, `/apps/${made.client_id}?mode=live`]);
    const page = await (await fetch(`${t.url}/apps/${made.client_id}?mode=live`)).text();
    const requests = /<ol class="log" aria-label="Requests">([\s\S]*?)<\/ol>/.exec(page)?.[1] ?? '';
    expect(requests).toContain('/oauth2/token?by=made');
    expect(requests).toContain(`app ${made.client_id} (Basic app)`);
    expect(requests).not.toContain('by=other');
    const missing = await fetch(`${t.url}/apps/svc_app_nothing?mode=test`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('There is no app svc_app_nothing.');
  });

  it("Clear test data empties an organization's test calls, chats and events after a confirmation, and keeps its keys, apps and live data", async () => {
    const test = { authorization: `Bearer ${t.seed.keys.test}`, 'content-type': 'application/json' };
    const live = { authorization: `Bearer ${t.seed.keys.live}`, 'content-type': 'application/json' };
    const api = async (headers: Record<string, string>, path: string, body: unknown) =>
      (await (await fetch(`${t.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })).json()) as { id: string };
    const testCall = await api(test, '/v1/calls', { languages: ['en', 'es'] });
    const testChat = await api(test, '/v1/chats', { language: 'en' });
    const liveCall = await api(live, '/v1/calls', { languages: ['en', 'es'] });
    const { cookie, csrf, html } = await session(t.url, '/controls?mode=test');
    expect(html).toMatch(/<form method="post" action="\/_dashboard\/test-data\/clear" data-confirm="[^"]*keys and apps are kept/);
    const done = await post(t.url, '/_dashboard/test-data/clear', { csrf, mode: 'test', org_id: t.seed.org_id }, { cookie, origin: t.url });
    expect(done.status).toBe(303);
    expect((await fetch(`${t.url}/calls/${testCall.id}?mode=test`)).status).toBe(404);
    expect((await fetch(`${t.url}/chats/${testChat.id}?mode=test`)).status).toBe(404);
    expect((await fetch(`${t.url}/calls/${liveCall.id}?mode=live`)).status).toBe(200);
    expect(await (await fetch(`${t.url}/events?mode=test`)).text()).toContain('No test events');
    expect(await (await fetch(`${t.url}/requests?mode=test&object=${testCall.id}`)).text()).toContain('No requests match');
    // The same keys still work: no saved profile breaks.
    expect((await fetch(`${t.url}/v1/account`, { headers: test })).status).toBe(200);
  });

  it('Controls shows who is listening and drops them; published load events are marked as such', async () => {
    const stream = await fetch(`${t.url}/v1/events/stream`, { headers: { authorization: `Bearer ${t.seed.keys.test}` } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    const { cookie, csrf, html } = await session(t.url, '/controls');
    expect(html).toContain('1 open stream(s) of Acme (test)');
    const dropped = await post(t.url, '/_dashboard/streams/drop', { csrf, mode: 'test' }, { cookie, origin: t.url });
    expect(dropped.status).toBe(303);
    expect(new URL(dropped.headers.get('location')!, t.url).searchParams.get('notice')).toBe('Dropped 1 stream(s).');
    let ended = false;
    while (!ended) ended = (await reader.read()).done;
    expect(await (await fetch(`${t.url}/controls`)).text()).toContain('No event or chat stream is open.');

    await t.control('POST', '/events', { org_id: t.seed.org_id, mode: 'test', type: 'call.started', count: 1 });
    expect(await (await fetch(`${t.url}/events?mode=test`)).text()).toContain('<span class="tag">load event</span>');
  });

  it('Who is listening drops one stream by its own button and leaves the others open', async () => {
    const open = async () => {
      const stream = await fetch(`${t.url}/v1/events/stream`, { headers: { authorization: `Bearer ${t.seed.keys.test}` } });
      expect(stream.status).toBe(200);
      return stream.body!.getReader();
    };
    const first = await open();
    const second = await open();
    const { cookie, csrf, html } = await session(t.url, '/controls');
    const drops = [...html.matchAll(/<form class="inline" method="post" action="(\/_dashboard\/streams\/(\d+)\/drop)"/g)];
    expect(drops).toHaveLength(2);
    expect(html).toContain(`aria-label="Drop stream ${drops[0]![2]} of Acme (test)"`);
    const dropped = await post(t.url, drops[0]![1]!, { csrf, mode: 'test' }, { cookie, origin: t.url });
    expect(new URL(dropped.headers.get('location')!, t.url).searchParams.get('notice')).toBe(`Dropped stream ${drops[0]![2]}.`);
    let ended = false;
    while (!ended) ended = (await first.read()).done;
    const after = await (await fetch(`${t.url}/controls`)).text();
    expect(after).toContain('1 open stream(s) of Acme (test)');
    expect(after).toContain(`/_dashboard/streams/${drops[1]![2]}/drop`);
    await second.cancel();
  });

  it('Requests filters by exact status, method, credential and object; the seeded test key can be shown again', async () => {
    const headers = { authorization: `Bearer ${t.seed.keys.test}`, 'content-type': 'application/json' };
    const call = (await (await fetch(`${t.url}/v1/calls`, { method: 'POST', headers, body: JSON.stringify({ languages: ['en', 'es'] }) })).json()) as {
      id: string;
    };
    await fetch(`${t.url}/v1/calls/call_missing`, { headers });
    const rows = async (query: string) =>
      [...(await (await fetch(`${t.url}/requests?mode=test&${query}`)).text()).matchAll(/<code>([^<]+)<\/code>/g)].map((m) => m[1]);
    expect(await rows('status=404')).toEqual(['/v1/calls/call_missing']);
    expect(await rows(`method=POST&object=${call.id}`)).toEqual(['/v1/calls']);
    const keyId = t.emulator.state.keysByHash.get(sha256(t.seed.keys.test))!.id;
    expect((await rows(`credential=${keyId}&status=2xx`)).length).toBeGreaterThanOrEqual(1);
    expect(await rows('credential=key_nobody')).toEqual([]);
    const callPage = await (await fetch(`${t.url}/calls/${call.id}?mode=test`)).text();
    expect(callPage).toContain(`href="/requests?mode=test&amp;object=${call.id}"`);

    const { cookie, csrf, html } = await session(t.url, '/keys?mode=test');
    expect(html).toContain('Show the seeded test key');
    const shown = await post(t.url, '/_dashboard/keys/seed/show', { csrf, mode: 'test' }, { cookie, origin: t.url });
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain(`value="${t.seed.keys.test}"`);
    expect(await (await fetch(`${t.url}/keys?mode=live`)).text()).not.toContain('Show the seeded test key');
  });

  it('API keys shows when each key was last used, by any request it authenticated', async () => {
    const made = await t.control('POST', `/orgs/${t.seed.org_id}/keys`, { mode: 'test' });
    const row = async () => new RegExp(`<tr data-key-id="${made.id}"[\\s\\S]*?</tr>`).exec(await (await fetch(`${t.url}/keys?mode=test`)).text())![0];
    expect(await row()).toContain('data-last-used="never"');
    const before = t.emulator.state.clock.now();
    expect((await fetch(`${t.url}/v1/account`, { headers: { authorization: `Bearer ${made.key}` } })).status).toBe(200);
    const after = t.emulator.state.clock.now();
    const shown = Date.parse(/data-last-used="([^"]+)"/.exec(await row())![1]!);
    expect(shown).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(shown).toBeLessThanOrEqual(after);
  });

  it('Requests names the credential by id and shows no secret in any body', async () => {
    const made = await t.makeKey('live');
    await fetch(`${t.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'svc_ort_abcdef', client_id: 'svc_app_cli', client_secret: 'svc_cs_hidden' }),
    });
    await fetch(`${t.url}/v1/account`, { headers: { authorization: `Bearer ${made.key}` } });
    // What was refused is named too: a revoked key (with its name), a key nobody made, an app's HTTP Basic.
    const revoked = await t.makeKey('test');
    await t.control('DELETE', `/orgs/${t.seed.org_id}/keys/${revoked.id}`);
    await fetch(`${t.url}/v1/account?who=revoked`, { headers: { authorization: `Bearer ${revoked.key}` } });
    await fetch(`${t.url}/v1/account?who=unknown`, { headers: { authorization: 'Bearer svc_test_notakeyatall000000000000' } });
    await fetch(`${t.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('svc_app_cli:wrong').toString('base64')}` },
      body: 'grant_type=refresh_token&refresh_token=svc_ort_x',
    });
    const html = await (await fetch(`${t.url}/requests?mode=live`)).text();
    expect(html).toMatch(new RegExp(`who=revoked</code>.*?revoked key ${revoked.id} \\(test\\)`, 's'));
    expect(html).toMatch(/who=unknown<\/code>.*?unknown key/s);
    expect(html).toMatch(/\/oauth2\/token<\/code>.*?app svc_app_cli \(svc CLI\)/s);
    expect(html).toContain(`${made.id} (live)`);
    expect(html).toContain('/_emulator/orgs/');
    expect(html).toContain('[secret: not shown]');
    for (const secret of [made.key, 'svc_ort_abcdef', 'svc_cs_hidden', t.seed.keys.test]) expect(html).not.toContain(secret);
  });
});

describe('an open dashboard under 100,000 events and five ring-fulls of requests', () => {
  it('keeps the last requests in a ring, renders one page of rows, and sends a few change messages, not one per request', async () => {
    const state = createState(advancingClock(), 15_000);
    const requests = new RequestLog();
    const app = createApp(state, requests);
    const orgId = state.seed!.org_id;

    // The dashboard's live stream, read as a browser would.
    const stream = await app.request('/_dashboard/stream');
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    let changes = 0;
    let streamed = '';
    const reading = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        streamed += value;
        changes += value.split('event: change').length - 1;
      }
    })();

    const published = await app.request('/_emulator/events', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ org_id: orgId, mode: 'test', type: 'call.started', count: 100_000 }),
    });
    expect(published.status).toBe(201);
    const big = JSON.stringify({ title: 'x'.repeat(BODY_CHARS * 3) });
    const sent = REQUEST_LOG_SIZE * 5;
    for (let i = 0; i < sent; i++) {
      const answer = await app.request(i % 100 === 0 ? '/v1/calls' : '/v1/nothing', {
        method: 'POST',
        headers: { authorization: `Bearer ${state.seed!.keys.test}`, 'content-type': 'application/json', 'content-length': String(big.length) },
        body: big,
      });
      await answer.arrayBuffer();
      if (i % 500 === 0) await new Promise((resolve) => setTimeout(resolve, 0));
    }
    await new Promise((resolve) => setTimeout(resolve, 400));

    expect(requests.total).toBe(sent + 1); // and the events' POST
    expect(requests.length).toBe(REQUEST_LOG_SIZE);
    const kept = [...requests.newest()];
    expect(kept).toHaveLength(REQUEST_LOG_SIZE);
    expect(kept[0]!.n).toBe(sent + 1);
    expect(kept.at(-1)!.n).toBe(sent + 2 - REQUEST_LOG_SIZE);
    // A body past the cap is kept cut short, with a note.
    expect(kept.filter((entry) => entry.request_body?.endsWith('more characters not kept)'))).toHaveLength(REQUEST_LOG_SIZE);
    for (const entry of kept) {
      expect((entry.request_body ?? '').length).toBeLessThanOrEqual(BODY_CHARS + 100);
      expect((entry.response_body ?? '').length).toBeLessThanOrEqual(BODY_CHARS + 100);
    }

    const requestsPage = await (await app.request('/requests')).text();
    expect(requestsPage.match(/<li data-key/g)).toHaveLength(PAGE_ROWS);
    expect(requestsPage).toContain('Older requests');
    const eventsPage = await (await app.request('/events?mode=test')).text();
    expect(eventsPage.match(/<li data-key/g)).toHaveLength(PAGE_ROWS);
    expect(eventsPage).toContain('Older events');
    // The events that make up the page are the newest, and older ones are a page away.
    const older = /href="([^"]*before=[^"]*)"/.exec(eventsPage)![1]!.replace(/&amp;/g, '&');
    expect((await (await app.request(older)).text()).match(/<li data-key/g)).toHaveLength(PAGE_ROWS);

    // One message per gathered burst: far fewer than the requests, and the stream never holds them.
    expect(changes).toBeGreaterThan(0);
    expect(changes).toBeLessThan(sent / 10);
    expect(streamed.length).toBeLessThan(100_000);
    await reader.cancel();
    await reading.catch(() => {});
  }, 60_000);
});

describe('the request ring and its redaction', () => {
  it('holds the last REQUEST_LOG_SIZE of 100,000 requests, newest first', () => {
    const log = new RequestLog();
    const entry = { at: 0, method: 'GET', path: '/v1/account', status: 200, credential: null, latency_ms: 1, request_body: null, response_body: null };
    for (let i = 0; i < 100_000; i++) log.add(entry);
    const kept = [...log.newest()];
    expect(log.total).toBe(100_000);
    expect(kept).toHaveLength(REQUEST_LOG_SIZE);
    expect(kept.map((e) => e.n).slice(0, 2)).toEqual([100_000, 99_999]);
    expect(kept.at(-1)!.n).toBe(100_000 - REQUEST_LOG_SIZE + 1);
  });

  it('replaces every secret in JSON, form and other bodies', () => {
    const json = redactBody(
      JSON.stringify({ key: 'k', id: 'key_1', nested: { client_secret: 'c', note: 'svc_oat_abc' }, password: 'p', code: 'x' }),
      'application/json',
    );
    expect(JSON.parse(json)).toEqual({
      key: '[secret: not shown]',
      id: 'key_1',
      nested: { client_secret: '[secret: not shown]', note: '[secret: not shown]' },
      password: '[secret: not shown]',
      code: '[secret: not shown]',
    });
    const form = new URLSearchParams(
      redactBody('grant_type=refresh_token&refresh_token=svc_ort_x&client_id=svc_app_1&code_verifier=v', 'application/x-www-form-urlencoded'),
    );
    expect(Object.fromEntries(form)).toEqual({
      grant_type: 'refresh_token',
      refresh_token: '[secret: not shown]',
      client_id: 'svc_app_1',
      code_verifier: '[secret: not shown]',
    });
    expect(redactBody('{"key": "svc_test_abc', 'application/json')).toBe('{"key": "[secret: not shown]');
    // Not JSON after all (a malformed body): the fields that hold secrets are still found.
    expect(redactBody('{"email": "a@b.test", "password": "hunter2",', 'application/json')).toBe('{"email": "a@b.test", "password": "[secret: not shown]",');
  });
});

describe('the dashboard over https (svc emulator --https)', () => {
  let emulator: RunningEmulator;
  let dispatcher: Agent;
  const fetchTls = (url: string, init: Parameters<typeof undiciFetch>[1] = {}) => undiciFetch(url, { ...init, dispatcher });
  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, https: { caDir: join(mkdtempSync(join(tmpdir(), 'svc-dash-ca-')), 'ca') } });
    dispatcher = new Agent({ connect: { ca: readFileSync(emulator.ca!.certFile, 'utf8') } });
  });
  afterAll(async () => {
    await dispatcher.close();
    await emulator.close();
  });

  it('takes an action posted from its own https page, with a Secure session cookie, and refuses its http twin', async () => {
    const page = await fetchTls(`${emulator.url}/keys`);
    const setCookie = page.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/; Secure/i);
    const cookie = setCookie.split(';')[0]!;
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    const key = [...emulator.state.keys.values()].find((k) => k.mode === 'test' && !k.revoked)!;
    const action = `${emulator.url}/_dashboard/keys/${key.id}/revoke`;
    const form = (origin: string) => ({
      method: 'POST',
      redirect: 'manual' as const,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, origin },
      body: new URLSearchParams({ csrf, mode: 'test' }),
    });
    const plainTwin = await fetchTls(action, form(emulator.url.replace('https:', 'http:')));
    expect(plainTwin.status).toBe(403);
    expect(key.revoked).toBe(false);
    const done = await fetchTls(action, form(emulator.url));
    expect(done.status).toBe(303);
    expect(key.revoked).toBe(true);
  });

  it('the Overview tells svc to trust the local CA, and the authorize page cookie is Secure and named for this port', async () => {
    const overview = await (await fetchTls(`${emulator.url}/`)).text();
    expect(overview).toContain(`export NODE_EXTRA_CA_CERTS=${emulator.ca!.certFile} `);
    const query = new URLSearchParams({
      client_id: 'svc_app_cli',
      redirect_uri: 'http://127.0.0.1:9/callback',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    const authorize = await fetchTls(`${emulator.url}/oauth/authorize?${query.toString()}`);
    expect(authorize.status).toBe(200);
    expect(authorize.headers.get('set-cookie')).toMatch(new RegExp(`^svc_emulator_session_${emulator.port}=[^;]+;.*; Secure`, 'i'));
  });
});
