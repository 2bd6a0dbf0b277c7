import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A random URL-safe token of `bytes` bytes of entropy. */
export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}

/** An object id: its prefix and 20 random alphanumerics. */
export function newId(prefix: string): string {
  return prefix + randomBytes(15).toString('base64url').replace(/[-_]/g, 'x');
}

/** Only hashes of keys and tokens are kept (service-spec.md §5.4). */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function sameSecret(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/** The last second formatted: a burst publishes thousands of events within one second. */
const lastFormatted = { second: Number.NaN, text: '' };

export function rfc3339(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastFormatted.second) {
    lastFormatted.text = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    lastFormatted.second = second;
  }
  return lastFormatted.text;
}
