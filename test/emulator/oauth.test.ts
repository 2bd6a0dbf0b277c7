import { beforeEach, describe, expect, it } from 'vitest';
import { authorizeViaApproval, call, exchange, form, login, pkcePair, resetSeed, useEmulator } from './helpers.js';

const emulator = useEmulator();

async function refreshWith(emu: ReturnType<typeof emulator>, refreshToken: string, clientId = 'svc_app_cli') {
  return call(emu, 'POST', '/oauth2/token', form({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }));
}

async function stats(emu: ReturnType<typeof emulator>) {
  return (await call(emu, 'GET', '/_emulator/stats')).body;
}

describe('OAuth authorization server', () => {
  beforeEach(async () => {
    await resetSeed(emulator());
  });

  it('publishes RFC 8414 metadata built from its own origin', async () => {
    const emu = emulator();
    const answer = await call(emu, 'GET', '/.well-known/oauth-authorization-server');
    expect(answer.body).toEqual({
      issuer: emu.url,
      authorization_endpoint: `${emu.url}/oauth/authorize`,
      token_endpoint: `${emu.url}/oauth2/token`,
      revocation_endpoint: `${emu.url}/oauth2/revoke`,
      scopes_supported: ['calls:read', 'calls:write', 'sessions:read', 'sessions:write', 'translate', 'events:read', 'account:read'],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'none'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'none'],
      authorization_response_iss_parameter_supported: true,
    });
  });

  it('full flow via approvals: code+state, token response with no-store, live-mode API access', async () => {
    const emu = emulator();
    const auth = await authorizeViaApproval(emu, { scope: 'calls:read account:read' });
    expect(auth.location.origin + auth.location.pathname).toBe(auth.redirectUri);
    expect(auth.location.searchParams.get('state')).toBe(auth.state);
    // RFC 9207: the answer names its issuer, exactly as the metadata does.
    expect(auth.location.searchParams.get('iss')).toBe(emu.url);
    const answer = await exchange(emu, auth.location.searchParams.get('code')!, auth.verifier, auth.redirectUri);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'calls:read account:read', org_id: emu.seed.org_id });
    expect(answer.body.access_token).toMatch(/^svc_oat_/);
    expect(answer.body.refresh_token).toMatch(/^svc_ort_/);
    const account = await call(emu, 'GET', '/v1/account', { key: answer.body.access_token });
    expect(account.body).toMatchObject({
      id: emu.seed.org_id,
      livemode: true,
      credential: { type: 'oauth', client_id: 'svc_app_cli', scopes: ['calls:read', 'account:read'] },
    });
    const forbidden = await call(emu, 'POST', '/v1/calls', { key: answer.body.access_token, json: { languages: ['en', 'es'] } });
    expect(forbidden).toMatchObject({ status: 403, body: { detail: 'this key or app lacks the calls:write scope' } });
    expect((await stats(emu)).tokens_issued).toBe(1);
  });

  it('scope is optional (all scopes) and an unknown scope redirects with invalid_scope', async () => {
    const emu = emulator();
    const all = await login(emu);
    expect(all.scope.split(' ')).toHaveLength(7);
    const { challenge } = pkcePair();
    const query = new URLSearchParams({
      client_id: 'svc_app_cli',
      redirect_uri: 'http://127.0.0.1:4000/callback',
      state: 's1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      scope: 'calls:read calls:fly',
    });
    const answer = await call(emu, 'GET', `/oauth/authorize?${query}`);
    expect(answer.status).toBe(302);
    const location = new URL(answer.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('invalid_scope');
    expect(location.searchParams.get('state')).toBe('s1');
  });

  it('deny redirects with error=access_denied and the state', async () => {
    const auth = await authorizeViaApproval(emulator(), { decision: 'deny' });
    expect(auth.location.searchParams.get('error')).toBe('access_denied');
    expect(auth.location.searchParams.get('state')).toBe(auth.state);
    expect(auth.location.searchParams.has('code')).toBe(false);
  });

  it('PKCE is required and verified: missing challenge redirects, a wrong verifier is invalid_grant', async () => {
    const emu = emulator();
    const noPkce = await call(
      emu,
      'GET',
      `/oauth/authorize?${new URLSearchParams({ client_id: 'svc_app_cli', redirect_uri: 'http://127.0.0.1:1/callback', state: 'x' })}`,
    );
    expect(new URL(noPkce.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    const plain = await call(
      emu,
      'GET',
      `/oauth/authorize?${new URLSearchParams({ client_id: 'svc_app_cli', redirect_uri: 'http://127.0.0.1:1/callback', state: 'x', code_challenge: pkcePair().challenge, code_challenge_method: 'plain' })}`,
    );
    expect(new URL(plain.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    const auth = await authorizeViaApproval(emu);
    const wrong = await exchange(emu, auth.location.searchParams.get('code')!, pkcePair().verifier, auth.redirectUri);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');
  });

  it('a redirect_uri differing from the authorize request is invalid_grant', async () => {
    const emu = emulator();
    const auth = await authorizeViaApproval(emu);
    const answer = await exchange(emu, auth.location.searchParams.get('code')!, auth.verifier, 'http://127.0.0.1:9/callback');
    expect(answer.body.error).toBe('invalid_grant');
  });

  it('a code presented twice is refused and revokes the tokens it issued (RFC 6749 §4.1.2)', async () => {
    const emu = emulator();
    const auth = await authorizeViaApproval(emu);
    const code = auth.location.searchParams.get('code')!;
    const first = await exchange(emu, code, auth.verifier, auth.redirectUri);
    expect(first.status).toBe(200);
    expect((await call(emu, 'GET', '/v1/account', { key: first.body.access_token })).status).toBe(200);
    const second = await exchange(emu, code, auth.verifier, auth.redirectUri);
    expect(second).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect((await call(emu, 'GET', '/v1/account', { key: first.body.access_token })).status).toBe(401);
    expect((await refreshWith(emu, first.body.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('a code is dead after 10 minutes of the emulator clock', async () => {
    const emu = emulator();
    const auth = await authorizeViaApproval(emu);
    await call(emu, 'POST', '/_emulator/clock', { json: { advance_seconds: 601 } });
    const answer = await exchange(emu, auth.location.searchParams.get('code')!, auth.verifier, auth.redirectUri);
    expect(answer).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('an access token is dead after 1 hour; the refresh token still rotates', async () => {
    const emu = emulator();
    const tokens = await login(emu);
    await call(emu, 'POST', '/_emulator/clock', { json: { advance_seconds: 3599 } });
    expect((await call(emu, 'GET', '/v1/account', { key: tokens.access_token })).status).toBe(200);
    await call(emu, 'POST', '/_emulator/clock', { json: { advance_seconds: 2 } });
    expect((await call(emu, 'GET', '/v1/account', { key: tokens.access_token })).status).toBe(401);
    const refreshed = await refreshWith(emu, tokens.refresh_token);
    expect(refreshed.status).toBe(200);
    expect((await call(emu, 'GET', '/v1/account', { key: refreshed.body.access_token })).status).toBe(200);
  });

  it('refresh rotates: new pair, old access token dead, used refresh token refused and counted as reuse', async () => {
    const emu = emulator();
    const tokens = await login(emu);
    const refreshed = await refreshWith(emu, tokens.refresh_token);
    expect(refreshed.status).toBe(200);
    expect(refreshed.headers.get('cache-control')).toBe('no-store');
    expect(refreshed.body.access_token).not.toBe(tokens.access_token);
    expect(refreshed.body.refresh_token).not.toBe(tokens.refresh_token);
    expect((await call(emu, 'GET', '/v1/account', { key: tokens.access_token })).status).toBe(401);
    expect((await call(emu, 'GET', '/v1/account', { key: refreshed.body.access_token })).status).toBe(200);
    const reuse = await refreshWith(emu, tokens.refresh_token);
    expect(reuse).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(await stats(emu)).toMatchObject({ tokens_issued: 2, refreshes: 1, refresh_reuse: 1 });
  });

  it('a refresh may narrow the scopes but never widen them (invalid_scope)', async () => {
    const emu = emulator();
    const tokens = await login(emu, 'calls:read account:read');
    const wider = await call(
      emu,
      'POST',
      '/oauth2/token',
      form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'svc_app_cli', scope: 'calls:read calls:write' }),
    );
    expect(wider).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    const narrower = await call(
      emu,
      'POST',
      '/oauth2/token',
      form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: 'svc_app_cli', scope: 'calls:read' }),
    );
    expect(narrower.body.scope).toBe('calls:read');
    expect((await call(emu, 'GET', '/v1/account', { key: narrower.body.access_token })).status).toBe(403);
    expect((await call(emu, 'GET', '/v1/calls', { key: narrower.body.access_token })).status).toBe(200);
    // The grant itself keeps its scopes: the next refresh without scope gets them all back.
    const again = await refreshWith(emu, narrower.body.refresh_token);
    expect(again.body.scope).toBe('calls:read account:read');
  });

  it('revoke by either token disconnects the app from the org; answers 200 empty, also for unknown tokens', async () => {
    const emu = emulator();
    for (const which of ['access_token', 'refresh_token'] as const) {
      const tokens = await login(emu);
      const answer = await call(emu, 'POST', '/oauth2/revoke', form({ token: tokens[which], client_id: 'svc_app_cli' }));
      expect(answer.status).toBe(200);
      expect(answer.text).toBe('');
      expect((await call(emu, 'GET', '/v1/account', { key: tokens.access_token })).status).toBe(401);
      expect((await refreshWith(emu, tokens.refresh_token)).body.error).toBe('invalid_grant');
    }
    const unknown = await call(emu, 'POST', '/oauth2/revoke', form({ token: 'svc_oat_unknown' }));
    expect(unknown.status).toBe(200);
    expect(unknown.text).toBe('');
    const connections = await call(emu, 'GET', `/_emulator/orgs/${emu.seed.org_id}/connections`);
    expect(connections.body.data).toEqual([]);
  });

  it('the organization disconnecting the app ends its tokens at once', async () => {
    const emu = emulator();
    const tokens = await login(emu);
    const connections = await call(emu, 'GET', `/_emulator/orgs/${emu.seed.org_id}/connections`);
    expect(connections.body.data.map((c: any) => c.client_id)).toEqual(['svc_app_cli']);
    expect((await call(emu, 'DELETE', `/_emulator/orgs/${emu.seed.org_id}/connections/svc_app_cli`)).status).toBe(200);
    expect((await call(emu, 'GET', '/v1/account', { key: tokens.access_token })).status).toBe(401);
    expect((await refreshWith(emu, tokens.refresh_token)).body.error).toBe('invalid_grant');
  });

  it('a confidential client authenticates with HTTP Basic; deleting the app ends every connection', async () => {
    const emu = emulator();
    const made = await call(emu, 'POST', '/_emulator/apps', { json: { name: 'Partner', redirect_uris: ['https://partner.example/cb'] } });
    expect(made.status).toBe(201);
    expect(made.body.client_id).toMatch(/^svc_app_/);
    expect(made.body.client_secret).toMatch(/^svc_cs_/);
    const client = { id: made.body.client_id, secret: made.body.client_secret };
    const auth = await authorizeViaApproval(emu, { clientId: client.id, redirectUri: 'https://partner.example/cb' });
    const code = auth.location.searchParams.get('code')!;
    const noSecret = await exchange(emu, code, auth.verifier, auth.redirectUri, { id: client.id });
    expect(noSecret.status).toBe(401);
    expect(noSecret.body.error).toBe('invalid_client');
    const badSecret = await exchange(emu, code, auth.verifier, auth.redirectUri, { id: client.id, secret: 'svc_cs_wrong' });
    expect(badSecret).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const tokens = await exchange(emu, code, auth.verifier, auth.redirectUri, client);
    expect(tokens.status).toBe(200);
    expect((await call(emu, 'GET', '/v1/account', { key: tokens.body.access_token })).status).toBe(200);
    expect((await call(emu, 'DELETE', `/_emulator/apps/${client.id}`)).status).toBe(200);
    expect((await call(emu, 'GET', '/v1/account', { key: tokens.body.access_token })).status).toBe(401);
  });

  it('a loopback redirect URI matches with any port and any loopback host (RFC 8252 §7.3), on the registered path only', async () => {
    const emu = emulator();
    for (const port of [1024, 49152, 65535]) {
      const auth = await authorizeViaApproval(emu, { redirectUri: `http://127.0.0.1:${port}/callback` });
      expect(auth.location.port).toBe(String(port));
      expect(auth.location.searchParams.get('code')).toBeTruthy();
    }
    for (const bad of [
      'http://127.0.0.1:5000/other',
      'http://localhost:5000/other',
      'http://[::1]:5000/callback/x',
      'http://127.0.0.2:5000/callback',
      'https://127.0.0.1:5000/callback',
      'https://evil.example/callback',
    ]) {
      const { challenge } = pkcePair();
      const answer = await call(
        emu,
        'GET',
        `/oauth/authorize?${new URLSearchParams({ client_id: 'svc_app_cli', redirect_uri: bad, state: 's', code_challenge: challenge, code_challenge_method: 'S256' })}`,
      );
      expect(answer.status, bad).toBe(400);
      expect(answer.headers.get('location')).toBeNull();
      expect(answer.headers.get('content-type')).toMatch(/text\/html/);
    }
  });

  it('http://[::1]:<port>/callback and http://localhost:<port>/callback match the seeded http://127.0.0.1/callback', async () => {
    const emu = emulator();
    for (const redirectUri of ['http://[::1]:49200/callback', 'http://localhost:49201/callback', 'http://[::1]/callback', 'http://localhost/callback']) {
      const auth = await authorizeViaApproval(emu, { redirectUri });
      expect(auth.location.origin + auth.location.pathname, redirectUri).toBe(new URL(redirectUri).origin + '/callback');
      const code = auth.location.searchParams.get('code')!;
      expect(auth.location.searchParams.get('state')).toBe(auth.state);
      const tokens = await exchange(emu, code, auth.verifier, redirectUri);
      expect(tokens.status, redirectUri).toBe(200);
    }
  });

  it('a non-loopback redirect URI must match exactly', async () => {
    const emu = emulator();
    const client = (await call(emu, 'POST', '/_emulator/apps', { json: { name: 'Web', redirect_uris: ['https://app.example/cb'], public: true } })).body;
    const auth = await authorizeViaApproval(emu, { clientId: client.client_id, redirectUri: 'https://app.example/cb' });
    expect(auth.location.searchParams.get('code')).toBeTruthy();
    await call(emu, 'POST', '/_emulator/reset');
    const again = (await call(emu, 'POST', '/_emulator/apps', { json: { name: 'Web', redirect_uris: ['https://app.example/cb'], public: true } })).body;
    for (const bad of ['https://app.example:8443/cb', 'https://app.example/cb/', 'https://app.example/cb?x=1', 'http://app.example/cb']) {
      const { challenge } = pkcePair();
      const answer = await call(
        emu,
        'GET',
        `/oauth/authorize?${new URLSearchParams({ client_id: again.client_id, redirect_uri: bad, state: 's', code_challenge: challenge, code_challenge_method: 'S256' })}`,
      );
      expect(answer.status, bad).toBe(400);
      expect(answer.headers.get('location')).toBeNull();
    }
  });

  it('an unknown client or a bad redirect URI is an error page, never a redirect, with the input escaped', async () => {
    const emu = emulator();
    const answer = await call(emu, 'GET', `/oauth/authorize?client_id=${encodeURIComponent('<script>x</script>')}&redirect_uri=https://a.example/`);
    expect(answer.status).toBe(400);
    expect(answer.headers.get('location')).toBeNull();
    expect(answer.text).toContain('&lt;script&gt;');
    expect(answer.text).not.toContain('<script>x');
  });

  it('token endpoint errors follow RFC 6749 §5.2', async () => {
    const emu = emulator();
    const bad = (params: Record<string, string>) => call(emu, 'POST', '/oauth2/token', form(params));
    expect((await bad({ client_id: 'svc_app_cli' })).body.error).toBe('invalid_request');
    expect((await bad({ client_id: 'svc_app_cli', grant_type: 'password' })).body.error).toBe('unsupported_grant_type');
    expect((await bad({ client_id: 'svc_app_cli', grant_type: 'authorization_code', code: 'x' })).body.error).toBe('invalid_request');
    expect((await bad({ client_id: 'svc_app_cli', grant_type: 'refresh_token', refresh_token: 'svc_ort_x' })).body.error).toBe('invalid_grant');
    expect((await bad({ client_id: 'svc_app_cli', grant_type: 'refresh_token', refresh_token: 'svc_ort_x' })).status).toBe(400);
    const unknownClient = await bad({ client_id: 'svc_app_nope', grant_type: 'refresh_token', refresh_token: 'x' });
    expect(unknownClient).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    const json = await call(emu, 'POST', '/oauth2/token', { json: { grant_type: 'refresh_token' } });
    expect(json).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });

  it('the admin chooses among the organizations they administer, and only those', async () => {
    const emu = emulator();
    const second = (await call(emu, 'POST', '/_emulator/orgs', { json: { name: 'Initech <b>', admin_email: 'admin@acme.test' } })).body;
    expect(second.admin).toEqual({ email: 'admin@acme.test', password: 'acme-admin' });
    const stranger = (await call(emu, 'POST', '/_emulator/orgs', { json: { name: 'Elsewhere' } })).body;
    const { verifier, challenge } = pkcePair();
    const redirectUri = 'http://127.0.0.1:40405/callback';
    const query = new URLSearchParams({
      client_id: 'svc_app_cli',
      redirect_uri: redirectUri,
      state: 's',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const first = await fetch(`${emu.url}/oauth/authorize?${query}`);
    const cookie = first.headers.get('set-cookie')!.split(';')[0]!;
    const field = (text: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(text)?.[1] ?? '';
    const html = await first.text();
    const post = (path: string, params: Record<string, string>) =>
      fetch(emu.url + path, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams(params).toString(),
      });
    const consent = await (
      await post('/oauth/authorize/signin', { csrf: field(html, 'csrf'), request: field(html, 'request'), email: 'admin@acme.test', password: 'acme-admin' })
    ).text();
    expect(consent).toContain(`value="${emu.seed.org_id}"`);
    expect(consent).toContain(`value="${second.id}"`);
    expect(consent).toContain('Initech &lt;b&gt;');
    expect(consent).not.toContain(stranger.id);
    const params = { csrf: field(consent, 'csrf'), request: field(consent, 'request'), decision: 'approve' };
    expect((await post('/oauth/authorize/decision', { ...params, org_id: stranger.id })).status).toBe(403);
    const approved = await post('/oauth/authorize/decision', { ...params, org_id: second.id });
    const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
    const tokens = await exchange(emu, code, verifier, redirectUri);
    expect(tokens.body.org_id).toBe(second.id);
    expect((await call(emu, 'GET', '/v1/account', { key: tokens.body.access_token })).body.name).toBe('Initech <b>');
  });

  it('the HTML form flow: sign in with CSRF and session cookie, choose the org, approve, deny', async () => {
    const emu = emulator();
    const { verifier, challenge } = pkcePair();
    const redirectUri = 'http://127.0.0.1:40404/callback';
    const query = new URLSearchParams({
      client_id: 'svc_app_cli',
      redirect_uri: redirectUri,
      state: 'st<&>',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      scope: 'calls:read events:read',
    });
    const pageAnswer = await fetch(`${emu.url}/oauth/authorize?${query}`);
    const html = await pageAnswer.text();
    expect(pageAnswer.status).toBe(200);
    const cookie = pageAnswer.headers.get('set-cookie')!.split(';')[0]!;
    const field = (text: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(text)?.[1] ?? '';
    const csrf = field(html, 'csrf');
    const request = field(html, 'request');
    expect(csrf).not.toBe('');
    const post = (path: string, params: Record<string, string>, withCookie = true) =>
      fetch(emu.url + path, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...(withCookie ? { cookie } : {}) },
        body: new URLSearchParams(params).toString(),
      });

    const forged = await post('/oauth/authorize/signin', { csrf: 'forged', request, email: 'admin@acme.test', password: 'acme-admin' });
    expect(forged.status).toBe(403);
    const wrongPassword = await post('/oauth/authorize/signin', { csrf, request, email: 'admin@acme.test', password: 'nope' });
    expect(wrongPassword.status).toBe(401);
    const signIn = await post('/oauth/authorize/signin', { csrf, request, email: 'admin@acme.test', password: 'acme-admin' });
    const consent = await signIn.text();
    expect(signIn.status).toBe(200);
    expect(consent).toContain('calls:read');
    expect(consent).toContain('events:read');
    expect(consent).not.toContain('calls:write');
    expect(consent).toContain(`value="${emu.seed.org_id}"`);
    expect(consent).toContain('value="approve"');

    const approved = await post('/oauth/authorize/decision', {
      csrf: field(consent, 'csrf'),
      request: field(consent, 'request'),
      org_id: emu.seed.org_id,
      decision: 'approve',
    });
    expect([302, 303]).toContain(approved.status);
    const location = new URL(approved.headers.get('location')!);
    expect(location.searchParams.get('state')).toBe('st<&>');
    const tokens = await exchange(emu, location.searchParams.get('code')!, verifier, redirectUri);
    expect(tokens.body.scope).toBe('calls:read events:read');

    // Signed in already: the next authorize shows consent directly; Deny goes back with access_denied.
    const again = await (await fetch(`${emu.url}/oauth/authorize?${query}`, { headers: { cookie } })).text();
    expect(again).toContain('value="deny"');
    const denied = await post('/oauth/authorize/decision', {
      csrf: field(again, 'csrf'),
      request: field(again, 'request'),
      org_id: emu.seed.org_id,
      decision: 'deny',
    });
    expect(new URL(denied.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
  });
});
