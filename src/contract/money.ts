// Money as svc shows it everywhere but --json, and as the emulator's dashboard shows it (so it
// lives in the contract, the one part of the CLI side the emulator may import): dollars, exactly. The API counts in cents,
// possibly fractional (docs/contract.md: `available`, `unit_amount`); dividing by 100 in
// floating point would print 0.002 cents as 0.000019999999999999998 or 1e-7. Instead the
// number's own shortest decimal text (what the server's JSON said) has its point moved two
// places, so every digit the service sent is kept and none is made up.

/** `$12.34`, `$0.015`, `$0.00002`, `-$2.50`; another currency as `12.34 EUR`. At least two decimals. */
export function money(cents: number, currency = 'usd'): string {
  if (!Number.isFinite(cents)) return String(cents);
  const { whole, fraction } = shiftPoint(Math.abs(cents).toString(), -2);
  const amount = `${whole}.${fraction.padEnd(2, '0')}`;
  const sign = cents < 0 ? '-' : '';
  return currency.toLowerCase() === 'usd' ? `${sign}$${amount}` : `${sign}${amount} ${currency.toUpperCase()}`;
}

/**
 * The cents an amount of dollars (`5`, `0.50`, `$0.015`) stands for, exactly: the text's
 * point moved two places, never multiplied in floating point; undefined for anything else.
 */
export function centsOf(dollars: string): number | undefined {
  const text = dollars.replace(/^\$/, '');
  if (!/^\d+(\.\d+)?$/.test(text)) return undefined;
  const { whole, fraction } = shiftPoint(text, 2);
  const cents = Number(fraction ? `${whole}.${fraction}` : whole);
  return Number.isFinite(cents) ? cents : undefined;
}

/** A non-negative number's text (`1.5`, `2e-7`, `1e+21`) with its decimal point moved `places` (negative: left). */
function shiftPoint(text: string, places: number): { whole: string; fraction: string } {
  const [mantissa = '0', exponent = '0'] = text.split('e');
  const [integer = '0', decimals = ''] = mantissa.split('.');
  const digits = integer + decimals;
  const point = integer.length + Number(exponent) + places;
  const padded = point <= 0 ? '0'.repeat(1 - point) + digits : digits.padEnd(point, '0');
  const at = Math.max(point, 1);
  return { whole: padded.slice(0, at).replace(/^0+(?=\d)/, ''), fraction: padded.slice(at).replace(/0+$/, '') };
}

/**
 * docs/contract.md "Billing": amounts are exact to 1/10,000 of a cent, so the emulator keeps
 * them as integers of that unit (a subcent) and draws prices with no rounding (21 characters
 * at 0.002 cents draw 0.042 cents, 420 subcents).
 */
export const SUBCENTS_PER_CENT = 10_000;

/**
 * Cents (a JSON number) as whole subcents; NaN when the amount is finer than a subcent. The
 * product may miss the whole number by floating point's rounding (0.042 × 10,000 is
 * 420.00000000000006), a few units in its last place, never by a fraction of a subcent.
 */
export function subcentsOf(cents: number): number {
  const scaled = cents * SUBCENTS_PER_CENT;
  const subcents = Math.round(scaled);
  return Math.abs(subcents - scaled) <= 8 * Number.EPSILON * Math.max(1, Math.abs(scaled)) ? subcents : NaN;
}

/** Whole subcents as cents, the number the API sends (exact: 420 → 0.042). */
export function centsOfSubcents(subcents: number): number {
  return subcents / SUBCENTS_PER_CENT;
}
