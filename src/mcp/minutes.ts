// The minutes of a live session's live calls. The service draws a live call's minute at its
// start: the first when the call is started (or a phone dialled into it), then one at each
// minute boundary while it runs (docs/contract.md, Billing). So the cap covers every minute,
// each call holds the reservation of its NEXT minute in the ledger from the moment the current
// one is drawn; at the boundary the reservation becomes a charge and the next is reserved. A
// minute the cap has no room for is never begun: svc ends the call END_BEFORE_MS before it.
// The times are the session's clock (ctx.clock), so tests move it with the emulator's.
import type { Clock } from '../context.js';
import { dollars, type Ledger, type Reservation } from './budget.js';

export const MINUTE_MS = 60_000;

/** How long before a minute the cap cannot cover svc ends the call: its end must reach the service before the minute begins. */
export const END_BEFORE_MS = 5_000;

export interface MinuteDeps {
  ledger: Ledger;
  clock: Clock;
  /** Ends the call (as `svc calls end` does, audited), saying why; resolves once it is done or failed. */
  end(callId: string, why: string): Promise<void>;
  /** The call as the service has it now (its status and end); undefined when it cannot be read. */
  read?(callId: string): Promise<{ status: string; ended_at: string | null } | undefined>;
  /** Tells the person and the assistant what the service's answer showed that the count had not. */
  say?(text: string): void;
}

/** What was decided for a billed part of a call when it began. */
export interface Metered {
  /** Whether the next minute is reserved; when not, the call is ended before it. */
  nextReserved: boolean;
  /** When svc ends the call, on the session's clock, when the cap has no room for the next minute. */
  endsAt?: number;
}

export class MinuteMeter {
  /** Each live call's stop: aborted when it ends, which releases the reservations its parts hold. */
  private readonly calls = new Map<string, AbortController>();

  constructor(private readonly deps: MinuteDeps) {}

  /**
   * A billed part of a call (the call itself, or a phone dialled into it) whose first minute was
   * drawn when it was sent (`startedAt`), at `unit` a minute: its next minute reserved now.
   */
  track(callId: string, unit: number, startedAt: number): Metered {
    let stop = this.calls.get(callId);
    if (!stop) this.calls.set(callId, (stop = new AbortController()));
    const first = this.deps.ledger.reserve(unit);
    const endsAt = startedAt + MINUTE_MS - END_BEFORE_MS;
    void this.run(callId, unit, startedAt, first.ok ? first.reservation : null, stop.signal);
    return first.ok ? { nextReserved: true } : { nextReserved: false, endsAt };
  }

  /** The call has ended (by the assistant, by svc, or found ended): its held minutes are released. */
  stop(callId: string): void {
    this.calls.get(callId)?.abort();
    this.calls.delete(callId);
  }

  /** The session ends: every call's held minute is released (svc ends the calls before those minutes). */
  stopAll(): void {
    for (const id of [...this.calls.keys()]) this.stop(id);
  }

  private async run(callId: string, unit: number, startedAt: number, held: Reservation | null, signal: AbortSignal): Promise<void> {
    const { ledger, clock } = this.deps;
    const until = (at: number) =>
      clock.sleep(Math.max(0, at - clock.now()), signal).then(
        () => true,
        () => false,
      );
    // Minutes drawn so far, as the service draws them: one at the start, one as each begins.
    let counted = 1;
    for (;;) {
      const boundary = startedAt + counted * MINUTE_MS;
      if (!held) {
        // Past the cap already (minutes drawn while svc did not run): ended now, not before the next.
        if (ledger.spent <= ledger.capUnits && !(await until(boundary - END_BEFORE_MS))) return;
        if (signal.aborted) return;
        this.stop(callId);
        await this.deps.end(callId, `the session's cap (--max-spend) has no room for minute ${counted + 1} of this call`);
        return;
      }
      const reached = await until(boundary);
      // Ended before the minute began: the service drew nothing for it.
      if (!reached) return void ledger.settle(held, 0);
      // What was drawn is the service's: a call ended elsewhere draws no more; a session that did
      // not run for a while (a suspended machine) finds every minute begun meanwhile drawn.
      const found = await this.deps.read?.(callId).catch(() => undefined);
      if (signal.aborted) return void ledger.settle(held, 0);
      const endedAt = found?.status === 'ended' && found.ended_at ? Date.parse(found.ended_at) : undefined;
      const upTo = endedAt ?? clock.now();
      const billed = Math.max(counted, Math.floor((upTo - startedAt) / MINUTE_MS) + 1);
      ledger.settle(held, (billed - counted) * unit);
      held = null;
      if (endedAt !== undefined) {
        this.stop(callId);
        this.deps.say?.(
          `the call ${callId} was ended outside this session (${found!.ended_at}): its minutes stop, ${billed} drawn; the session has spent ${dollars(ledger.spent)} of ${dollars(ledger.capUnits)}`,
        );
        return;
      }
      if (billed - counted > 1)
        this.deps.say?.(
          `svc mcp did not run for ${Math.round((clock.now() - boundary) / 1000) + 60} s (a suspended machine?): the service drew ${billed - counted} minutes of the call ${callId} meanwhile, where svc had held one; the session has spent ${dollars(ledger.spent)} of ${dollars(ledger.capUnits)}`,
        );
      counted = billed;
      const next = ledger.reserve(unit);
      held = next.ok ? next.reservation : null;
    }
  }
}
