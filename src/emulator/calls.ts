// A live call's minutes (docs/contract.md "Billing"): the first is drawn when the call is
// started (a dialled phone's when it is dialled), then one at each minute boundary after that,
// `created_at + n minutes` on the emulator's clock, for as long as the call is active. A call
// whose next minute (its own or a dialled phone's) the balance cannot cover is ended at that
// boundary, `ended_reason: "balance_exhausted"`, never left running unpaid. Minutes are drawn
// before every request is handled, when the clock is moved (POST /_emulator/clock), and at the
// next boundary by a timer, so a stream sees `call.ended` when it happens.
import { balanceObject, costOf, type PriceItem } from './billing.js';
import { publish } from './events.js';
import { rfc3339 } from './ids.js';
import type { CallObject, ParticipantObject, State, Stored } from './state.js';
import { conflict } from './errors.js';

export const MINUTE_MS = 60_000;

/** Why a call ended (the call's `ended_reason`). */
export const ENDED_REASON = { requested: 'requested', balanceExhausted: 'balance_exhausted' } as const;

/** Ends an active call (the API's end, the dashboard's End call, or its unpaid minute) and publishes call.ended. */
export function endCall(state: State, stored: Stored<CallObject>, reason: string = ENDED_REASON.requested, at = state.clock.now()): CallObject {
  const call = stored.obj;
  if (call.status === 'ended') throw conflict('the call has already ended');
  call.status = 'ended';
  call.ended_at = rfc3339(at);
  call.ended_reason = reason;
  state.calls.set(call.id, stored);
  publish(state, stored.org_id, call.livemode ? 'live' : 'test', 'call.ended', call);
  return call;
}

/** The live calls and dialled phones being billed by the minute, since `through` (emulator ms). */
interface Meter {
  through: number;
  calls: Set<string>;
  phones: Set<string>;
  timer: NodeJS.Timeout | undefined;
}

const meters = new WeakMap<State, Meter>();

/** The state's meter; made on first use from the active live calls it holds (a world loaded from a file). */
function meterOf(state: State): Meter {
  let meter = meters.get(state);
  if (meter) return meter;
  meter = { through: state.clock.now(), calls: new Set(), phones: new Set(), timer: undefined };
  for (const [id, stored] of Map.prototype.entries.call(state.calls) as IterableIterator<[string, Stored<CallObject>]>)
    if (stored.obj.livemode && stored.obj.status === 'active') meter.calls.add(id);
  for (const [id, stored] of Map.prototype.entries.call(state.participants) as IterableIterator<[string, Stored<ParticipantObject>]>)
    if (stored.obj.livemode && meter.calls.has(stored.obj.call_id)) meter.phones.add(id);
  meters.set(state, meter);
  const current = meter;
  state.clock.onAdvance(() => {
    if (meters.get(state) === current) drawMinutes(state);
  });
  return meter;
}

/** A live call started, or a phone dialled into one: billed by the minute from now on (its first minute was drawn by its request). */
export function meterMinutes(state: State, kind: 'call' | 'phone', id: string): void {
  drawMinutes(state);
  const meter = meterOf(state);
  (kind === 'call' ? meter.calls : meter.phones).add(id);
  schedule(state, meter);
}

/** A minute due: when it begins, for which call, what it draws. */
interface Due {
  at: number;
  call: Stored<CallObject>;
  item: PriceItem;
}

/** The minutes after the first of something created at `created` that began in (from, to]. */
function boundaries(created: number, from: number, to: number): number[] {
  const found: number[] = [];
  for (let n = Math.max(1, Math.floor((from - created) / MINUTE_MS) + 1); created + n * MINUTE_MS <= to; n++) {
    const at = created + n * MINUTE_MS;
    if (at > from) found.push(at);
  }
  return found;
}

/** Every minute begun since the last draw, oldest first: drawn, or the call ended at it. */
export function drawMinutes(state: State): void {
  const meter = meters.get(state);
  if (!meter) return;
  const now = state.clock.now();
  if (now <= meter.through) return;
  const due = dueMinutes(state, meter, now);
  meter.through = now;
  due.sort((a, b) => a.at - b.at);
  for (const { at, call, item } of due) {
    if (call.obj.status !== 'active') continue;
    const org = state.orgs.get(call.org_id);
    const cost = costOf(item);
    if (!org || org.balance_subcents < cost) {
      endCall(state, call, ENDED_REASON.balanceExhausted, at);
      continue;
    }
    org.balance_subcents -= cost;
    state.orgs.set(org.id, org);
    publish(state, org.id, 'live', 'balance.updated', balanceObject(state, org.id, true));
  }
  schedule(state, meter);
}

/** The minutes begun in (meter.through, now], forgetting what is no longer billed. */
function dueMinutes(state: State, meter: Meter, now: number): Due[] {
  const due: Due[] = [];
  const active = (id: string) => {
    const call = Map.prototype.get.call(state.calls, id) as Stored<CallObject> | undefined;
    return call && call.obj.status === 'active' ? call : undefined;
  };
  for (const id of meter.calls) {
    const call = active(id);
    if (!call) meter.calls.delete(id);
    else for (const at of boundaries(Date.parse(call.obj.created_at), meter.through, now)) due.push({ at, call, item: 'call_minute' });
  }
  for (const id of meter.phones) {
    const phone = Map.prototype.get.call(state.participants, id) as Stored<ParticipantObject> | undefined;
    const call = phone ? active(phone.obj.call_id) : undefined;
    if (!phone || !call) meter.phones.delete(id);
    else for (const at of boundaries(Date.parse(phone.obj.created_at), meter.through, now)) due.push({ at, call, item: 'dial_minute' });
  }
  return due;
}

/** A timer for the next boundary (real time passes the emulator's clock too); none while nothing is billed. */
function schedule(state: State, meter: Meter): void {
  clearTimeout(meter.timer);
  meter.timer = undefined;
  const now = state.clock.now();
  let next = Infinity;
  const nextOf = (created: string) => {
    const start = Date.parse(created);
    return start + (Math.floor((now - start) / MINUTE_MS) + 1) * MINUTE_MS;
  };
  for (const id of meter.calls) {
    const call = Map.prototype.get.call(state.calls, id) as Stored<CallObject> | undefined;
    if (call) next = Math.min(next, nextOf(call.obj.created_at));
  }
  for (const id of meter.phones) {
    const phone = Map.prototype.get.call(state.participants, id) as Stored<ParticipantObject> | undefined;
    if (phone) next = Math.min(next, nextOf(phone.obj.created_at));
  }
  if (next === Infinity) return;
  meter.timer = setTimeout(() => drawOutsideRequests(state), Math.max(0, next - now) + 5);
  meter.timer.unref();
}

/** A draw no request asked for: with --state, written to the file as a request's changes are. */
function drawOutsideRequests(state: State): void {
  if (!state.journal) return drawMinutes(state);
  state.journal.request(true, async () => drawMinutes(state)).catch(() => {});
}
