// Pure pieces: retry decisions, Retry-After parsing, redaction, error detail texts, resolution.
import { describe, expect, it } from 'vitest';
import { backoffDelay, decideRetry, MAX_ATTEMPTS, parseRetryAfter } from '../../src/api/retry.js';
import { redact, redactForm, redactText } from '../../src/io/redact.js';
import { apiErrorFrom, detailText, missingScope } from '../../src/api/errors.js';
import { fillPath, joinUrl } from '../../src/contract/endpoints.js';
import { renderTsv, relativeTime } from '../../src/io/output.js';
import { chooseMode } from '../../src/credentials/resolve.js';
import { bodyOf, fieldValue } from '../../src/commands/api.js';

describe('retry decisions', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it('429: waits Retry-After for any method, up to the attempt bound', () => {
    expect(decideRetry('POST', 1, { status: 429, retryAfter: '2' }, now, 0)).toEqual({ retry: true, waitMs: 2000 });
    expect(decideRetry('GET', MAX_ATTEMPTS, { status: 429, retryAfter: '2' }, now, 0)).toEqual({ retry: false, reason: 'attempts' });
    expect(decideRetry('GET', 1, { status: 429, retryAfter: '61' }, now, 0)).toEqual({ retry: false, reason: 'retry-after-too-long' });
  });
  it('502 and network errors: idempotent methods only', () => {
    expect(decideRetry('GET', 1, { status: 502 }, now, 0.5)).toMatchObject({ retry: true });
    expect(decideRetry('DELETE', 1, { networkError: true }, now, 0.5)).toMatchObject({ retry: true });
    expect(decideRetry('POST', 1, { status: 502 }, now, 0.5)).toEqual({ retry: false, reason: 'not-idempotent' });
    expect(decideRetry('POST', 1, { networkError: true }, now, 0.5)).toEqual({ retry: false, reason: 'not-idempotent' });
  });
  it('other statuses are final', () => {
    for (const status of [200, 400, 401, 402, 403, 404, 409, 422, 500])
      expect(decideRetry('GET', 1, { status }, now, 0)).toEqual({ retry: false, reason: 'final' });
  });
  it('a connection never made (nothing sent) is retried for a POST too; a scheme mismatch for nothing', () => {
    expect(decideRetry('POST', 1, { networkError: true, reached: false }, now, 0.5)).toMatchObject({ retry: true });
    expect(decideRetry('POST', 1, { networkError: true, reached: true }, now, 0.5)).toEqual({ retry: false, reason: 'not-idempotent' });
    expect(decideRetry('GET', 1, { networkError: true, reached: false, retryable: false }, now, 0.5)).toEqual({ retry: false, reason: 'final' });
  });
  it('backoff grows, is capped, and is jittered', () => {
    expect(backoffDelay(1, 0)).toBeLessThan(backoffDelay(1, 0.99));
    expect(backoffDelay(2, 0)).toBeGreaterThan(backoffDelay(1, 0));
    expect(backoffDelay(30, 0.99)).toBeLessThanOrEqual(10_000);
  });
  it('Retry-After: seconds or an HTTP date', () => {
    expect(parseRetryAfter('5', now)).toBe(5000);
    expect(parseRetryAfter(new Date(now + 7000).toUTCString(), now)).toBe(7000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});

describe('redaction', () => {
  it('keeps the prefix and the last four', () => {
    expect(redact('svc_test_abcdefghijklmnop1234')).toBe('svc_test_…1234');
    expect(redact('svc_oat_abcdefghijklmnopWXYZ')).toBe('svc_oat_…WXYZ');
    expect(redact('short')).toBe('…');
  });
  it('scrubs every svc secret inside text and secret form fields', () => {
    const text = 'key svc_live_aaaaaaaaaaaa9999 and token svc_ort_bbbbbbbbbbbb8888.';
    expect(redactText(text)).toBe('key svc_live_…9999 and token svc_ort_…8888.');
    expect(redactText(text)).not.toMatch(/aaaa|bbbb/);
    const form = redactForm('grant_type=authorization_code&code=abcdefghijklmn1234&code_verifier=zzzzzzzzzzzzzzzzzzzzz9876&client_id=svc_app_cli');
    expect(form).toBe('grant_type=authorization_code&code=…1234&code_verifier=…9876&client_id=svc_app_cli');
  });
});

describe('error texts', () => {
  it('422 lists each field and its problem', () => {
    expect(
      detailText({
        detail: [
          { loc: ['body', 'to'], msg: 'must be E.164', type: 'value_error' },
          { loc: ['query', 'limit'], msg: 'too big' },
        ],
      }),
    ).toBe('to: must be E.164; limit: too big');
  });
  it('403 names the missing scope; OAuth errors read as RFC 6749', () => {
    expect(missingScope('this key or app lacks the calls:write scope')).toBe('calls:write');
    expect(detailText({ error: 'invalid_grant', error_description: 'used' })).toBe('invalid_grant: used');
  });
  it('the exit code table', () => {
    const codes = Object.fromEntries(
      [400, 401, 402, 403, 404, 409, 422, 429, 500, 502].map((s) => [s, apiErrorFrom(s, { detail: 'x' }, { method: 'GET', path: '/v1/x' }).exitCode]),
    );
    expect(codes).toEqual({ 400: 1, 401: 3, 402: 8, 403: 4, 404: 5, 409: 6, 422: 2, 429: 7, 500: 1, 502: 9 });
  });
  it('an OAuth 403 points at svc login with the scope', () => {
    const e = apiErrorFrom(
      403,
      { detail: 'this key or app lacks the translate scope' },
      {
        method: 'POST',
        path: '/v1/translate',
        credential: { kind: 'oauth', source: 'profile', mode: 'live', profileName: 'work' },
        org: 'Acme',
      },
    );
    expect(e.message).toContain('[profile "work", Acme, live mode]');
    expect(e.hint).toContain('svc login --profile work --scopes translate');
  });
});

describe('small helpers', () => {
  it('paths are filled and encoded; base URLs may carry a prefix', () => {
    expect(fillPath('/v1/calls/{id}/end', { id: 'a/../b' })).toBe('/v1/calls/a%2F..%2Fb/end');
    expect(() => fillPath('/v1/calls/{id}', {})).toThrow(/missing path parameter/);
    expect(joinUrl('https://api.example/base/', '/v1/calls').href).toBe('https://api.example/base/v1/calls');
  });
  it('TSV cells never break the columns', () => {
    expect(
      renderTsv(
        [{ a: 'x\ty', b: 'line\nbreak', c: null }],
        [
          { header: 'A', value: (r) => r.a },
          { header: 'B', value: (r) => r.b },
          { header: 'C', value: (r) => r.c },
        ],
      ),
    ).toBe('x y\tline break\t\n');
  });
  it('relative times', () => {
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(relativeTime('2026-01-01T11:57:00Z', now)).toBe('3 min ago');
    expect(relativeTime(now + 2 * 3600_000, now)).toBe('in 2 h');
  });
  it('the default mode follows the credentials the profile has', () => {
    const g = { globals: { json: false, debug: false, color: false, yes: false }, env: {} };
    const key = (mode: 'test' | 'live') => ({ name: mode, mode, last4: 'abcd', scopes: [], storage: 'memory' as const, added_at: '2026-01-01' });
    expect(chooseMode(g, undefined)).toBe('test');
    expect(chooseMode(g, { keys: { live: key('live') } })).toBe('live');
    expect(chooseMode(g, { keys: { live: key('live'), test: key('test') } })).toBe('test');
    expect(chooseMode(g, { keys: { test: key('test') }, mode: 'live' })).toBe('live');
    expect(chooseMode({ ...g, env: { SVC_MODE: 'live' } }, { mode: 'test' })).toBe('live');
  });
  it('svc api -F values and arrays', () => {
    expect([fieldValue('3'), fieldValue('true'), fieldValue('null'), fieldValue('+14155550100'), fieldValue('007')]).toEqual([
      3,
      true,
      null,
      '+14155550100',
      '007',
    ]);
    expect(
      bodyOf([
        ['languages[]', 'en'],
        ['languages[]', 'es'],
        ['title', 'x'],
      ]),
    ).toEqual({ languages: ['en', 'es'], title: 'x' });
  });
});
