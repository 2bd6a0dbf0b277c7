// The dashboard's pages, server-rendered components (hono/jsx; layout.tsx has the frame). Each
// page shows one mode's objects (the Test / Live switch); the parts marked data-live are
// fetched again when the emulator reports a change.
import type { Child } from 'hono/jsx';
import { centsOfSubcents, money } from '../../contract/money.js';
import { EVENT_TYPES, LIMITS, SCOPES } from '../../shared/constants.js';
import type { Mode } from '../../shared/constants.js';
import { PRICES } from '../billing.js';
import { eventLog, retained, typeMatcher } from '../events.js';
import { connectionsOf } from '../routes/control.js';
import { SEED_ADMIN } from '../state.js';
import type { EmulatorEvent, State, Stored } from '../state.js';
import { ActionButton, CsrfFields, Layout, time, withMode } from './layout.js';
import type { Html, View } from './layout.js';
import type { RequestEntry } from './requests.js';

export { PAGES, shownOnce, withMode } from './layout.js';
export type { Html, View } from './layout.js';

/** Rows a list page shows at most; older ones are a link away ("Older"). */
export const PAGE_ROWS = 100;

const orgName = (state: State, id: string) => state.orgs.get(id)?.name ?? id;

function storedIn<T extends { id: string; livemode: boolean }>(collection: Map<string, Stored<T>>, mode: Mode): Stored<T>[] {
  const rows: Stored<T>[] = [];
  for (const item of collection.values()) if (item.obj.livemode === (mode === 'live')) rows.push(item);
  return rows.sort((a, b) => b.seq - a.seq);
}

function keysIn(state: State, mode: Mode) {
  return [...state.keys.values()].filter((k) => k.mode === mode);
}

/** The retained events of every organization in `mode`, newest first, at most `limit` (before `beforeSeq`). */
export function newestEvents(state: State, mode: Mode, matches: (type: string) => boolean, beforeSeq: number, limit: number): EmulatorEvent[] {
  const picked: EmulatorEvent[] = [];
  for (const org of state.orgs.values()) {
    const events = retained(eventLog(state, org.id, mode));
    let taken = 0;
    for (let i = events.length - 1; i >= 0 && taken <= limit; i--) {
      const event = events[i]!;
      if (event.seq >= beforeSeq || !matches(event.type)) continue;
      picked.push(event);
      taken++;
    }
  }
  return picked.sort((a, b) => b.seq - a.seq).slice(0, limit + 1);
}

function signedInAdmin(state: State): string {
  if (state.users.has(SEED_ADMIN.email)) return SEED_ADMIN.email;
  return state.users.keys().next().value ?? '(no admin)';
}

/**
 * A table in a scrolling box, with a header row of column names; `caption` is a muted line above
 * it, and `live` makes the box itself the page's live part (fetched again on a change).
 */
function Table({ columns, caption, live, children }: { columns: (string | Html)[]; caption?: Child; live?: string; children?: Child }) {
  return (
    <div id={live} data-live={live === undefined ? undefined : ''} class="scroll" tabindex={0}>
      {caption === undefined ? null : <p class="muted">{caption}</p>}
      <table>
        <thead>
          <tr>
            {columns.map((name) => (
              <th scope="col">{name}</th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

const ACTION_COLUMN = <span class="hide-narrow">Action</span>;

/** A dialog form's buttons: `submit` sends it, Cancel closes the dialog (assets.ts's script). */
function DialogActions({ submit }: { submit: string }) {
  return (
    <div class="actions">
      <button type="submit" class="primary">
        {submit}
      </button>
      <button type="button" data-close="">
        Cancel
      </button>
    </div>
  );
}

/** A list row's first cell: the object's id, linking to its own page (`/calls/<id>`). */
function DetailCell({ v, list, id }: { v: View; list: '/calls' | '/chats'; id: string }) {
  return (
    <td>
      <a href={withMode(`${list}/${id}`, v.mode)}>
        <code>{id}</code>
      </a>
    </td>
  );
}

export function overviewPage(v: View): Html {
  const { state } = v;
  const url = state.address?.url ?? '';
  const eventCount = [...state.orgs.values()].reduce((sum, org) => sum + retained(eventLog(state, org.id, v.mode)).length, 0);
  const counts: [string, number][] = [
    ['API keys', keysIn(state, v.mode).filter((k) => !k.revoked).length],
    ['Apps', state.apps.size],
    ['Connections', [...state.grants.values()].filter((g) => g.active).length],
    ['Calls', storedIn(state.calls, v.mode).length],
    ['Chats', storedIn(state.chats, v.mode).length],
    ['Events', eventCount],
    ['Requests', v.requests.length],
  ];
  const offset = state.clock.offsetMs();
  return (
    <Layout v={v} path="/" title="Overview">
      <section aria-labelledby="now">
        <h2 id="now">Now</h2>
        <div id="overview-now" data-live="">
          <p>
            Emulator clock: <time>{time(state.clock.now())}</time>
            {offset > 0 ? (
              <>
                {' '}
                <span class="muted">(advanced {Math.round(offset / 1000)} s)</span>
              </>
            ) : null}
          </p>
          <p>
            Signed in as <strong>{signedInAdmin(state)}</strong> <span class="muted">(the emulator's dashboard acts as this admin)</span>
          </p>
          <ul class="counts">
            {counts.map(([label, n]) => (
              <li>
                <strong>{n}</strong>
                {label}
              </li>
            ))}
          </ul>
        </div>
      </section>
      <section aria-labelledby="orgs">
        <h2 id="orgs">Organizations</h2>
        <Table columns={['Name', 'Id', 'Admins', 'Balance (live)']}>
          {[...state.orgs.values()].map((org) => (
            <tr>
              <td>{org.name}</td>
              <td>
                <code>{org.id}</code>
              </td>
              <td>
                {[...state.users.values()]
                  .filter((u) => u.orgs.has(org.id))
                  .map((u) => (
                    <div>{u.email}</div>
                  ))}
              </td>
              <td>
                <p>
                  <strong>{money(centsOfSubcents(org.balance_subcents))}</strong>
                </p>
                <form method="post" action={`/_dashboard/orgs/${org.id}/balance`} class="row">
                  <CsrfFields v={v} />
                  <div>
                    <label for={`balance-${org.id}`}>New balance of {org.name} in cents</label>
                    <input
                      id={`balance-${org.id}`}
                      name="available"
                      type="number"
                      min="0"
                      step="1"
                      required
                      value={String(centsOfSubcents(org.balance_subcents))}
                    />
                  </div>
                  <button type="submit">Save balance</button>
                </form>
              </td>
            </tr>
          ))}
        </Table>
      </section>
      <section aria-labelledby="prices">
        <h2 id="prices">Prices</h2>
        <Table columns={['Item', 'Price']}>
          {PRICES.map((p) => (
            <tr>
              <td>{p.item.replace(/_/g, ' ')}</td>
              <td>{money(p.unit_amount, p.currency)}</td>
            </tr>
          ))}
        </Table>
        <p class="muted">Test mode is never billed; live mode draws from the balance.</p>
      </section>
      <section aria-labelledby="use">
        <h2 id="use">Point svc at this emulator</h2>
        <pre>
          {`export SVC_BASE_URL=${url}
svc login                          # live mode, through the authorize page
SVC_API_KEY=<a key from API keys> svc account
svc --test events tail             # events as they happen`}
        </pre>
      </section>
    </Layout>
  );
}

export function keysPage(v: View): Html {
  const { state } = v;
  const keys = keysIn(state, v.mode).sort((a, b) => (b.created_at ?? 0) - (a.created_at ?? 0));
  const orgs = [...state.orgs.values()];
  return (
    <Layout v={v} path="/keys" title="API keys">
      <p>
        <button type="button" class="primary" data-open="create-key">
          Create key
        </button>
      </p>
      <Table
        live="keys"
        caption={`${keys.length} ${v.mode} key(s). A key is shown once, when it is made; only its last four characters are kept here.`}
        columns={['Name or id', 'Organization', 'Mode', 'Scopes', 'Last four', 'Created', 'Revoked', ACTION_COLUMN]}
      >
        {keys.map((key) => (
          <tr data-key-id={key.id}>
            <td>
              {key.name ? (
                <>
                  {key.name}
                  <br />
                  <code>{key.id}</code>
                </>
              ) : (
                <code>{key.id}</code>
              )}
            </td>
            <td>{orgName(state, key.org_id)}</td>
            <td>{key.mode}</td>
            <td>{key.scopes.length === SCOPES.length ? 'all' : key.scopes.join(', ')}</td>
            <td>
              <code>{key.last4 ?? '—'}</code>
            </td>
            <td>{time(key.created_at)}</td>
            <td>{key.revoked ? 'revoked' : 'no'}</td>
            <td>
              {key.revoked ? null : (
                <ActionButton
                  v={v}
                  action={`/_dashboard/keys/${key.id}/revoke`}
                  label="Revoke"
                  id={`revoke-${key.id}`}
                  name={`Revoke ${key.name ?? key.id}`}
                  danger
                  confirm={`Revoke ${key.name ?? key.id}? Requests with it get 401 at once.`}
                />
              )}
            </td>
          </tr>
        ))}
      </Table>
      <dialog id="create-key" aria-labelledby="create-key-title">
        <h2 id="create-key-title">Create an API key</h2>
        <form method="post" action="/_dashboard/keys">
          <CsrfFields v={v} />
          <label for="key-org">Organization</label>
          <select id="key-org" name="org_id">
            {orgs.map((org) => (
              <option value={org.id}>
                {org.name} ({org.id})
              </option>
            ))}
          </select>
          <label for="key-name">Name (optional)</label>
          <input id="key-name" name="name" maxlength={200} autocomplete="off" />
          <label for="key-mode">Mode</label>
          <select id="key-mode" name="key_mode">
            <option value="test" selected={v.mode === 'test'}>
              test
            </option>
            <option value="live" selected={v.mode === 'live'}>
              live
            </option>
          </select>
          <fieldset>
            <legend>Scopes</legend>
            {SCOPES.map((scope) => (
              <label>
                <input type="checkbox" name="scopes" value={scope} checked /> {scope}
              </label>
            ))}
          </fieldset>
          <DialogActions submit="Create" />
        </form>
      </dialog>
    </Layout>
  );
}

export function appsPage(v: View): Html {
  const { state } = v;
  const lastIssued = new Map<string, number>();
  for (const token of state.accessTokens.values()) {
    const issued = token.expires_at - LIMITS.accessTokenSeconds * 1000;
    if (issued > (lastIssued.get(token.grant_id) ?? -Infinity)) lastIssued.set(token.grant_id, issued);
  }
  const connectedOrgs = (clientId: string) => [
    ...new Set([...state.grants.values()].filter((g) => g.active && g.client_id === clientId).map((g) => orgName(state, g.org_id))),
  ];
  return (
    <Layout v={v} path="/apps" title="Apps">
      <p class="muted">OAuth connections are always live mode; the apps and connections are the same in both modes.</p>
      <p>
        <button type="button" class="primary" data-open="register-app">
          Register app
        </button>
      </p>
      <div id="apps" data-live="">
        <h2>Registered apps</h2>
        <Table columns={['Name', 'Client id', 'Redirect URIs', 'Type', 'Connected organizations', ACTION_COLUMN]}>
          {[...state.apps.values()].map((app) => (
            <tr>
              <td>{app.name}</td>
              <td>
                <code>{app.client_id}</code>
              </td>
              <td>
                {app.redirect_uris.map((uri) => (
                  <div>
                    <code>{uri}</code>
                  </div>
                ))}
              </td>
              <td>{app.secret_hash ? 'confidential' : 'public (PKCE)'}</td>
              <td>{connectedOrgs(app.client_id).join(', ') || '—'}</td>
              <td>
                <ActionButton
                  v={v}
                  action={`/_dashboard/apps/${app.client_id}/delete`}
                  label="Delete app"
                  id={`delete-${app.client_id}`}
                  name={`Delete app ${app.name}`}
                  danger
                  confirm={`Delete ${app.name}? It is disconnected from every organization at once.`}
                />
              </td>
            </tr>
          ))}
        </Table>
        {[...state.orgs.values()].map((org) => {
          const connections = connectionsOf(state, org.id);
          return (
            <>
              <h2>Connected apps of {org.name}</h2>
              {connections.length === 0 ? (
                <p class="muted">No app is connected to {org.name}.</p>
              ) : (
                <Table columns={['App', 'Client id', 'Scopes', 'Connected', 'Last refresh', ACTION_COLUMN]}>
                  {connections.map((conn) => (
                    <tr>
                      <td>{conn.name}</td>
                      <td>
                        <code>{conn.client_id}</code>
                      </td>
                      <td>{conn.scopes.length === SCOPES.length ? 'all' : conn.scopes.join(', ')}</td>
                      <td>{conn.connected_at}</td>
                      <td>{time(lastIssued.get(conn.grant_id))}</td>
                      <td>
                        <ActionButton
                          v={v}
                          action={`/_dashboard/orgs/${org.id}/connections/${conn.client_id}/disconnect`}
                          label="Disconnect"
                          id={`disconnect-${org.id}-${conn.client_id}`}
                          name={`Disconnect ${conn.name} from ${org.name}`}
                          danger
                          confirm={`Disconnect ${conn.name} from ${org.name}? Its tokens stop working at once.`}
                        />
                      </td>
                    </tr>
                  ))}
                </Table>
              )}
            </>
          );
        })}
      </div>
      <dialog id="register-app" aria-labelledby="register-app-title">
        <h2 id="register-app-title">Register an OAuth app</h2>
        <form method="post" action="/_dashboard/apps">
          <CsrfFields v={v} />
          <label for="app-name">Name</label>
          <input id="app-name" name="name" required maxlength={200} autocomplete="off" />
          <label for="app-redirects">Redirect URIs (one a line; https, or http for localhost)</label>
          <textarea id="app-redirects" name="redirect_uris" rows={3} cols={40} required>
            http://127.0.0.1/callback
          </textarea>
          <fieldset>
            <legend>Client type</legend>
            <label>
              <input type="checkbox" name="public" value="1" /> Public client (PKCE only, no secret)
            </label>
          </fieldset>
          <DialogActions submit="Register" />
        </form>
      </dialog>
    </Layout>
  );
}

export function callsPage(v: View): Html {
  const { state } = v;
  const calls = storedIn(state.calls, v.mode).slice(0, PAGE_ROWS);
  const lines = storedIn(state.lines, v.mode).slice(0, PAGE_ROWS);
  return (
    <Layout v={v} path="/calls" title="Calls">
      <div id="calls" data-live="">
        <Table caption={`The newest ${PAGE_ROWS} calls at most.`} columns={['Call', 'Organization', 'Status', 'Title', 'Languages', 'Started', 'Ended']}>
          {calls.map(({ org_id, obj }) => (
            <tr>
              <DetailCell v={v} list="/calls" id={obj.id} />
              <td>{orgName(state, org_id)}</td>
              <td>{obj.status}</td>
              <td>{obj.title ?? '—'}</td>
              <td>{obj.languages.join(' ↔ ')}</td>
              <td>{obj.created_at}</td>
              <td>{obj.ended_at ?? '—'}</td>
            </tr>
          ))}
        </Table>
        {calls.length === 0 ? <p class="muted">No {v.mode} calls yet.</p> : null}
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
    <Layout v={v} path={`/calls/${id}`} title={`Call ${id}`}>
      <p>
        <a href={withMode('/calls', v.mode)}>All calls</a>
      </p>
      <div id="call" data-live="">
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
          <dd>{call.created_at}</dd>
          <dt>Ended</dt>
          <dd>{call.ended_at ?? '—'}</dd>
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
                <td>{obj.expires_at}</td>
              </tr>
            ))}
          </Table>
        )}
      </div>
    </Layout>
  );
}

export function chatsPage(v: View): Html {
  const { state } = v;
  const chats = storedIn(state.chats, v.mode).slice(0, PAGE_ROWS);
  const messageCount = new Map<string, number>();
  for (const m of state.messages.values()) messageCount.set(m.obj.chat_id, (messageCount.get(m.obj.chat_id) ?? 0) + 1);
  return (
    <Layout v={v} path="/chats" title="Chats">
      <div id="chats" data-live="">
        <Table caption={`The newest ${PAGE_ROWS} chats at most.`} columns={['Chat', 'Organization', 'Status', 'Subject', 'Language', 'Messages', 'Started']}>
          {chats.map(({ org_id, obj }) => (
            <tr>
              <DetailCell v={v} list="/chats" id={obj.id} />
              <td>{orgName(state, org_id)}</td>
              <td>{obj.status}</td>
              <td>{obj.subject ?? '—'}</td>
              <td>{obj.language}</td>
              <td>{messageCount.get(obj.id) ?? 0}</td>
              <td>{obj.created_at}</td>
            </tr>
          ))}
        </Table>
        {chats.length === 0 ? <p class="muted">No {v.mode} chats yet.</p> : null}
      </div>
    </Layout>
  );
}

export function chatPage(v: View, id: string): Html | null {
  const { state } = v;
  const stored = state.chats.get(id);
  if (!stored || stored.obj.livemode !== (v.mode === 'live')) return null;
  const chat = stored.obj;
  const messages = [...state.messages.values()].filter((m) => m.obj.chat_id === id).sort((a, b) => a.seq - b.seq);
  return (
    <Layout v={v} path={`/chats/${id}`} title={`Chat ${id}`}>
      <p>
        <a href={withMode('/chats', v.mode)}>All chats</a>
      </p>
      <div id="chat" data-live="">
        <dl>
          <dt>Organization</dt>
          <dd>{orgName(state, stored.org_id)}</dd>
          <dt>Status</dt>
          <dd>{chat.status}</dd>
          <dt>Subject</dt>
          <dd>{chat.subject ?? '—'}</dd>
          <dt>Language</dt>
          <dd>{chat.language}</dd>
          <dt>Stream</dt>
          <dd>
            <code>GET /v1/chats/{id}/stream</code> (<code>svc chats watch {id}</code>); this page follows it live
          </dd>
        </dl>
        {chat.status === 'open' ? (
          <ActionButton v={v} action={`/_dashboard/chats/${id}/close`} label="Close chat" id="close-chat" danger confirm={`Close ${id}?`} />
        ) : null}
        <h2>Messages</h2>
        {messages.length === 0 ? (
          <p class="muted">No messages yet.</p>
        ) : (
          <ol class="log">
            {messages.map(({ obj }) => (
              <li>
                <div class="card">
                  <div class="muted">
                    {obj.created_at} · {obj.kind} · {obj.language}
                  </div>
                  {obj.kind === 'voice' ? <p>🎤 voice message — transcript: {obj.transcript ?? '(none)'}</p> : <p>{obj.text}</p>}
                  {obj.translation ? (
                    <p class="muted">
                      {obj.translation.language}: {obj.translation.text}
                    </p>
                  ) : null}
                </div>
              </li>
            ))}
          </ol>
        )}
      </div>
    </Layout>
  );
}

export function eventsPage(v: View): Html {
  const { state } = v;
  const type = v.query('type')?.trim() ?? '';
  const before = Number(v.query('before') ?? NaN);
  const filters = type ? type.split(/[\s,]+/) : [];
  const events = newestEvents(state, v.mode, typeMatcher(filters), Number.isSafeInteger(before) ? before : Infinity, PAGE_ROWS);
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
        <button type="submit">Filter</button>
      </form>
      <div id="events" data-live="">
        <p class="muted">
          Retained {v.mode} events, newest first (the emulator keeps the last 10,000 per organization and mode); {PAGE_ROWS} a page.
        </p>
        <ol class="log" aria-label="Events">
          {shown.map((event) => {
            const body = JSON.parse(event.json) as { created_at: string };
            return (
              <li>
                <details data-key={event.id}>
                  <summary>
                    <time>{body.created_at}</time> <strong>{event.type}</strong> <code>{event.id}</code>
                  </summary>
                  <pre>{JSON.stringify(body, null, 2)}</pre>
                </details>
              </li>
            );
          })}
        </ol>
        {shown.length === 0 ? (
          <p class="muted">
            No {v.mode} events{type ? ` of type ${type}` : ''}.
          </p>
        ) : null}
        {more ? (
          <p>
            <a href={withMode('/events', v.mode, { ...(type ? { type } : {}), before: String(shown.at(-1)!.seq) })}>Older events</a>
          </p>
        ) : null}
      </div>
    </Layout>
  );
}

export function requestsPage(v: View): Html {
  const status = v.query('status') ?? '';
  const pathFilter = v.query('path')?.trim() ?? '';
  const before = Number(v.query('before') ?? NaN);
  const rows: RequestEntry[] = [];
  let more = false;
  for (const entry of v.requests.newest()) {
    if (Number.isSafeInteger(before) && entry.n >= before) continue;
    if (status && String(entry.status)[0] !== status[0]) continue;
    if (pathFilter && !entry.path.includes(pathFilter)) continue;
    if (rows.length === PAGE_ROWS) {
      more = true;
      break;
    }
    rows.push(entry);
  }
  const modeOf = (entry: RequestEntry) => /\((test|live)\)$/.exec(entry.credential ?? '')?.[1];
  const older = { ...(status ? { status } : {}), ...(pathFilter ? { path: pathFilter } : {}), before: String(rows.at(-1)?.n ?? 0) };
  return (
    <Layout v={v} path="/requests" title="Requests">
      <form method="get" action="/requests" class="row card">
        <input type="hidden" name="mode" value={v.mode} />
        <div>
          <label for="request-status">Status</label>
          <select id="request-status" name="status">
            {['', '2xx', '3xx', '4xx', '5xx'].map((s) => (
              <option value={s} selected={s === status}>
                {s || 'any'}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="request-path">Path contains</label>
          <input id="request-path" name="path" value={pathFilter} autocomplete="off" />
        </div>
        <button type="submit">Filter</button>
      </form>
      <div id="requests" data-live="">
        <p class="muted">
          The last {v.requests.size} requests the emulator served (all modes; {v.requests.total} since it started), newest first. Secrets in bodies are not
          shown.
        </p>
        <ol class="log" aria-label="Requests">
          {rows.map((entry) => {
            const mode = modeOf(entry);
            return (
              <li>
                <details data-key={`r${entry.n}`}>
                  <summary>
                    <time>{time(entry.at)}</time> <strong>{entry.method}</strong> <code>{entry.path}</code>{' '}
                    <span class={`status-${String(entry.status)[0]}`}>{entry.status}</span> <span>{entry.credential ?? 'no credential'}</span>
                    <span class="muted">{entry.latency_ms} ms</span>
                    {mode && mode !== v.mode ? <span class="muted">({mode})</span> : null}
                  </summary>
                  <h3 class="muted">Request body</h3>
                  <pre>{entry.request_body ?? '(none kept)'}</pre>
                  <h3 class="muted">Response body</h3>
                  <pre>{entry.response_body ?? '(none kept)'}</pre>
                </details>
              </li>
            );
          })}
        </ol>
        {rows.length === 0 ? <p class="muted">No requests{status || pathFilter ? ' match' : ' yet'}.</p> : null}
        {more ? (
          <p>
            <a href={withMode('/requests', v.mode, older)}>Older requests</a>
          </p>
        ) : null}
      </div>
    </Layout>
  );
}

export function controlsPage(v: View): Html {
  const orgs = [...v.state.orgs.values()];
  return (
    <Layout v={v} path="/controls" title="Controls">
      <section class="card" aria-labelledby="clock-title">
        <h2 id="clock-title">Clock</h2>
        <p id="clock" data-live="">
          Now: <time>{time(v.state.clock.now())}</time>
        </p>
        <form method="post" action="/_dashboard/clock" class="row">
          <CsrfFields v={v} />
          <div>
            <label for="advance">Advance by (seconds)</label>
            <input id="advance" name="advance_seconds" type="number" min="0" step="1" required value="3600" />
          </div>
          <button type="submit">Advance clock</button>
        </form>
      </section>
      <section class="card" aria-labelledby="fault-title">
        <h2 id="fault-title">Inject a fault</h2>
        <form method="post" action="/_dashboard/faults" class="row">
          <CsrfFields v={v} />
          <div>
            <label for="fault-status">Status</label>
            <select id="fault-status" name="status">
              <option>429</option>
              <option>502</option>
            </select>
          </div>
          <div>
            <label for="fault-path">Path prefix</label>
            <input id="fault-path" name="path_prefix" required value="/v1/" />
          </div>
          <div>
            <label for="fault-count">Count</label>
            <input id="fault-count" name="count" type="number" min="1" step="1" required value="1" />
          </div>
          <button type="submit">Inject fault</button>
        </form>
        <p class="muted">The next matching requests fail with that status; the dashboard and /_emulator never do.</p>
      </section>
      <section class="card" aria-labelledby="publish-title">
        <h2 id="publish-title">Publish events</h2>
        <form method="post" action="/_dashboard/events" class="row">
          <CsrfFields v={v} />
          <div>
            <label for="publish-org">Organization</label>
            <select id="publish-org" name="org_id">
              {orgs.map((org) => (
                <option value={org.id}>{org.name}</option>
              ))}
            </select>
          </div>
          <div>
            <label for="publish-type">Type</label>
            <input id="publish-type" name="type" required value="call.started" list="publish-types" />
          </div>
          <datalist id="publish-types">
            {EVENT_TYPES.map((t) => (
              <option value={t}></option>
            ))}
          </datalist>
          <div>
            <label for="publish-count">Count</label>
            <input id="publish-count" name="count" type="number" min="1" max="1000000" step="1" required value="1" />
          </div>
          <button type="submit">Publish {v.mode} events</button>
        </form>
      </section>
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
            <button type="submit" class="danger">
              Reset the emulator
            </button>
          </p>
        </form>
      </section>
    </Layout>
  );
}

export function notFoundPage(v: View, path: string, what: string): Html {
  return (
    <Layout v={v} path={path} title="Not found">
      <p>{what}</p>
      <p>
        <a href={withMode('/', v.mode)}>Back to the overview</a>
      </p>
    </Layout>
  );
}
