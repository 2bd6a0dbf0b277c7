// Controls: the clock, faults, synthetic events, export, import and reset (the control plane's, as forms).
import { EVENT_TYPES } from '../../../contract/constants.js';
import { ActionButton, CsrfFields, Layout, When } from '../layout.js';
import type { Html, View } from '../layout.js';
import { FieldError, invalidAttrs, kept } from '../forms.js';
import { streamNumber } from '../parts.js';
import type { Subscriber } from '../../state.js';
import type { Child } from 'hono/jsx';

const CLOCK = '/_dashboard/clock';
const FAULTS = '/_dashboard/faults';
const PUBLISH = '/_dashboard/events';

/** The open event and chat streams (GET /v1/events/stream, /v1/chats/{id}/stream) by organization and mode, each with a button that drops it, and one that drops them all. */
function ListeningStreams({ v }: { v: View }) {
  const groups = new Map<string, Subscriber[]>();
  for (const subscriber of v.state.subscribers) {
    const label = `${v.state.orgs.get(subscriber.org_id)?.name ?? subscriber.org_id} (${subscriber.mode})`;
    groups.set(label, [...(groups.get(label) ?? []), subscriber]);
  }
  if (groups.size === 0) return <p class="muted">No event or chat stream is open.</p>;
  return (
    <>
      <ul>
        {[...groups].map(([label, subscribers]) => (
          <li>
            {subscribers.length} open stream(s) of {label}:{' '}
            {subscribers.map((subscriber) => {
              const n = streamNumber(subscriber);
              return (
                <>
                  stream {n}{' '}
                  <ActionButton
                    v={v}
                    action={`/_dashboard/streams/${n}/drop`}
                    label="Drop"
                    id={`drop-stream-${n}`}
                    name={`Drop stream ${n} of ${label}`}
                  />{' '}
                </>
              );
            })}
          </li>
        ))}
      </ul>
      <ActionButton
        v={v}
        action="/_dashboard/streams/drop"
        label={`Drop all ${v.state.subscribers.size} stream(s)`}
        id="drop-streams"
        danger
        confirm="Drop every open stream? Clients see the connection end and reconnect."
      />
    </>
  );
}

/** A card of the page: a section named by its heading (`{id}-title`). */
function Card({ id, title, children }: { id: string; title: string; children?: Child }) {
  return (
    <section class="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      {children}
    </section>
  );
}

interface KeptInputProps {
  v: View;
  /** The form's action: where the value sent and the error of a failed post are found. */
  action: string;
  id: string;
  name: string;
  label: string;
  initial: string;
  /** A whole number from `min` (to `max`), rather than text. */
  min?: string;
  max?: string;
  /** The id of a datalist of suggestions. */
  list?: string;
}

/** A required field of a form, with the value sent when the form failed and its error under it. */
function KeptInput({ v, action, id, name, label, initial, min, max, list }: KeptInputProps) {
  const whole = min !== undefined;
  return (
    <div>
      <label for={id}>{label}</label>
      <input
        id={id}
        name={name}
        type={whole ? 'number' : undefined}
        min={min}
        max={max}
        step={whole ? '1' : undefined}
        required
        value={kept(v, action, name, initial)}
        list={list}
        {...invalidAttrs(v, action, name)}
      />
      <FieldError v={v} action={action} field={name} />
    </div>
  );
}

/** The emulator's clock, and a form that moves it forward. */
function ClockCard({ v }: { v: View }) {
  return (
    <Card id="clock" title="Clock">
      <p id="clock" data-live="">
        Now: <When at={v.state.clock.now()} />
      </p>
      <form method="post" action={CLOCK} class="row">
        <CsrfFields v={v} />
        <KeptInput v={v} action={CLOCK} id="advance" name="advance_seconds" label="Advance by (seconds)" initial="3600" min="0" />
        <button type="submit">Advance clock</button>
      </form>
    </Card>
  );
}

/** A form that makes the next matching requests fail (429 or 502). */
function FaultCard({ v }: { v: View }) {
  return (
    <Card id="fault" title="Inject a fault">
      <form method="post" action={FAULTS} class="row">
        <CsrfFields v={v} />
        <div>
          <label for="fault-status">Status</label>
          <select id="fault-status" name="status">
            <option selected={kept(v, FAULTS, 'status', '429') === '429'}>429</option>
            <option selected={kept(v, FAULTS, 'status', '429') === '502'}>502</option>
          </select>
        </div>
        <KeptInput v={v} action={FAULTS} id="fault-path" name="path_prefix" label="Path prefix" initial="/v1/" />
        <KeptInput v={v} action={FAULTS} id="fault-count" name="count" label="Count" initial="1" min="1" />
        <button type="submit">Inject fault</button>
      </form>
      <p class="muted">The next matching requests fail with that status; the dashboard and /_emulator never do.</p>
    </Card>
  );
}

/** The open streams, each with a button that drops it. */
function ListeningCard({ v }: { v: View }) {
  return (
    <Card id="listening" title="Who is listening">
      <div id="listening" data-live="">
        <ListeningStreams v={v} />
      </div>
    </Card>
  );
}

/** A form that publishes synthetic events. */
function PublishCard({ v }: { v: View }) {
  const orgs = [...v.state.orgs.values()];
  return (
    <Card id="publish" title="Publish load events">
      <p class="muted">
        Each carries a placeholder object (<code>{'{"object": "synthetic"}'}</code>), for load and stream tests; the Events page marks them.{' '}
        <code>svc events trigger TYPE</code> makes realistic objects instead.
      </p>
      <form method="post" action={PUBLISH} class="row">
        <CsrfFields v={v} />
        <div>
          <label for="publish-org">Organization</label>
          <select id="publish-org" name="org_id">
            {orgs.map((org) => (
              <option value={org.id} selected={kept(v, PUBLISH, 'org_id', '') === org.id}>
                {org.name}
              </option>
            ))}
          </select>
        </div>
        <KeptInput v={v} action={PUBLISH} id="publish-type" name="type" label="Type" initial="call.started" list="publish-types" />
        <datalist id="publish-types">
          {EVENT_TYPES.map((t) => (
            <option value={t}></option>
          ))}
        </datalist>
        <KeptInput v={v} action={PUBLISH} id="publish-count" name="count" label="Count" initial="1" min="1" max="1000000" />
        <button type="submit">Publish {v.mode} events</button>
      </form>
    </Card>
  );
}

/** A form that deletes one organization's test data. */
function ClearCard({ v }: { v: View }) {
  const orgs = [...v.state.orgs.values()];
  return (
    <Card id="clear" title="Clear test data">
      <p class="muted">
        Deletes an organization's test calls, chats, links, lines, their events and requests. The organization, its keys and apps (and so every saved profile)
        and its live data stay.
      </p>
      <form
        method="post"
        action="/_dashboard/test-data/clear"
        data-confirm="Clear this organization's test data? Its test calls, chats, links, lines and events are deleted; its keys and apps are kept."
        class="row"
      >
        <CsrfFields v={v} />
        <div>
          <label for="clear-org">Organization</label>
          <select id="clear-org" name="org_id">
            {orgs.map((org) => (
              <option value={org.id}>{org.name}</option>
            ))}
          </select>
        </div>
        <button type="submit" class="danger" id="clear-test-data">
          Clear test data
        </button>
      </form>
    </Card>
  );
}

/** Export, import and reset. */
function StateCard({ v }: { v: View }) {
  return (
    <Card id="state" title="State">
      <p>
        <a href="/_dashboard/export" download="svc-emulator-state.json">
          Export the state as a document
        </a>{' '}
        (what <code>svc emulator --import</code> reads).
      </p>
      <form method="post" action="/_dashboard/import" enctype="multipart/form-data" class="row" data-confirm="Replace the whole world with this document?">
        <CsrfFields v={v} />
        <div>
          <label for="import-file">Import a document</label>
          <input id="import-file" name="document" type="file" accept="application/json,.json" required />
        </div>
        <button type="submit">Import</button>
      </form>
      <form method="post" action="/_dashboard/reset" data-confirm="Reset the emulator? Everything is emptied and the seed planted again (new keys).">
        <CsrfFields v={v} />
        <p>
          <button type="submit" class="danger" id="reset-emulator">
            Reset the emulator
          </button>
        </p>
      </form>
    </Card>
  );
}

export function controlsPage(v: View): Html {
  return (
    <Layout v={v} path="/controls" title="Controls">
      <ClockCard v={v} />
      <FaultCard v={v} />
      <ListeningCard v={v} />
      <PublishCard v={v} />
      <ClearCard v={v} />
      <StateCard v={v} />
    </Layout>
  );
}
