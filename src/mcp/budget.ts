// The ledger of a live `svc mcp` session: its own charges, never the organization's balance
// (another app may spend from it at the same time). Each billable operation draws its exact
// price (docs/contract.md, Billing): before a call its dry-run price is reserved, after it
// the reservation is settled with what the service drew for that call; a live call's later
// minutes are reserved one ahead and settled as each begins (minutes.ts). Amounts are integers of
// 1/10,000 of a cent, the unit the service bills exactly in.
import { characterCount } from '../contract/rules.js';
import { money, SUBCENTS_PER_CENT } from '../contract/money.js';
import type { DryRunValue } from '../kit/result.js';

/** 1/10,000 cent: the service's billing unit (src/contract/money.ts). */
export const UNITS_PER_CENT = SUBCENTS_PER_CENT;

/** Cents (maybe fractional, as the API sends them) → units, exactly. */
export function centsToUnits(cents: number): number {
  return Math.round(cents * UNITS_PER_CENT);
}

export function unitsToCents(units: number): number {
  return units / UNITS_PER_CENT;
}

/** `$0.06`. */
export function dollars(units: number): string {
  return money(unitsToCents(units));
}

/**
 * What a priced request will draw, from the --dry-run's answer (the request it would send and
 * the unit price): a translation's characters, a started call's or a dialled participant's
 * first minute, drawn when it is made (its later minutes are held and drawn by minutes.ts). A
 * line, billed by the month, has no end svc mcp could put to it.
 */
export function priceOf(plan: DryRunValue): Price | { refused: string } {
  if (!plan.price) return { refused: 'the service did not say what this costs, so svc mcp cannot keep to --max-spend' };
  const unit = centsToUnits(plan.price.unit_amount);
  switch (plan.price.item) {
    case 'translation_character': {
      const text = plan.request.body?.text;
      return typeof text === 'string' ? { units: unit * characterCount(text), unit, item: plan.price.item } : { refused: 'the request has no text to price' };
    }
    case 'call_minute':
    case 'dial_minute':
      return { units: unit, unit, item: plan.price.item };
    default:
      return {
        refused: `${plan.price.item.replace('_', ' ')}s are billed for as long as they last, with no end svc mcp can put to them: svc mcp does not make them in live mode (use the svc command, or a test-mode session)`,
      };
  }
}

export interface Price {
  /** What the call is priced at. */
  units: number;
  /** The unit price of `item`. */
  unit: number;
  item: string;
}

/** What the service drew for a call that succeeded: a translation's own character count, else the price. */
export function drawnFor(price: Price, answer: unknown): number {
  const characters = (answer as { characters?: unknown } | null)?.characters;
  if (price.item === 'translation_character' && Number.isSafeInteger(characters)) return price.unit * (characters as number);
  return price.units;
}

/** `--dry-run --json`'s answer (src/kit/dry-run.ts). */

/** A reservation held for one call until it is settled. */
export interface Reservation {
  readonly units: number;
}

/**
 * The session's running total. A call's price is reserved before it is made (so calls in
 * flight together cannot pass the cap between them); settled with what the service drew,
 * or released when the service answered that it did nothing. A call sent and never answered
 * (cancelled, disconnected, failed in flight) keeps its reservation: it may have been drawn.
 */
export class Ledger {
  private held = new Set<Reservation>();
  private settledUnits = 0;

  constructor(readonly capUnits: number) {}

  /** The session's charges: settled, and held for calls whose draw is not known. */
  get spent(): number {
    let held = 0;
    for (const r of this.held) held += r.units;
    return this.settledUnits + held;
  }

  /** Reserves `units`, or says why not. */
  reserve(units: number): { ok: true; reservation: Reservation } | { ok: false; message: string; hint: string } {
    const committed = this.spent;
    if (committed + units > this.capUnits) {
      return {
        ok: false,
        message: `refused: this call is priced at ${dollars(units)}, and the session has spent ${dollars(committed)} of its ${dollars(this.capUnits)} cap (--max-spend)`,
        hint:
          this.capUnits === 0
            ? 'this session was started with --max-spend 0, which refuses every billed call'
            : 'start svc mcp again with a higher --max-spend to allow more',
      };
    }
    const reservation = { units };
    this.held.add(reservation);
    return { ok: true, reservation };
  }

  /** The service drew `drawn` for the call (0: it answered that it did nothing). */
  settle(reservation: Reservation, drawn: number): void {
    if (!this.held.delete(reservation)) return;
    this.settledUnits += drawn;
  }
}
