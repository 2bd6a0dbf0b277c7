import { ConnectionError } from '../../src/api/network.js';
import { describe, expect, it } from 'vitest';
import { discover, validateMetadata, metadataUrl } from '../../src/auth/discovery.js';
import { OAuthStepError } from '../../src/auth/http.js';
import { refreshTokens, revokeToken, validateTokenResponse } from '../../src/auth/tokens.js';
import type { FetchInit, FetchLike } from '../../src/auth/http.js';
import { redactText } from '../../src/io/redact.js';

const good = {
  access_token: 'svc_oat_abc',
  token_type: 'Bearer',
  expires_in: 3600,
  refresh_token: 'svc_ort_def',
  scope: 'calls:read account:read',
  org_id: 'org_123',
};

describe('validateTokenResponse (docs/contract.md "Credentials and scopes")', () => {
  it('accepts a complete response and splits the scopes', () => {
    expect(validateTokenResponse(good)).toEqual({
      access_token: 'svc_oat_abc',
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: 'svc_ort_def',
      scopes: ['calls:read', 'account:read'],
      org_id: 'org_123',
    });
  });

  it('takes tokens of any shape as given: an opaque string of another service, a JWT access token', () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    const tokens = validateTokenResponse({ ...good, access_token: jwt, refresh_token: 'Zm9vYmFyYmF6-_~.+/=', token_type: 'bearer' });
    expect(tokens.access_token).toBe(jwt);
    expect(tokens.refresh_token).toBe('Zm9vYmFyYmF6-_~.+/=');
  });

  it('takes the requested scopes when the answer leaves scope out (RFC 6749 §5.1), and only then', () => {
    const { scope: _, ...without } = good;
    expect(validateTokenResponse(without, ['calls:read']).scopes).toEqual(['calls:read']);
    expect(() => validateTokenResponse(without)).toThrow(/"scope"/);
  });

  it('keeps no token out of --debug, errors or logs once it has arrived, whatever its shape', () => {
    const secret = 'opaque-token-from-elsewhere-1234';
    validateTokenResponse({ ...good, refresh_token: secret });
    expect(redactText(`refused ${secret}.`)).toBe('refused …1234.');
    expect(redactText('{"access_token": "never-seen-before-9876", "scope": "x"}')).toBe('{"access_token": "…9876", "scope": "x"}');
  });

  it.each([
    ['access_token', ''],
    ['access_token', 'has space'],
    ['access_token', 'x'.repeat(4097)],
    ['access_token', 'line\nbreak'],
    ['access_token', undefined],
    ['refresh_token', 42],
    ['token_type', 'mac'],
    ['expires_in', '3600'],
    ['expires_in', 0],
    ['expires_in', 1.5],
    ['scope', 'calls:read  account:read'],
    ['scope', ['calls:read']],
    ['org_id', ''],
    ['org_id', 42],
    ['org_id', 'org 1'],
  ])('refuses %s = %j, naming the field', (field, value) => {
    const body: Record<string, unknown> = { ...good, [field]: value };
    if (value === undefined) delete body[field];
    expect(() => validateTokenResponse(body)).toThrow(new RegExp(`"${field}"`));
  });
});

describe('token and revoke requests', () => {
  function recorder(status: number, body: string) {
    const calls: { url: string; init: FetchInit }[] = [];
    const fetchLike: FetchLike = async (url, init) => {
      calls.push({ url, init });
      return { status, headers: new Headers(), text: async () => body };
    };
    return { calls, fetchLike };
  }

  it('sends a public client id in the form, a confidential one as HTTP Basic', async () => {
    const pub = recorder(200, JSON.stringify(good));
    await refreshTokens(pub.fetchLike, 'http://x/oauth2/token', { clientId: 'svc_app_cli' }, 'svc_ort_1');
    const form = new URLSearchParams(pub.calls[0]!.init.body);
    expect(Object.fromEntries(form)).toEqual({ grant_type: 'refresh_token', refresh_token: 'svc_ort_1', client_id: 'svc_app_cli' });
    expect(pub.calls[0]!.init.headers.authorization).toBeUndefined();

    const conf = recorder(200, JSON.stringify(good));
    await refreshTokens(conf.fetchLike, 'http://x/oauth2/token', { clientId: 'svc_app_1', clientSecret: 'svc_cs_2' }, 'svc_ort_1');
    expect(conf.calls[0]!.init.headers.authorization).toBe(`Basic ${Buffer.from('svc_app_1:svc_cs_2').toString('base64')}`);
    expect(new URLSearchParams(conf.calls[0]!.init.body).has('client_id')).toBe(false);
  });

  it('turns an RFC 6749 §5.2 answer into an oauth error with its code', async () => {
    const { fetchLike } = recorder(400, JSON.stringify({ error: 'invalid_grant', error_description: 'used' }));
    const error = await refreshTokens(fetchLike, 'http://x/t', { clientId: 'c' }, 'r').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OAuthStepError);
    expect(error).toMatchObject({ kind: 'oauth', details: { oauthError: 'invalid_grant', status: 400 } });
  });

  it("reports an unreachable server in every command's words, not the library's", async () => {
    const fetchLike: FetchLike = async () => {
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }) });
    };
    const error = await revokeToken(fetchLike, 'http://127.0.0.1:9/oauth2/revoke', { clientId: 'c' }, { value: 'svc_oat_1', hint: 'access_token' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toBe('cannot reach http://127.0.0.1:9: nothing answered there (connection refused); nothing was sent');
    expect((error as ConnectionError).exitCode).toBe(9);
  });
});

describe('discovery (RFC 8414)', () => {
  const metadata = {
    issuer: 'http://127.0.0.1:4010',
    authorization_endpoint: 'http://127.0.0.1:4010/oauth/authorize',
    token_endpoint: 'http://127.0.0.1:4010/oauth2/token',
    revocation_endpoint: 'http://127.0.0.1:4010/oauth2/revoke',
    code_challenge_methods_supported: ['S256'],
  };

  it('builds the well-known address per §3', () => {
    expect(metadataUrl('http://127.0.0.1:4010/')).toBe('http://127.0.0.1:4010/.well-known/oauth-authorization-server');
    expect(metadataUrl('https://api.example/tenant')).toBe('https://api.example/.well-known/oauth-authorization-server/tenant');
  });

  it('accepts matching metadata and refuses another issuer or no S256', () => {
    expect(validateMetadata(metadata, 'http://127.0.0.1:4010/').token_endpoint).toBe(metadata.token_endpoint);
    expect(() => validateMetadata({ ...metadata, issuer: 'https://evil.example' }, 'http://127.0.0.1:4010')).toThrow(/issuer/);
    expect(() => validateMetadata({ ...metadata, code_challenge_methods_supported: ['plain'] }, 'http://127.0.0.1:4010')).toThrow(/S256/);
    expect(() => validateMetadata({ ...metadata, token_endpoint: 42 }, 'http://127.0.0.1:4010')).toThrow(/token_endpoint/);
  });

  it('an issuer with a path: RFC 8414 §3.1 first, the appended form only after a 404; one request without a path', async () => {
    const asked: string[] = [];
    const answering =
      (at: string): FetchLike =>
      async (url) => {
        asked.push(url);
        const body = JSON.stringify({ ...metadata, issuer: 'http://127.0.0.1:4010/tenant' });
        return { status: url === at ? 200 : 404, headers: new Headers(), text: async () => (url === at ? body : 'not found') };
      };
    await discover(answering('http://127.0.0.1:4010/.well-known/oauth-authorization-server/tenant'), 'http://127.0.0.1:4010/tenant');
    expect(asked).toEqual(['http://127.0.0.1:4010/.well-known/oauth-authorization-server/tenant']);
    asked.length = 0;
    await discover(answering('http://127.0.0.1:4010/tenant/.well-known/oauth-authorization-server'), 'http://127.0.0.1:4010/tenant');
    expect(asked).toEqual([
      'http://127.0.0.1:4010/.well-known/oauth-authorization-server/tenant',
      'http://127.0.0.1:4010/tenant/.well-known/oauth-authorization-server',
    ]);
    asked.length = 0;
    const error = await discover(answering('nowhere'), 'http://127.0.0.1:4010/tenant').catch((e: unknown) => e);
    expect((error as Error).message).toContain('answered HTTP 404 (also tried http://127.0.0.1:4010/.well-known/oauth-authorization-server/tenant: 404)');
    asked.length = 0;
    await discover(answering('http://127.0.0.1:4010/.well-known/oauth-authorization-server'), 'http://127.0.0.1:4010').catch(() => {});
    expect(asked).toHaveLength(1);
  });

  it('RFC 9700 §4.4: a sign-in page on another origin is taken only from a server that names itself in its answers (RFC 9207)', () => {
    const elsewhere = { ...metadata, authorization_endpoint: 'https://genuine.example/authorize' };
    expect(() => validateMetadata(elsewhere, 'http://127.0.0.1:4010')).toThrow(
      /sends the sign-in to https:\/\/genuine\.example, another origin than the issuer/,
    );
    const named = validateMetadata({ ...elsewhere, authorization_response_iss_parameter_supported: true }, 'http://127.0.0.1:4010');
    expect(named).toMatchObject({ authorization_endpoint: 'https://genuine.example/authorize', authorization_response_iss_parameter_supported: true });
    expect(() => validateMetadata({ ...metadata, authorization_response_iss_parameter_supported: 'yes' }, 'http://127.0.0.1:4010')).toThrow(/iss_parameter/);
  });
});
