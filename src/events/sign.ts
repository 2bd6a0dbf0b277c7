// The signature each forwarded delivery carries, as Stripe's webhooks do it:
//   Svc-Signature: t=<unix seconds>,v1=<lowercase hex HMAC-SHA256 of "<t>.<raw body>">
// keyed with the profile's forwarding secret. Signing the timestamp with the body lets a
// handler refuse an old delivery replayed by someone who captured it.
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

export const SIGNATURE_HEADER = 'svc-signature';

/** `secret`: the forwarding secret, or a KeyObject made from it once (cheaper per delivery). */
export function signatureValue(secret: string | KeyObject, body: string, unixSeconds: number): string {
  const t = Math.floor(unixSeconds);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}

/** Signs bodies with one secret at the clock's current second (the key made once, not per delivery). */
export function signer(secret: string, clock: { now(): number }): (body: string) => string {
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  return (body) => signatureValue(key, body, clock.now() / 1000);
}
