// The event list and the live event stream (docs/contract.md "Events").
import type { Hono } from 'hono';
import { z } from 'zod';
import { invalidOne } from '../errors.js';
import { ID_PREFIX } from '../../contract/index.js';
import { eventLog, gapFrame, mayHaveLostItsFirst, positionFrame, resumeLog, retained, seqOfEventId, START_POSITION, typeMatcher } from '../events.js';
import type { EmulatorEnv } from '../http.js';
import { openStream } from '../sse.js';
import type { State } from '../state.js';
import { route } from './wire.js';
import { decodeCursor, encodeCursor, listQuery, parseQuery } from '../validate.js';

const typeFilter = z.array(z.string().regex(/^[a-z0-9_.*]+$/, 'an event type or prefix such as call or call.*')).optional();

export function eventRoutes(app: Hono<EmulatorEnv>, state: State): void {
  route(app, 'events.list', (c, credential) => {
    const query = parseQuery(c, listQuery.extend({ type: typeFilter }), ['type']);
    const matches = typeMatcher(query.type ?? []);
    const before = query.cursor === undefined ? Infinity : decodeCursor(query.cursor);
    const events = retained(eventLog(state, credential.org_id, credential.mode));
    const data: string[] = [];
    let lastSeq = 0;
    let has_more = false;
    for (let i = events.length - 1; i >= 0; i--) {
      const event = events[i]!;
      if (event.seq >= before || !matches(event.type)) continue;
      if (data.length === query.limit) {
        has_more = true;
        break;
      }
      data.push(event.json);
      lastSeq = event.seq;
    }
    // The events are already JSON: splice them in rather than parse and re-serialize.
    const body = `{"object":"list","data":[${data.join(',')}],"has_more":${has_more},"next_cursor":${has_more ? JSON.stringify(encodeCursor(lastSeq)) : 'null'}}`;
    return c.body(body, 200, { 'Content-Type': 'application/json' });
  });

  route(app, 'events.stream', (c, credential) => {
    const query = parseQuery(c, z.strictObject({ type: typeFilter }), ['type']);
    const matches = typeMatcher(query.type ?? []);
    const lastEventId = c.req.header('last-event-id')?.trim();
    const backlog: string[] = [];
    const log = eventLog(state, credential.org_id, credential.mode);
    const kept = retained(log);
    if (lastEventId === undefined || lastEventId === '') {
      // No position yet: give one before any event (docs/contract.md "Events", Position frame).
      backlog.push(positionFrame(kept.at(-1)?.id));
    } else if (lastEventId === START_POSITION) {
      // From the first event ever published: say gap if retention dropped some of them.
      if (mayHaveLostItsFirst(log)) backlog.push(gapFrame(lastEventId, kept[0]?.id ?? null));
      for (const event of kept) if (matches(event.type)) backlog.push(event.frame);
    } else {
      // Not an event id at all is a malformed request; an event id this emulator never gave out
      // is one it does not know, which the contract answers with a gap, like a forgotten one.
      if (!lastEventId.startsWith(ID_PREFIX.event)) throw invalidOne(['header', 'Last-Event-ID'], 'not an event id (evt_…) or start', 'value_error');
      const seq = seqOfEventId(lastEventId);
      const resume = seq === null ? { known: false, events: kept } : resumeLog(log, seq);
      // An event no longer retained (or unknown): say so before the retained ones, never resume silently.
      if (!resume.known) backlog.push(gapFrame(lastEventId, kept[0]?.id ?? null));
      for (const event of resume.events) if (matches(event.type)) backlog.push(event.frame);
    }
    return openStream(c, state, {
      org_id: credential.org_id,
      mode: credential.mode,
      authorized: credential.authorized,
      expiresAt: credential.expires_at,
      frame: (event) => (matches(event.type) ? event.frame : null),
      backlog,
    }).response;
  });
}
