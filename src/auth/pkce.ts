// Proof Key for Code Exchange (RFC 7636) and the OAuth `state` value, from the
// context's randomness so that tests can make them deterministic.
import { createHash } from 'node:crypto';
import type { Random } from '../shared/runtime.js';

export interface Pkce {
  /** RFC 7636 §4.1: high-entropy string of unreserved characters, 43–128 long. */
  verifier: string;
  /** RFC 7636 §4.2: BASE64URL(SHA256(ASCII(code_verifier))). */
  challenge: string;
  method: 'S256';
}

/** RFC 7636 Appendix A: base64url without padding. */
export function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}

/** RFC 7636 §4.2, S256: the challenge sent to the authorize endpoint. */
export function codeChallengeS256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/**
 * RFC 7636 §4.1 recommends 32 octets of randomness, base64url-encoded, which gives a
 * 43-character verifier.
 */
export function createPkce(random: Random): Pkce {
  const verifier = base64url(random.bytes(32));
  return { verifier, challenge: codeChallengeS256(verifier), method: 'S256' };
}

/** RFC 6749 §10.12: an unguessable value binding the callback to this login attempt. */
export function createState(random: Random): string {
  return base64url(random.bytes(16));
}
