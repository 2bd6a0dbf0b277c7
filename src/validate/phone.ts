import { invalid } from './invalid.js';

/**
 * An E.164 phone number (ITU-T E.164): "+", a country code that does not start
 * with 0, 8 to 15 digits in all (15 is E.164's maximum; fewer than 8 is a country code
 * with a fragment, like +12, not a number that can ring). Spaces, dots, dashes and
 * parentheses that people paste from address books are removed first; anything else
 * is refused.
 */
export function parseE164(value: string, what = 'phone number'): string {
  const compact = value.trim().replace(/[\s.\-()]/g, '');
  if (!/^\+[1-9]\d{7,14}$/.test(compact)) {
    const digits = compact.startsWith('+') && /^\+\d+$/.test(compact) ? compact.length - 1 : undefined;
    const hint = !compact.startsWith('+')
      ? ' (it must start with + and the country code)'
      : digits !== undefined && (digits < 8 || digits > 15)
        ? ` (it has ${digits} digit${digits === 1 ? '' : 's'}; E.164 numbers have 8 to 15, country code included)`
        : '';
    invalid(`${what} "${value}" is not an E.164 number${hint}: give e.g. +14155550100`);
  }
  return compact;
}

/** An ISO 3166-1 alpha-2 country code, upper-cased (`us` → `US`). */
export function parseCountryCode(value: string, what = 'country'): string {
  const upper = value.trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(upper)) invalid(`${what} "${value}" is not a two-letter ISO country code: give e.g. US, GB or DE`);
  return upper;
}

/** A telephone area code: 2–5 digits, e.g. 415. */
export function parseAreaCode(value: string, what = 'area code'): string {
  const trimmed = value.trim();
  if (!/^\d{2,5}$/.test(trimmed)) invalid(`${what} "${value}" must be 2 to 5 digits, e.g. 415`);
  return trimmed;
}
