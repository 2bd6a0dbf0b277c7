import { LIMITS, checkText } from '../contract/index.js';
import { invalid } from './invalid.js';

/** docs/contract.md "Conventions": list pages hold 1–100 objects. */
export const MAX_PAGE_LIMIT = LIMITS.listLimitMax;

/** A text that must not be empty and must fit `maxLength` characters (code points), by the contract's rule. */
export function parseText(value: string, what: string, maxLength = Number.POSITIVE_INFINITY): string {
  const result = checkText(value, maxLength);
  if (!result.ok) invalid(result.problem === 'empty' ? `${what} is empty: give some text` : `${what} is ${result.problem}`);
  return result.value;
}
