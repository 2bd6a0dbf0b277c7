// Money as every table, TSV line and message shows it: dollars, exactly, from the API's cents.
import { describe, expect, it } from 'vitest';
import { money } from '../../src/io/money.js';
import { centsOfSubcents, subcentsOf } from '../../src/contract/money.js';

describe('money', () => {
  it('shows cents as dollars with at least two decimals', () => {
    expect(money(1234)).toBe('$12.34');
    expect(money(10_000)).toBe('$100.00');
    expect(money(5)).toBe('$0.05');
    expect(money(0)).toBe('$0.00');
    expect(money(-0)).toBe('$0.00');
    expect(money(100)).toBe('$1.00');
  });
  it('keeps every digit of a fractional price, with no float noise and no exponent', () => {
    expect(money(1.5)).toBe('$0.015');
    expect(money(0.002)).toBe('$0.00002');
    expect(money(0.15)).toBe('$0.0015');
    expect(money(1e-5)).toBe('$0.0000001');
    expect(money(2e-7)).toBe('$0.000000002');
    expect(money(1.23e-13)).toBe('$0.00000000000000123');
    expect(money(12_345_678.9)).toBe('$123456.789');
    expect(money(1e23)).toBe('$1000000000000000000000.00');
  });
  it('puts the sign before the dollar sign, and names another currency', () => {
    expect(money(-250)).toBe('-$2.50');
    expect(money(-0.002)).toBe('-$0.00002');
    expect(money(1234, 'eur')).toBe('12.34 EUR');
    expect(money(1234, 'USD')).toBe('$12.34');
  });
  it('a balance the emulator drew exactly shows exactly (1/10,000 of a cent, docs/contract.md "Billing")', () => {
    const drawn = subcentsOf(10_000) - subcentsOf(0.002) * 21;
    expect(centsOfSubcents(drawn)).toBe(9999.958);
    expect(money(centsOfSubcents(drawn))).toBe('$99.99958');
    expect(money(centsOfSubcents(subcentsOf(0.002) * 21))).toBe('$0.00042');
    expect(subcentsOf(0.00001)).toBeNaN();
    // Finer than a subcent on a large amount too: $1.0000001 is 1,000,000.1 subcents, not $1.00.
    expect(subcentsOf(100.00001)).toBeNaN();
    expect(subcentsOf(123_456_789.00001)).toBeNaN();
    expect(subcentsOf(123_456_789.0001)).toBe(1_234_567_890_001);
    expect(subcentsOf(0.042)).toBe(420);
  });
});
