// Live mode draws from the organization's prepaid balance; test mode is free
// (docs/contract.md "Test mode"). Prices are the emulator's own, shown in /v1/prices
// in cents; the balance and every draw are whole subcents (1/10,000 of a cent,
// docs/contract.md "Billing"), so a price is drawn exactly, never rounded up to a cent.
import { z } from 'zod';
import type { Credential } from './auth.js';
import { paymentRequired } from './errors.js';
import { publish } from './events.js';
import type { State } from './state.js';
import { centsOfSubcents, subcentsOf } from '../contract/money.js';

export const PRICES = [
  { object: 'price', item: 'call_minute', unit_amount: 2, currency: 'usd' },
  { object: 'price', item: 'dial_minute', unit_amount: 3, currency: 'usd' },
  { object: 'price', item: 'translation_character', unit_amount: 0.002, currency: 'usd' },
  { object: 'price', item: 'line_month', unit_amount: 100, currency: 'usd' },
] as const;

/** An amount of cents the emulator is given (a balance): not negative, exact to a subcent. */
export const centsAmount = z
  .number()
  .min(0)
  .refine((cents) => Number.isFinite(subcentsOf(cents)), 'must be exact to 1/10,000 of a cent (at most four decimals)');

export type PriceItem = (typeof PRICES)[number]['item'];

/** The exact price of `quantity` units, in subcents (21 translated characters: 420, that is 0.042 cents). */
export function costOf(item: PriceItem, quantity = 1): number {
  const price = PRICES.find((p) => p.item === item)!;
  return subcentsOf(price.unit_amount) * quantity;
}

export function balanceObject(state: State, orgId: string, livemode: boolean) {
  const org = state.orgs.get(orgId);
  // Test mode has no money: its balance is shown as the live one, never changed by test requests.
  return { object: 'balance', currency: 'usd', available: centsOfSubcents(org?.balance_subcents ?? 0), livemode };
}

/**
 * Checks the balance BEFORE the operation, so a refused (402) operation changes nothing.
 * An operation that the balance cannot fully cover is refused: the balance never goes negative.
 */
export function ensureFunds(state: State, credential: Credential, subcents: number): void {
  if (credential.mode !== 'live') return;
  const org = state.orgs.get(credential.org_id);
  if (!org || org.balance_subcents <= 0 || org.balance_subcents < subcents) throw paymentRequired();
}

/** Draws `subcents` (costOf) after the operation succeeded and publishes balance.updated. */
export function charge(state: State, credential: Credential, subcents: number): void {
  if (credential.mode !== 'live') return;
  const org = state.orgs.get(credential.org_id);
  if (!org) return;
  org.balance_subcents -= subcents;
  publish(state, org.id, 'live', 'balance.updated', balanceObject(state, org.id, true));
}
