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
    const colon = key.lastIndexOf(':');
    log = { key, org_id: key.slice(0, colon), mode: key.slice(colon + 1) as Mode, events: [] };
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

/** "id: " + "\nevent: " + "\ndata: " + "\n\n": what a frame adds to the id, type and JSON. */
const FRAME_EXTRA_CHARS = 21;

/**
 * A published event: its id, type and JSON, and nothing else. The SSE frame and the `data` object
 * are made from these when asked, so that the 10,000 retained events (and a stalled stream's
 * queue) hold one object and two strings each, which keeps a burst's garbage collection short.
 */
class StoredEvent implements EmulatorEvent {
  constructor(
    readonly seq: number,
    readonly id: string,
    readonly type: string,
    readonly json: string,
  ) {}

  get frame(): string {
    return `id: ${this.id}\nevent: ${this.type}\ndata: ${this.json}\n\n`;
  }

  get frameLength(): number {
    return FRAME_EXTRA_CHARS + this.id.length + this.type.length + this.json.length;
  }

  get data(): unknown {
    return (JSON.parse(this.json) as { data: unknown }).data;
  }
}

/** Appends the event's frame (EmulatorEvent.frame) to `parts` piece by piece, for one join with its neighbours. */
export function pushFrame(parts: string[], event: EmulatorEvent): void {
  parts.push('id: ', event.id, '\nevent: ', event.type, '\ndata: ', event.json, '\n\n');
}

export function publish(state: State, orgId: string, mode: Mode, type: string, data: unknown): EmulatorEvent {
  return publishJson(state, eventLog(state, orgId, mode), JSON.stringify(type), type, JSON.stringify(data));
}

/**
 * publish() for a log already found and a `data` already serialized (`dataJson`, the JSON of an
 * object; `typeJson`, JSON.stringify(type)): a burst of synthetic events calls this once per event.
 * The event's JSON is what JSON.stringify would make of {object, id, type, created_at, livemode, data}.
 */
export function publishJson(state: State, log: EventLog, typeJson: string, type: string, dataJson: string): EmulatorEvent {
  const seq = nextSeq(state);
  const id = eventId(seq);
  // Ids and RFC 3339 times have nothing JSON escapes. A join makes one flat string where a template
  // would make a tree of a dozen small strings, each kept (and copied by the GC) while retained.
  const json = [
    '{"object":"event","id":"',
    id,
    '","type":',
    typeJson,
    ',"created_at":"',
    state.eventTime(state.clock.now()),
    '","livemode":',
    log.mode === 'live',
    ',"data":',
    dataJson,
    '}',
  ].join('');
  const event = new StoredEvent(seq, id, type, json);
  retain(log, event);
  state.journal?.event(log.key, event);
  for (const subscriber of state.subscribers) {
    if (subscriber.org_id === log.org_id && subscriber.mode === log.mode) subscriber.onEvent(event);
  }
  return event;
}

export function eventFromJson(seq: number, id: string, type: string, json: string): EmulatorEvent {
  return new StoredEvent(seq, id, type, json);
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
