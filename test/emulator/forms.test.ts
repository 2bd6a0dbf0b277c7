// The authorize page's forms over real HTTP: only urlencoded, capped, never a 500, CSRF on both forms.
import { beforeEach, describe, expect, it } from 'vitest';
import { call, openAuthorizePage, resetSeed, useEmulator } from './helpers.js';

const emulator = useEmulator();

describe('authorize page forms: bad input', () => {
  beforeEach(async () => {
    await resetSeed(emulator());
  });

  it('a multipart/form-data post with a garbage body is a 415 error page, not a 500', async () => {
    const emu = emulator();
    const page = await openAuthorizePage(emu);
    for (const path of ['/oauth/authorize/signin', '/oauth/authorize/decision']) {
      const answer = await page.post(path, {}, { headers: { 'content-type': 'multipart/form-data; boundary=xyz' }, body: '--xyz\r\ngarbage\x00\xff no end' });
      expect(answer.status, path).toBe(415);
      expect(answer.headers.get('content-type')).toMatch(/text\/html/);
      expect(await answer.text()).toContain('application/x-www-form-urlencoded');
    }
    for (const type of ['application/json', 'text/plain', '']) {
      const answer = await page.post(
        '/oauth/authorize/signin',
        {},
        { headers: { 'content-type': type }, body: `csrf=${page.csrf}&request=${page.request}&email=admin@acme.test&password=acme-admin` },
      );
      expect(answer.status, type).toBe(415);
    }
    // The page still works afterwards.
    const signIn = await page.post('/oauth/authorize/signin', { csrf: page.csrf, request: page.request, email: 'admin@acme.test', password: 'acme-admin' });
    expect(signIn.status).toBe(200);
  });

  it('a 20 MB urlencoded body is refused with a 413 page, unread', async () => {
    const emu = emulator();
    const page = await openAuthorizePage(emu);
    const huge = `csrf=${page.csrf}&request=${page.request}&email=${'a'.repeat(20 * 1024 * 1024)}`;
    let status: number | 'reset';
    try {
      const answer = await page.post('/oauth/authorize/signin', {}, { body: huge });
      status = answer.status;
      expect(answer.headers.get('content-type')).toMatch(/text\/html/);
    } catch {
      // The emulator may answer and close before the client finished sending 20 MB.
      status = 'reset';
    }
    expect([413, 'reset']).toContain(status);
    // A body past the cap without a Content-Length (chunked) is cut off too.
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 40; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(1024)));
        controller.close();
      },
    });
    const streamed = await fetch(`${emu.url}/oauth/authorize/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: page.cookie },
      body: chunked,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    // The rest of the body is left unread: the answer closes the connection, so no next request is sent on it.
    expect(streamed.headers.get('connection')).toBe('close');
    expect((await call(emu, 'GET', '/_emulator/stats')).status).toBe(200);
  });

  it('a body that is not UTF-8 is a 400 page; odd but decodable input is handled as fields', async () => {
    const emu = emulator();
    const page = await openAuthorizePage(emu);
    const bytes = Buffer.concat([Buffer.from(`csrf=${page.csrf}&request=${page.request}&email=`), Buffer.from([0xff, 0xfe, 0xc3])]);
    const answer = await fetch(`${emu.url}/oauth/authorize/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: page.cookie },
      body: bytes,
    });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toMatch(/text\/html/);
    const odd = await page.post('/oauth/authorize/signin', {}, { body: `csrf=${page.csrf}&request=${page.request}&email=%%%&password=%E0%A4%A&&=&x` });
    expect(odd.status).toBe(401);
    const empty = await page.post('/oauth/authorize/signin', {}, { body: '' });
    expect(empty.status).toBe(403);
  });

  it('a forged CSRF token on the /decision form is refused (403) and no code is issued', async () => {
    const emu = emulator();
    const page = await openAuthorizePage(emu);
    const consent = await (
      await page.post('/oauth/authorize/signin', { csrf: page.csrf, request: page.request, email: 'admin@acme.test', password: 'acme-admin' })
    ).text();
    const request = page.field(consent, 'request');
    for (const csrf of ['forged', '', page.csrf.slice(0, -1) + (page.csrf.endsWith('A') ? 'B' : 'A')]) {
      const forged = await page.post('/oauth/authorize/decision', { csrf, request, org_id: emu.seed.org_id, decision: 'approve' });
      expect(forged.status, csrf).toBe(403);
      expect(forged.headers.get('location')).toBeNull();
    }
    // Another browser's session (no cookie) with the right token is refused as well.
    const noSession = await page.post(
      '/oauth/authorize/decision',
      { csrf: page.field(consent, 'csrf'), request, org_id: emu.seed.org_id, decision: 'approve' },
      { cookie: null },
    );
    expect(noSession.status).toBe(403);
    expect(emu.state.codes.size).toBe(0);
    const real = await page.post('/oauth/authorize/decision', { csrf: page.field(consent, 'csrf'), request, org_id: emu.seed.org_id, decision: 'approve' });
    expect(real.status).toBe(303);
    expect(new URL(real.headers.get('location')!).searchParams.get('code')).toBeTruthy();
  });
});
