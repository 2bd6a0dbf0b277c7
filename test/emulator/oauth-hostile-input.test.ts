// The emulator's OAuth endpoints against input a hostile or broken client sends, answered as
// the service answers: a Basic client id with bad percent-encoding is 401 invalid_client (not
// a 500 "URI malformed"), and the CLI's app's sign-in refuses a redirect URI with a fragment
// (RFC 6749 §3.1.2) or with user:pass@ as an error page, never a redirect.
import { beforeEach, describe, expect, it } from 'vitest';
import { call, form, pkcePair, resetSeed, useEmulator } from './helpers.js';

const emulator = useEmulator();

const basic = (id: string, secret: string) => ({ authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}` });

describe('OAuth endpoints and hostile input', () => {
  beforeEach(async () => {
    await resetSeed(emulator());
  });

  it.each(['/oauth2/token', '/oauth2/revoke'])('%s: a Basic client id with bad percent-encoding is 401 invalid_client', async (path) => {
    for (const id of ['%E0%A4%A', '%zz', 'svc_app_cli%', '%C0%AF']) {
      const body: Record<string, string> = path === '/oauth2/token' ? { grant_type: 'refresh_token', refresh_token: 'x' } : { token: 'x' };
      const request = form(body);
      const answer = await call(emulator(), 'POST', path, { body: request.body, headers: { ...request.headers, ...basic(id, 'secret') } });
      expect(answer.status, id).toBe(401);
      expect(answer.body, id).toMatchObject({ error: 'invalid_client' });
    }
  });

  it("the CLI's app refuses a redirect URI with a #fragment or with user:pass@: an error page, never a redirect", async () => {
    for (const bad of [
      'http://127.0.0.1:5000/callback#frag',
      'http://127.0.0.1:5000/callback#',
      'http://user:pass@127.0.0.1:5000/callback',
      'http://user@localhost:5000/callback',
    ]) {
      const { challenge } = pkcePair();
      const answer = await call(
        emulator(),
        'GET',
        `/oauth/authorize?${new URLSearchParams({ client_id: 'svc_app_cli', redirect_uri: bad, state: 's', code_challenge: challenge, code_challenge_method: 'S256' })}`,
      );
      expect(answer.status, bad).toBe(400);
      expect(answer.headers.get('location'), bad).toBeNull();
      expect(answer.headers.get('content-type')).toMatch(/text\/html/);
    }
  });

  it('an app cannot register such a redirect URI either', async () => {
    for (const bad of ['https://app.example/cb#x', 'https://user:pass@app.example/cb']) {
      const made = await call(emulator(), 'POST', '/_emulator/apps', { json: { name: 'Web', redirect_uris: [bad], public: true } });
      expect(made.status, bad).toBeGreaterThanOrEqual(400);
      expect(made.status, bad).toBeLessThan(500);
    }
  });
});
