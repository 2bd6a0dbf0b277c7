// Every state change publishes an event (api-contract.md "Events"). The event is
// serialized once; lists and streams share that string.
import { ID_PREFIX } from '../shared/constants.js';
import type { Mode } from '../shared/constants.js';
import { EVENT_RETENTION, nextSeq } from './state.js';
import type { EmulatorEvent, EventLog, State } from './state.js';

export function eventLog(state: State, orgId: string, mode: Mode): EventLog {
  return eventLogByKey(state, `${orgId}:${mode}`);
}

export function eventLogByKey(state: State, key: string): EventLog {
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
    created_at: state.eventTime(state.clock.now()),
    livemode: mode === 'live',
    data,
  });
  const event = eventFromJson(seq, id, type, json, data);
  retain(eventLog(state, orgId, mode), event);
  state.journal?.event(`${orgId}:${mode}`, event);
  for (const subscriber of state.subscribers) {
    if (subscriber.org_id === orgId && subscriber.mode === mode) subscriber.onEvent(event);
  }
  return event;
}

export function eventFromJson(seq: number, id: string, type: string, json: string, data: unknown): EmulatorEvent {
  return { seq, id, type, json, frame: `id: ${id}\nevent: ${type}\ndata: ${json}\n\n`, data };
}

/** Appends to a log, dropping what falls out of retention. */
export function retain(log: EventLog, event: EmulatorEvent): void {
  log.events.push(event);
  // Trim in batches: one splice per 1,000 events keeps publishing O(1) amortized; retained() hides the extra.
  if (log.events.length > EVENT_RETENTION + 1000) log.events.splice(0, log.events.length - EVENT_RETENTION);
}

/**
 * What a stream resuming after `lastSeq` sends first: the retained events after it, or, when that
 * event is no longer retained (or was never this log's), every retained event behind a gap
 * (api-contract.md "Events").
 */
export function resumeAfter(events: EmulatorEvent[], lastSeq: number): { known: boolean; events: EmulatorEvent[] } {
  let low = 0;
  let high = events.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const seq = events[mid]!.seq;
    if (seq === lastSeq) return { known: true, events: events.slice(mid + 1) };
    if (seq < lastSeq) low = mid + 1;
    else high = mid - 1;
  }
  return { known: false, events };
}

/** The `event: gap` frame: no id, so the client's Last-Event-ID stays what it asked for until real events arrive. */
export function gapFrame(lastEventId: string, resumedFrom: string | null): string {
  return `event: gap\ndata: ${JSON.stringify({ last_event_id: lastEventId, resumed_from: resumedFrom })}\n\n`;
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
