import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { codeChallengeS256, createPkce, createState } from '../../src/auth/pkce.js';

const fixedRandom = (fill: number) => ({ bytes: (n: number) => new Uint8Array(n).fill(fill) });

describe('PKCE (RFC 7636)', () => {
  it('matches the RFC 7636 Appendix B example', () => {
    // Appendix B: verifier dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk → challenge E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM
    expect(codeChallengeS256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('makes a 43-character verifier from 32 random bytes, and its S256 challenge', () => {
    let asked = 0;
    const pkce = createPkce({ bytes: (n) => ((asked = n), new Uint8Array(n).fill(7)) });
    expect(asked).toBe(32);
    expect(pkce.method).toBe('S256');
    expect(pkce.verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(pkce.challenge).toBe(createHash('sha256').update(pkce.verifier).digest('base64url'));
  });

  it('draws verifier and state from the injected randomness', () => {
    expect(createPkce(fixedRandom(1)).verifier).not.toBe(createPkce(fixedRandom(2)).verifier);
    expect(createState(fixedRandom(1))).not.toBe(createState(fixedRandom(2)));
    expect(createState(fixedRandom(3))).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});
