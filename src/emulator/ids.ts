import { createHash, randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';

/** A random URL-safe token of `bytes` bytes of entropy. */
export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

/** An object id: its prefix and 20 random alphanumerics. */
export function newId(prefix: string): string {
  return prefix + randomBytes(15).toString('base64url').replace(/[-_]/g, 'x');
}

/** Only hashes of keys and tokens are kept (docs/contract.md "Authentication" 4). */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

// An admin's password is kept and exported only as `scrypt:<salt>:<hash>` (hex). The cost is
// scrypt's N=2^12: these are an emulator's throwaway passwords, and a reset must stay quick.
const SCRYPT_COST = { N: 4096, r: 8, p: 1 };

export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  return `scrypt:${salt.toString('hex')}:${scryptSync(password, salt, 32, SCRYPT_COST).toString('hex')}`;
}

export function passwordMatches(password: string, stored: string): boolean {
  const [kind, salt, hash] = stored.split(':');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  return sameSecret(scryptSync(password, Buffer.from(salt, 'hex'), 32, SCRYPT_COST).toString('hex'), hash);
}

export function sameSecret(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/** A time as the API writes it: RFC 3339, whole seconds, UTC. */
export function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * rfc3339 that keeps the last second's text: a burst publishes thousands of events within
 * one second (the toISOString is most of an event's cost then). One per emulator state.
 */
export function lastSecondRfc3339(): (ms: number) => string {
  let second = Number.NaN;
  let text = '';
  return (ms) => {
    const current = Math.floor(ms / 1000);
    if (current !== second) {
      text = rfc3339(ms);
      second = current;
    }
    return text;
  };
}
