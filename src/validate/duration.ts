import { invalid } from './invalid.js';

const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * svc's one duration grammar, for flags (`--timeout`, `--expires-in`) and SVC_HTTP_TIMEOUT
 * alike: a number and a unit, ms, s, m, h or d, or several (1h30m, 1m30s), in milliseconds.
 * A bare number is refused where it would be ambiguous ("expires in 60": seconds? minutes?);
 * `bareSeconds` takes it as seconds (90, 0.5) where that is what it has always meant
 * (SVC_HTTP_TIMEOUT).
 */
export function parseDurationMs(value: string, what = 'duration', opts: { bareSeconds?: boolean } = {}): number {
  const trimmed = value.trim().toLowerCase();
  const example = `give ${opts.bareSeconds ? 'seconds or ' : ''}a number and a unit, e.g. ${opts.bareSeconds ? '90, ' : ''}90s, 15m, 1h, 2d or 1h30m`;
  let ms = 0;
  if (opts.bareSeconds && /^\d+(\.\d+)?$/.test(trimmed)) ms = Math.round(Number(trimmed) * 1000);
  else {
    if (!/^(\d+(ms|[smhd]))+$/.test(trimmed)) invalid(`${what} "${value}" is not a duration: ${example}`);
    const seenUnits = new Set<string>();
    for (const [, amount = '', unit = ''] of trimmed.matchAll(/(\d+)(ms|[smhd])/g)) {
      if (seenUnits.has(unit)) invalid(`${what} "${value}" repeats the unit "${unit}": ${example}`);
      seenUnits.add(unit);
      ms += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
    }
  }
  if (ms <= 0) invalid(`${what} "${value}" must be longer than zero: ${example}`);
  if (!Number.isSafeInteger(ms)) invalid(`${what} "${value}" is too long: ${example}`);
  return ms;
}
