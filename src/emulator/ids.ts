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
