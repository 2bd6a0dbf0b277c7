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
