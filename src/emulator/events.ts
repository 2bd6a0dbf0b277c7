// Every state change publishes an event (api-contract.md "Events"). The event is
// serialized once; lists and streams share that string.
import { ID_PREFIX } from '../shared/constants.js';
import type { Mode } from '../shared/constants.js';
import { rfc3339 } from './ids.js';
import { EVENT_RETENTION, nextSeq } from './state.js';
import type { EmulatorEvent, EventLog, State } from './state.js';

export function eventLog(state: State, orgId: string, mode: Mode): EventLog {
  const key = `${orgId}:${mode}`;
  let log = state.eventLogs.get(key);
  if (!log) {
    log = { events: [] };
    state.eventLogs.set(key, log);
  }
  return log;
}

/** Event ids carry their sequence number, so a Last-Event-ID resumes even after eviction. */
export function eventId(seq: number): string {
  return `${ID_PREFIX.event}${seq.toString(36).padStart(10, '0')}`;
}

export function seqOfEventId(id: string): number | null {
  if (!id.startsWith(ID_PREFIX.event)) return null;
  const seq = parseInt(id.slice(ID_PREFIX.event.length), 36);
  return Number.isSafeInteger(seq) && seq >= 0 ? seq : null;
}

export function publish(state: State, orgId: string, mode: Mode, type: string, data: unknown): EmulatorEvent {
  const seq = nextSeq(state);
  const id = eventId(seq);
  const json = JSON.stringify({
    object: 'event',
    id,
    type,
    created_at: rfc3339(state.clock.now()),
    livemode: mode === 'live',
    data,
  });
  const event: EmulatorEvent = { seq, id, type, json, frame: `id: ${id}\nevent: ${type}\ndata: ${json}\n\n`, data };
  const log = eventLog(state, orgId, mode);
  log.events.push(event);
  // Trim in batches: one splice per 1,000 events keeps publishing O(1) amortized.
  if (log.events.length > EVENT_RETENTION + 1000) log.events.splice(0, log.events.length - EVENT_RETENTION);
  for (const subscriber of state.subscribers) {
    if (subscriber.org_id === orgId && subscriber.mode === mode) subscriber.onEvent(event);
  }
  return event;
}

/** The retained events (the last 10,000 per organization and mode), oldest first. */
export function retained(log: EventLog): EmulatorEvent[] {
  const extra = log.events.length - EVENT_RETENTION;
  return extra > 0 ? log.events.slice(extra) : log.events;
}

/**
 * `?type=` filters, repeatable: `call.*`, `call.` and `call` all select `call.started` (a
 * family, matched at dot boundaries); an exact type selects itself; `*` selects everything.
 */
export function typeMatcher(filters: string[]): (type: string) => boolean {
  const prefixes = filters.map((f) => f.replace(/\.?\*$/, '').replace(/\.$/, ''));
  if (prefixes.length === 0 || prefixes.includes('')) return () => true;
  return (type) => prefixes.some((p) => type === p || type.startsWith(`${p}.`));
}
