// Controls: the clock, faults, synthetic events, export, import and reset (the control plane's, as forms).
import { EVENT_TYPES } from '../../../contract/constants.js';
import { ActionButton, CsrfFields, Layout, When } from '../layout.js';
import type { Html, View } from '../layout.js';
import { FieldError, invalidAttrs, kept } from '../forms.js';
import { streamNumber } from '../parts.js';
import type { Subscriber } from '../../state.js';

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

/** The emulator's clock, and a form that moves it forward. */
function ClockCard({ v }: { v: View }) {
  return (
    <section class="card" aria-labelledby="clock-title">
      <h2 id="clock-title">Clock</h2>
      <p id="clock" data-live="">
        Now: <When at={v.state.clock.now()} />
      </p>
      <form method="post" action={CLOCK} class="row">
        <CsrfFields v={v} />
        <div>
          <label for="advance">Advance by (seconds)</label>
          <input
            id="advance"
            name="advance_seconds"
            type="number"
            min="0"
            step="1"
            required
            value={kept(v, CLOCK, 'advance_seconds', '3600')}
            {...invalidAttrs(v, CLOCK, 'advance_seconds')}
          />
          <FieldError v={v} action={CLOCK} field="advance_seconds" />
        </div>
        <button type="submit">Advance clock</button>
      </form>
    </section>
  );
}

/** A form that makes the next matching requests fail (429 or 502). */
function FaultCard({ v }: { v: View }) {
  return (
    <section class="card" aria-labelledby="fault-title">
      <h2 id="fault-title">Inject a fault</h2>
      <form method="post" action={FAULTS} class="row">
        <CsrfFields v={v} />
        <div>
          <label for="fault-status">Status</label>
          <select id="fault-status" name="status">
            <option selected={kept(v, FAULTS, 'status', '429') === '429'}>429</option>
            <option selected={kept(v, FAULTS, 'status', '429') === '502'}>502</option>
          </select>
        </div>
        <div>
          <label for="fault-path">Path prefix</label>
          <input id="fault-path" name="path_prefix" required value={kept(v, FAULTS, 'path_prefix', '/v1/')} {...invalidAttrs(v, FAULTS, 'path_prefix')} />
          <FieldError v={v} action={FAULTS} field="path_prefix" />
        </div>
        <div>
          <label for="fault-count">Count</label>
          <input
            id="fault-count"
            name="count"
            type="number"
            min="1"
            step="1"
            required
            value={kept(v, FAULTS, 'count', '1')}
            {...invalidAttrs(v, FAULTS, 'count')}
          />
          <FieldError v={v} action={FAULTS} field="count" />
        </div>
        <button type="submit">Inject fault</button>
      </form>
      <p class="muted">The next matching requests fail with that status; the dashboard and /_emulator never do.</p>
    </section>
  );
}

/** The open streams, each with a button that drops it. */
function ListeningCard({ v }: { v: View }) {
  return (
    <section class="card" aria-labelledby="listening-title">
      <h2 id="listening-title">Who is listening</h2>
      <div id="listening" data-live="">
        <ListeningStreams v={v} />
      </div>
    </section>
  );
}

/** A form that publishes synthetic events. */
function PublishCard({ v }: { v: View }) {
  const orgs = [...v.state.orgs.values()];
  return (
    <section class="card" aria-labelledby="publish-title">
      <h2 id="publish-title">Publish load events</h2>
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
        <div>
          <label for="publish-type">Type</label>
          <input
            id="publish-type"
            name="type"
            required
            value={kept(v, PUBLISH, 'type', 'call.started')}
            list="publish-types"
            {...invalidAttrs(v, PUBLISH, 'type')}
          />
          <FieldError v={v} action={PUBLISH} field="type" />
        </div>
        <datalist id="publish-types">
          {EVENT_TYPES.map((t) => (
            <option value={t}></option>
          ))}
        </datalist>
        <div>
          <label for="publish-count">Count</label>
          <input
            id="publish-count"
            name="count"
            type="number"
            min="1"
            max="1000000"
            step="1"
            required
            value={kept(v, PUBLISH, 'count', '1')}
            {...invalidAttrs(v, PUBLISH, 'count')}
          />
          <FieldError v={v} action={PUBLISH} field="count" />
        </div>
        <button type="submit">Publish {v.mode} events</button>
      </form>
    </section>
  );
}

/** A form that deletes one organization's test data. */
function ClearCard({ v }: { v: View }) {
  const orgs = [...v.state.orgs.values()];
  return (
    <section class="card" aria-labelledby="clear-title">
      <h2 id="clear-title">Clear test data</h2>
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
    </section>
  );
}

/** Export, import and reset. */
function StateCard({ v }: { v: View }) {
  return (
    <section class="card" aria-labelledby="state-title">
      <h2 id="state-title">State</h2>
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
    </section>
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
