import { LIMITS, checkText } from '../contract/index.js';
import { invalid } from './invalid.js';

/** api-contract.md "Conventions": list pages hold 1–100 objects. */
export const MAX_PAGE_LIMIT = LIMITS.listLimitMax;

/** `--limit N`: a whole number from 1 to 100. */
export function parseLimit(value: string | number, what = '--limit'): number {
  const text = String(value).trim();
  const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE_LIMIT) {
    invalid(`${what} "${value}" must be a whole number from 1 to ${MAX_PAGE_LIMIT} (use --all to fetch everything)`);
  }
  return n;
}

/** One of a fixed set of values, e.g. `--status active|ended`. */
export function parseChoice<const T extends string>(value: string, choices: readonly T[], what: string): T {
  const lower = value.trim().toLowerCase();
  const match = choices.find((choice) => choice === lower);
  if (match === undefined) invalid(`${what} "${value}" must be one of: ${choices.join(', ')}`);
  return match;
}

/** A text that must not be empty and must fit `maxLength` characters (code points), by the contract's rule. */
export function parseText(value: string, what: string, maxLength = Number.POSITIVE_INFINITY): string {
  const result = checkText(value, maxLength);
  if (!result.ok) invalid(result.problem === 'empty' ? `${what} is empty: give some text` : `${what} is ${result.problem}`);
  return result.value;
}
