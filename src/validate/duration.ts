import { invalid } from './invalid.js';

const UNIT_SECONDS = { s: 1, m: 60, h: 3600, d: 86_400 } as const;

/**
 * A duration such as 90s, 15m, 1h, 2d or a combination like 1h30m, in whole seconds.
 * A bare number is refused on purpose: "expires in 60" is ambiguous (seconds? minutes?).
 */
export function parseDurationSeconds(value: string, what = 'duration'): number {
  const trimmed = value.trim().toLowerCase();
  const example = 'give a number and a unit, e.g. 90s, 15m, 1h, 2d or 1h30m';
  if (!/^(\d+[smhd])+$/.test(trimmed)) invalid(`${what} "${value}" is not a duration: ${example}`);
  let seconds = 0;
  const seenUnits = new Set<string>();
  for (const [, amount = '', unit = ''] of trimmed.matchAll(/(\d+)([smhd])/g)) {
    if (seenUnits.has(unit)) invalid(`${what} "${value}" repeats the unit "${unit}": ${example}`);
    seenUnits.add(unit);
    seconds += Number(amount) * UNIT_SECONDS[unit as keyof typeof UNIT_SECONDS];
  }
  if (seconds <= 0) invalid(`${what} "${value}" must be longer than zero: ${example}`);
  if (!Number.isSafeInteger(seconds)) invalid(`${what} "${value}" is too long: ${example}`);
  return seconds;
}
