// Every state change publishes an event (docs/contract.md "Events"). The event is
// serialized once; lists and streams share that string.
import { ID_PREFIX } from '../contract/constants.js';
import type { Mode } from '../contract/constants.js';
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

/**
 * A published event, kept as its SSE frame (docs/contract.md "Events", Stream): one flat string
 * `id: <id>\nevent: <type>\ndata: <JSON>\n\n` that every stream and resume sends as it is, and
 * from which the id and the JSON are cut when asked (the `data` object parsed when asked). So the
 * 10,000 retained events, and a stalled stream's queue, hold one small object and one string
 * each, which keeps a burst's garbage collection short, and a stream's write joins whole frames.
 */
class StoredEvent implements EmulatorEvent {
  constructor(
    readonly seq: number,
    readonly type: string,
    readonly frame: string,
    /** Where the JSON starts in the frame (it ends before the frame's final "\n\n"). */
    private readonly jsonStart: number,
  ) {}

  get id(): string {
    // "id: " + id + "\nevent: " + type + "\ndata: " + JSON
    return this.frame.slice(4, this.jsonStart - this.type.length - 15);
  }

  get json(): string {
    return this.frame.slice(this.jsonStart, this.frame.length - 2);
  }

  get data(): unknown {
    return (JSON.parse(this.json) as { data: unknown }).data;
  }
}

/** Where an event's JSON starts in its frame. */
const jsonStartOf = (id: string, type: string) => 19 + id.length + type.length;

/** The parts of an event's frame that depend only on its type, made once per burst (or per publish). */
export interface EventShape {
  type: string;
  /** "\nevent: <type>\ndata: " and the JSON up to the id's value. */
  afterId: string;
  /** The JSON from after the id's value up to the created_at value. */
  beforeTime: string;
}

export function eventShape(type: string): EventShape {
  return { type, afterId: `\nevent: ${type}\ndata: {"object":"event","id":"`, beforeTime: `","type":${JSON.stringify(type)},"created_at":"` };
}

export function publish(state: State, orgId: string, mode: Mode, type: string, data: unknown): EmulatorEvent {
  return publishJson(state, eventLog(state, orgId, mode), eventShape(type), JSON.stringify(data));
}

/**
 * publish() for a log already found, the type's shape made and `data` already serialized
 * (`dataJson`, the JSON of an object): a burst of synthetic events calls this once per event. The
 * event's JSON is what JSON.stringify would make of {object, id, type, created_at, livemode, data}.
 */
export function publishJson(state: State, log: EventLog, shape: EventShape, dataJson: string): EmulatorEvent {
  const seq = nextSeq(state);
  const id = eventId(seq);
  // Ids and RFC 3339 times have nothing JSON escapes. A join makes one flat string where a template
  // would make a tree of a dozen small strings, each kept (and copied by the GC) while retained.
  const frame = [
    'id: ',
    id,
    shape.afterId,
    id,
    shape.beforeTime,
    state.eventTime(state.clock.now()),
    log.mode === 'live' ? '","livemode":true,"data":' : '","livemode":false,"data":',
    dataJson,
    '}\n\n',
  ].join('');
  const event = new StoredEvent(seq, shape.type, frame, jsonStartOf(id, shape.type));
  retain(log, event);
  state.journal?.event(log.key, event);
  for (const subscriber of state.subscribers) {
    if (subscriber.org_id === log.org_id && subscriber.mode === log.mode) subscriber.onEvent(event);
  }
  return event;
}

export function eventFromJson(seq: number, id: string, type: string, json: string): EmulatorEvent {
  return new StoredEvent(seq, type, `id: ${id}\nevent: ${type}\ndata: ${json}\n\n`, jsonStartOf(id, type));
}

/** Appends to a log, dropping what falls out of retention. */
export function retain(log: EventLog, event: EmulatorEvent): void {
  log.events.push(event);
  // Trim in batches: one splice per 1,000 events keeps publishing O(1) amortized; retained() hides the extra.
  if (log.events.length > EVENT_RETENTION + 1000) {
    log.trimmedThrough = log.events[log.events.length - EVENT_RETENTION - 1]!.seq;
    log.events.splice(0, log.events.length - EVENT_RETENTION);
  }
}

/** The seq of the newest event no longer retained: the one just before the retained ones. */
function newestDropped(log: EventLog): number | undefined {
  const extra = log.events.length - EVENT_RETENTION;
  return extra > 0 ? log.events[extra - 1]!.seq : log.trimmedThrough;
}

/**
 * Resuming a log after `lastSeq` (resumeAfter over its retained events). The newest event that
 * fell out of retention is known too: the retained ones follow it with nothing missing, so
 * there is no gap to report (a tail that fell just behind a burst is not told of a loss).
 */
export function resumeLog(log: EventLog, lastSeq: number): { known: boolean; events: EmulatorEvent[] } {
  const kept = retained(log);
  const resume = resumeAfter(kept, lastSeq);
  if (!resume.known && lastSeq === newestDropped(log)) return { known: true, events: kept };
  return resume;
}

/**
 * Whether the log may no longer hold the first event ever published to it (a resume from
 * `start` then says gap). A full log is taken as trimmed: a state file keeps only the retained
 * events, so exactly 10,000 may be all there were or the last of more; a needless warning beats
 * a silent loss.
 */
export function mayHaveLostItsFirst(log: EventLog): boolean {
  return log.events.length >= EVENT_RETENTION;
}

/** The Last-Event-ID that asks for everything from the first event (docs/contract.md "Events", Position frame). */
export const START_POSITION = 'start';

/**
 * The frame a stream opened without Last-Event-ID starts with: an id and no data, so it
 * dispatches nothing but gives the client a position to resume from before its first event.
 */
export function positionFrame(newestId: string | undefined): string {
  return `id: ${newestId ?? START_POSITION}\n\n`;
}

/**
 * What a stream resuming after `lastSeq` sends first: the retained events after it, or, when that
 * event is no longer retained (or was never this log's), every retained event behind a gap
 * (docs/contract.md "Events").
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
