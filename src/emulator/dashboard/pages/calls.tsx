// Calls: the mode's calls and phone lines, and a call's own page (participants, links, End call).
import { ActionButton, Layout, When, ObjectPage } from '../layout.js';
import type { Html, View } from '../layout.js';
import { ObjectEvents } from './events.js';
import { ObjectRequests } from './requests.js';
import { DetailCell, PAGE_ROWS, Table, orgName, pageOf, storedIn } from '../parts.js';

export function callsPage(v: View): Html {
  const { state } = v;
  const { shown: calls, older } = pageOf(v, storedIn(state.calls, v.mode), '/calls');
  const lines = storedIn(state.lines, v.mode).slice(0, PAGE_ROWS);
  return (
    <Layout v={v} path="/calls" title="Calls">
      <div id="calls" data-live="">
        <Table caption={`Newest first, ${PAGE_ROWS} a page.`} columns={['Call', 'Organization', 'Status', 'Title', 'Languages', 'Started', 'Ended']}>
          {calls.map(({ org_id, obj }) => (
            <tr data-key={obj.id}>
              <DetailCell v={v} list="/calls" id={obj.id} />
              <td>{orgName(state, org_id)}</td>
              <td>{obj.status}</td>
              <td>{obj.title ?? '—'}</td>
              <td>{obj.languages.join(' ↔ ')}</td>
              <td>
                <When at={obj.created_at} />
              </td>
              <td>
                <When at={obj.ended_at} />
              </td>
            </tr>
          ))}
        </Table>
        {calls.length === 0 ? <p class="muted">No {v.mode} calls yet.</p> : null}
        {older ? (
          <p>
            <a href={older}>Older calls</a>
          </p>
        ) : null}
        <h2>Phone lines</h2>
        {lines.length === 0 ? (
          <p class="muted">No {v.mode} phone lines.</p>
        ) : (
          <Table columns={['Line', 'Number', 'Country', 'Status']}>
            {lines.map(({ obj }) => (
              <tr>
                <td>
                  <code>{obj.id}</code>
                </td>
                <td>{obj.number}</td>
                <td>{obj.country}</td>
                <td>{obj.status}</td>
              </tr>
            ))}
          </Table>
        )}
      </div>
    </Layout>
  );
}

export function callPage(v: View, id: string): Html | null {
  const { state } = v;
  const stored = state.calls.get(id);
  if (!stored || stored.obj.livemode !== (v.mode === 'live')) return null;
  const call = stored.obj;
  const participants = [...state.participants.values()].filter((p) => p.obj.call_id === id);
  const links = [...state.links.values()].filter((l) => l.obj.call_id === id);
  return (
    <ObjectPage v={v} list="calls" id={id} title={`Call ${id}`} back="All calls" live="call">
      <dl>
        <dt>Organization</dt>
        <dd>{orgName(state, stored.org_id)}</dd>
        <dt>Status</dt>
        <dd>{call.status}</dd>
        <dt>Title</dt>
        <dd>{call.title ?? '—'}</dd>
        <dt>Languages</dt>
        <dd>{call.languages.join(' ↔ ')}</dd>
        <dt>Started</dt>
        <dd>
          <When at={call.created_at} />
        </dd>
        <dt>Ended</dt>
        <dd>
          <When at={call.ended_at} />
        </dd>
      </dl>
      {call.status === 'active' ? (
        <ActionButton v={v} action={`/_dashboard/calls/${id}/end`} label="End call" id="end-call" danger confirm={`End ${id}?`} />
      ) : null}
      <h2>Participants</h2>
      {participants.length === 0 ? (
        <p class="muted">No one was dialled.</p>
      ) : (
        <Table columns={['Participant', 'Phone', 'Language', 'Line', 'Status']}>
          {participants.map(({ obj }) => (
            <tr>
              <td>
                <code>{obj.id}</code>
              </td>
              <td>{obj.phone}</td>
              <td>{obj.language}</td>
              <td>{obj.line_id ?? '—'}</td>
              <td>{obj.status}</td>
            </tr>
          ))}
        </Table>
      )}
      <h2>Links</h2>
      {links.length === 0 ? (
        <p class="muted">No links to this call.</p>
      ) : (
        <Table columns={['Link', 'URL', 'Language', 'Expires']}>
          {links.map(({ obj }) => (
            <tr>
              <td>
                <code>{obj.id}</code>
              </td>
              <td>
                <code>{obj.url}</code>
              </td>
              <td>{obj.language ?? '—'}</td>
              <td>
                <When at={obj.expires_at} />
              </td>
            </tr>
          ))}
        </Table>
      )}
      <ObjectEvents v={v} id={id} />
      <ObjectRequests v={v} id={id} />
    </ObjectPage>
  );
}
