import { LIMITS, checkAreaCode, checkCountryCode, checkE164 } from '../contract/index.js';
import { invalid } from './invalid.js';

/**
 * An E.164 phone number as a person pastes it: spaces, dots, dashes and parentheses from
 * address books are removed, then the contract's rule decides (src/contract/rules.ts:
 * "+", a country code not starting with 0, 7 to 15 digits in all).
 */
export function parseE164(value: string, what = 'phone number'): string {
  const result = checkE164(value.trim().replace(/[\s.\-()]/g, ''));
  if (!result.ok) invalid(`${what} "${value}" is ${result.problem}: give e.g. +14155550100`);
  return result.value;
}

/** An ISO 3166-1 alpha-2 country code, upper-cased (`us` → `US`). */
export function parseCountryCode(value: string, what = 'country'): string {
  const result = checkCountryCode(value.trim().toUpperCase());
  if (!result.ok) invalid(`${what} "${value}" is not a two-letter ISO country code: give e.g. US, GB or DE`);
  return result.value;
}

/** A telephone area code, by the contract's rule (2–5 digits, e.g. 415). */
export function parseAreaCode(value: string, what = 'area code'): string {
  const result = checkAreaCode(value.trim());
  if (!result.ok) invalid(`${what} "${value}" must be ${LIMITS.areaCodeDigitsMin} to ${LIMITS.areaCodeDigitsMax} digits, e.g. 415`);
  return result.value;
}
