import { invalid } from './invalid.js';

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * A duration such as 90s, 15m, 1h, 2d or a combination like 1h30m, in milliseconds.
 * A bare number is refused on purpose: "expires in 60" is ambiguous (seconds? minutes?).
 */
export function parseDurationMs(value: string, what = 'duration'): number {
  const trimmed = value.trim().toLowerCase();
  const example = 'give a number and a unit, e.g. 90s, 15m, 1h, 2d or 1h30m';
  if (!/^(\d+[smhd])+$/.test(trimmed)) invalid(`${what} "${value}" is not a duration: ${example}`);
  let ms = 0;
  const seenUnits = new Set<string>();
  for (const [, amount = '', unit = ''] of trimmed.matchAll(/(\d+)([smhd])/g)) {
    if (seenUnits.has(unit)) invalid(`${what} "${value}" repeats the unit "${unit}": ${example}`);
    seenUnits.add(unit);
    ms += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  }
  if (ms <= 0) invalid(`${what} "${value}" must be longer than zero: ${example}`);
  if (!Number.isSafeInteger(ms)) invalid(`${what} "${value}" is too long: ${example}`);
  return ms;
}
