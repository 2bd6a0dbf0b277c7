// Helpers of the key commands.
import type { KeyMeta } from '../config/config.js';
import { OAUTH_SECRET_NAME } from '../config/config.js';
import { PREFIX } from '../contract/constants.js';
import { UsageError } from '../errors.js';

/** Key names end up in keychain account names (`<profile>:<name>`) and in table cells. */
export function parseKeyName(value: unknown, flag = '--name'): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(value))
    throw new UsageError(`${flag} must be 1–64 letters, digits, "_", "." or "-" (e.g. ci), not ${JSON.stringify(value)}`);
  if (value === OAUTH_SECRET_NAME) throw new UsageError(`"${OAUTH_SECRET_NAME}" is reserved for the OAuth sign-in; choose another key name`);
  return value;
}

/** `svc_test_…abcd` from what config.json keeps (never the key itself). */
export function redactedKey(meta: Pick<KeyMeta, 'mode' | 'last4'>): string {
  return `${meta.mode === 'live' ? PREFIX.liveKey : PREFIX.testKey}…${meta.last4}`;
}
