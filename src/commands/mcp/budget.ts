// The spending cap of a live `svc mcp` session. Amounts are kept as integers of 1/10,000 of a
// cent, the unit the service bills exactly in (docs/contract.md "Billing"), so the session's
// total and the balance the service reports agree to the last digit.
import { characterCount } from '../../contract/rules.js';
import { money, SUBCENTS_PER_CENT } from '../../contract/money.js';

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
 * the unit price): a translation's characters, or a call's first minute (`perMinute`: what
 * each further minute will draw). A line, billed by the month, has no end svc mcp could put to it.
 */
export function priceOf(plan: DryRun): { units: number; perMinute?: number } | { refused: string } {
  if (!plan.price) return { refused: 'the service did not say what this costs, so svc mcp cannot keep to --max-spend' };
  const unit = centsToUnits(plan.price.unit_amount);
  switch (plan.price.item) {
    case 'translation_character': {
      const text = plan.request.body?.text;
      return typeof text === 'string' ? { units: unit * characterCount(text) } : { refused: 'the request has no text to price' };
    }
    // A call is billed by the minute while it runs: its first minute is priced ahead, and each
    // next one is counted as it begins (server.ts ends the call when that would pass the cap).
    case 'call_minute':
    case 'dial_minute':
      return { units: unit, perMinute: unit };
    default:
      return {
        refused: `${plan.price.item.replace('_', ' ')}s are billed for as long as they last, with no end svc mcp can put to them: svc mcp does not make them in live mode (use the svc command, or a test-mode session)`,
      };
  }
}

/** `--dry-run --json`'s answer (src/commands/dry-run.ts). */
export interface DryRun {
  dry_run: true;
  mode: 'test' | 'live';
  request: { method: string; path: string; body: Record<string, unknown> | null };
  billed: boolean;
  price: { item: string; unit_amount: number; currency: string } | null;
}

/**
 * The session's running total. A call's price is reserved before it is made (so calls in
 * flight together cannot pass the cap between them) and released if it failed without being
 * billed; the total then follows the balance the service reports, if that fell by more.
 */
export class SpendingCap {
  private reserved = 0;
  private spentUnits = 0;
  private startBalance: number | undefined;

  constructor(readonly capUnits: number) {}

  get spent(): number {
    return this.spentUnits;
  }

  /** Reserves `units`, or says why not. */
  reserve(units: number): { ok: true } | { ok: false; message: string; hint: string } {
    if (this.spentUnits + this.reserved + units > this.capUnits) {
      return {
        ok: false,
        message: `refused: this call is priced at ${dollars(units)}, and the session has spent ${dollars(this.spentUnits + this.reserved)} of its ${dollars(this.capUnits)} cap (--max-spend)`,
        hint:
          this.capUnits === 0
            ? 'this session was started with --max-spend 0, which refuses every billed call'
            : 'start svc mcp again with a higher --max-spend to allow more',
      };
    }
    this.reserved += units;
    return { ok: true };
  }

  /** The call ended: `billed` says whether its price counts. */
  settle(units: number, billed: boolean): void {
    this.reserved -= units;
    if (billed) this.spentUnits += units;
  }

  /** The balance (cents) before the session's first billed call. */
  noteStartBalance(cents: number): void {
    this.startBalance ??= centsToUnits(cents);
  }

  get hasStartBalance(): boolean {
    return this.startBalance !== undefined;
  }

  /** The balance the service reports now: what it drew counts, if more than the prices added up to. */
  reconcile(cents: number): void {
    if (this.startBalance === undefined) return;
    const drawn = this.startBalance - centsToUnits(cents);
    if (drawn > this.spentUnits) this.spentUnits = drawn;
  }
}
