import { invalid } from './invalid.js';

/** api-contract.md "Conventions": list pages hold 1–100 objects. */
export const MAX_PAGE_LIMIT = 100;

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

/**
 * A text that must not be empty and must fit a maximum length, counted in Unicode code
 * points (characters as people count them: an emoji is one, not two UTF-16 units).
 */
export function parseText(value: string, what: string, maxLength = Number.POSITIVE_INFINITY): string {
  if (value.trim() === '') invalid(`${what} is empty: give some text`);
  if (value.length > maxLength) {
    // UTF-16 length is an upper bound of the code points: count them only when it matters.
    const characters = [...value].length;
    if (characters > maxLength) {
      invalid(`${what} is ${characters.toLocaleString('en-US')} characters long; the limit is ${maxLength.toLocaleString('en-US')}`);
    }
  }
  return value;
}
