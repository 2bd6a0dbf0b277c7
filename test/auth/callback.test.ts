import { describe, expect, it } from 'vitest';
import { interpretCallback, parsePastedRedirect } from '../../src/auth/callback.js';

const state = 'expected-state';

describe('interpretCallback', () => {
  it('accepts a code only with the expected state', () => {
    expect(interpretCallback(new URLSearchParams({ code: 'c1', state }), state)).toEqual({ kind: 'code', code: 'c1' });
    expect(interpretCallback(new URLSearchParams({ code: 'c1', state: 'other' }), state).kind).toBe('foreign');
    expect(interpretCallback(new URLSearchParams({ code: 'c1' }), state).kind).toBe('foreign');
  });

  it('reports access_denied as a refusal, other errors with their description, but never without our state', () => {
    expect(interpretCallback(new URLSearchParams({ error: 'access_denied', state }), state)).toEqual({ kind: 'denied' });
    expect(interpretCallback(new URLSearchParams({ error: 'invalid_scope', error_description: 'no', state }), state)).toEqual({
      kind: 'error',
      error: 'invalid_scope',
      description: 'no',
    });
    expect(interpretCallback(new URLSearchParams({ error: 'access_denied', state: 'forged' }), state).kind).toBe('foreign');
  });
});

describe('parsePastedRedirect', () => {
  it('takes the whole redirect address, with surrounding blanks', () => {
    expect(parsePastedRedirect(`  http://127.0.0.1:5555/callback?code=abc&state=${state}\n`, state)).toEqual({ kind: 'code', code: 'abc' });
  });

  it('takes only the query part too', () => {
    expect(parsePastedRedirect(`?code=abc&state=${state}`, state)).toEqual({ kind: 'code', code: 'abc' });
    expect(parsePastedRedirect(`code=abc&state=${state}`, state)).toEqual({ kind: 'code', code: 'abc' });
  });

  it('says why a paste is not the answer', () => {
    expect(parsePastedRedirect('', state)).toMatchObject({ kind: 'foreign', reason: 'it is empty' });
    expect(parsePastedRedirect('hello there', state).kind).toBe('foreign');
    expect(parsePastedRedirect(`http://127.0.0.1:1/callback?code=abc&state=nope`, state)).toMatchObject({
      kind: 'foreign',
      reason: expect.stringContaining('state'),
    });
  });
});

describe('RFC 9207 "iss" on the answer', () => {
  const issuer = { issuer: 'https://auth.example', required: true };

  it('uses an answer only when its iss is the issuer discovered, compared as a string', () => {
    expect(interpretCallback(new URLSearchParams({ code: 'c1', state, iss: 'https://auth.example' }), state, issuer)).toEqual({ kind: 'code', code: 'c1' });
    expect(interpretCallback(new URLSearchParams({ code: 'c1', state, iss: 'https://auth.example/' }), state, issuer)).toEqual({
      kind: 'wrong_issuer',
      expected: 'https://auth.example',
      got: 'https://auth.example/',
    });
  });

  it('refuses an answer of another server even when it is an error or a refusal, and one without iss where it is required', () => {
    const other = { state, iss: 'https://genuine.example' };
    expect(interpretCallback(new URLSearchParams({ ...other, error: 'access_denied' }), state, issuer).kind).toBe('wrong_issuer');
    expect(interpretCallback(new URLSearchParams({ code: 'c1', state }), state, issuer)).toEqual({ kind: 'wrong_issuer', expected: issuer.issuer, got: null });
    // Not advertised: an answer without iss is taken, one with the wrong iss still is not.
    const optional = { ...issuer, required: false };
    expect(interpretCallback(new URLSearchParams({ code: 'c1', state }), state, optional).kind).toBe('code');
    expect(interpretCallback(new URLSearchParams({ ...other, code: 'c1' }), state, optional).kind).toBe('wrong_issuer');
  });

  it('checks a pasted redirect the same way', () => {
    const pasted = `http://127.0.0.1:5000/callback?code=c1&state=${state}&iss=${encodeURIComponent('https://genuine.example')}`;
    expect(parsePastedRedirect(pasted, state, issuer)).toEqual({ kind: 'wrong_issuer', expected: issuer.issuer, got: 'https://genuine.example' });
  });

  it('a forged answer without our state cannot end the login, whatever its iss', () => {
    expect(interpretCallback(new URLSearchParams({ code: 'c1', state: 'forged', iss: 'https://x' }), state, issuer).kind).toBe('foreign');
  });
});
