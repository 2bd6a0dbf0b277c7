// Live mode draws from the organization's prepaid balance (cents); test mode is free
// (service-spec.md "Test mode" 1 and 5). Prices are the emulator's own, shown in /v1/prices.
import type { Credential } from './auth.js';
import { paymentRequired } from './errors.js';
import { publish } from './events.js';
import type { State } from './state.js';

export const PRICES = [
  { object: 'price', item: 'call_minute', unit_amount: 2, currency: 'usd' },
  { object: 'price', item: 'dial_minute', unit_amount: 3, currency: 'usd' },
  { object: 'price', item: 'translation_character', unit_amount: 0.002, currency: 'usd' },
  { object: 'price', item: 'line_month', unit_amount: 100, currency: 'usd' },
] as const;

export type PriceItem = (typeof PRICES)[number]['item'];

/** Whole cents for `quantity` units: rounded up, at least one cent for anything billable. */
export function costOf(item: PriceItem, quantity = 1): number {
  const price = PRICES.find((p) => p.item === item)!;
  return Math.max(1, Math.ceil(price.unit_amount * quantity));
}

export function balanceObject(state: State, orgId: string, livemode: boolean) {
  const org = state.orgs.get(orgId);
  // Test mode has no money: its balance is shown as the live one, never changed by test requests.
  return { object: 'balance', currency: 'usd', available: org?.balance ?? 0, livemode };
}

/**
 * Checks the balance BEFORE the operation, so a refused (402) operation changes nothing.
 * An operation that the balance cannot fully cover is refused: the balance never goes negative.
 */
export function ensureFunds(state: State, credential: Credential, cents: number): void {
  if (credential.mode !== 'live') return;
  const org = state.orgs.get(credential.org_id);
  if (!org || org.balance <= 0 || org.balance < cents) throw paymentRequired();
}

/** Draws `cents` after the operation succeeded and publishes balance.updated. */
export function charge(state: State, credential: Credential, cents: number): void {
  if (credential.mode !== 'live') return;
  const org = state.orgs.get(credential.org_id);
  if (!org) return;
  org.balance -= cents;
  publish(state, org.id, 'live', 'balance.updated', balanceObject(state, org.id, true));
}
