// Events: the mode's retained events, newest first, filtered by type, a page at a time.
import { EVENT_TYPES } from '../../../contract/constants.js';
import { typeMatcher } from '../../events.js';
import { CopyButton, Layout, withMode, When } from '../layout.js';
import type { Html, View } from '../layout.js';
import type { EmulatorEvent } from '../../state.js';
import { PAGE_ROWS, newestEvents } from '../parts.js';

/** Events of a type (exact or a family) that name an object's id (as the object itself, or as a call_id, chat_id…); either may be empty. */
export function eventMatcher(type: string, object: string): (event: EmulatorEvent) => boolean {
  const ofType = typeMatcher(type ? type.split(/[\s,]+/) : []);
  const named = object ? JSON.stringify(object) : '';
  return (event) => ofType(event.type) && (!named || event.json.includes(named));
}

/** The newest events of one object, for its own page (Events lists them all). */
export function ObjectEvents({ v, id }: { v: View; id: string }): Html {
  const events = newestEvents(v.state, v.mode, eventMatcher('', id), Infinity, PAGE_ROWS);
  return (
    <>
      <h2>Events</h2>
      {events.length === 0 ? <p class="muted">No retained events name it.</p> : <EventList events={events.slice(0, PAGE_ROWS)} />}
      <p>
        <a href={withMode('/events', v.mode, { object: id })}>All its events</a>
      </p>
    </>
  );
}

/** Events as the Events page lists them: a row each, its JSON in the expanded row. */
export function EventList({ events }: { events: EmulatorEvent[] }): Html {
  return (
    <ol class="log" aria-label="Events">
      {events.map((event) => {
        const body = JSON.parse(event.json) as { created_at: string; data?: { object?: string } };
        return (
          <li data-key={event.id}>
            <details>
              <summary>
                <When at={body.created_at} /> <strong>{event.type}</strong> <code>{event.id}</code>
                {body.data?.object === 'synthetic' ? <span class="tag">load event</span> : null}
              </summary>
              <pre id={`json-${event.id}`}>{JSON.stringify(body, null, 2)}</pre>
              <CopyButton target={`json-${event.id}`} shown="JSON" what={`of ${event.id}`} />
            </details>
          </li>
        );
      })}
    </ol>
  );
}

export function eventsPage(v: View): Html {
  const { state } = v;
  const type = v.query('type')?.trim() ?? '';
  const before = Number(v.query('before') ?? NaN);
  const object = v.query('object')?.trim() ?? '';
  const events = newestEvents(state, v.mode, eventMatcher(type, object), Number.isSafeInteger(before) ? before : Infinity, PAGE_ROWS);
  const more = events.length > PAGE_ROWS;
  const shown = events.slice(0, PAGE_ROWS);
  return (
    <Layout v={v} path="/events" title="Events">
      <form method="get" action="/events" class="row card">
        <input type="hidden" name="mode" value={v.mode} />
        <div>
          <label for="event-type">Type (exact, or a family such as call)</label>
          <input id="event-type" name="type" value={type} list="event-types" autocomplete="off" />
        </div>
        <datalist id="event-types">
          {EVENT_TYPES.map((t) => (
            <option value={t}></option>
          ))}
        </datalist>
        <div>
          <label for="event-object">Object id</label>
          <input id="event-object" name="object" value={object} autocomplete="off" placeholder="call_…, chat_…" />
        </div>
        <button type="submit">Filter</button>
      </form>
      <div id="events" data-live="">
        <p class="muted">
          Retained {v.mode} events, newest first (the emulator keeps the last 10,000 per organization and mode); {PAGE_ROWS} a page.
        </p>
        <EventList events={shown} />
        {shown.length === 0 ? (
          <p class="muted">
            No {v.mode} events{type ? ` of type ${type}` : ''}
            {object ? ` naming ${object}` : ''}.
          </p>
        ) : null}
        {more ? (
          <p>
            <a href={withMode('/events', v.mode, { ...(type ? { type } : {}), ...(object ? { object } : {}), before: String(shown.at(-1)!.seq) })}>
              Older events
            </a>
          </p>
        ) : null}
      </div>
    </Layout>
  );
}
