// The dashboard's pages, rendered on the server with hono/html (every interpolated value is
// escaped). Each page shows one mode's objects (the Test / Live switch); the parts marked
// data-live are fetched again when the emulator reports a change.
import { html } from 'hono/html';
import { EVENT_TYPES, LIMITS, SCOPES } from '../../shared/constants.js';
import type { Mode } from '../../shared/constants.js';
import { PRICES } from '../billing.js';
import { eventLog, retained, typeMatcher } from '../events.js';
import { rfc3339 } from '../ids.js';
import { connectionsOf } from '../routes/control.js';
import { SEED_ADMIN } from '../state.js';
import type { EmulatorEvent, State, Stored } from '../state.js';
import type { RequestEntry, RequestLog } from './requests.js';

type Html = ReturnType<typeof html>;

/** Rows a list page shows at most; older ones are a link away ("Older"). */
export const PAGE_ROWS = 100;

export interface View {
  state: State;
  requests: RequestLog;
  mode: Mode;
  csrf: string;
  /** This page's GET address (path and query), for live refresh and for returning after an action. */
  here: string;
  query: (name: string) => string | undefined;
  notice?: string | undefined;
  error?: string | undefined;
  /** A dialog shown once, open on load (a new key or client secret). */
  shown?: Html | undefined;
}

export const PAGES = [
  { path: '/', title: 'Overview' },
  { path: '/keys', title: 'API keys' },
  { path: '/apps', title: 'Apps' },
  { path: '/calls', title: 'Calls' },
  { path: '/chats', title: 'Chats' },
  { path: '/events', title: 'Events' },
  { path: '/requests', title: 'Requests' },
  { path: '/controls', title: 'Controls' },
] as const;

export const withMode = (path: string, mode: Mode, extra: Record<string, string> = {}) => {
  const params = new URLSearchParams({ mode, ...extra });
  return `${path}?${params.toString()}`;
};

const time = (ms: number | undefined) => (ms === undefined ? '—' : rfc3339(ms));
const orgName = (state: State, id: string) => state.orgs.get(id)?.name ?? id;

function csrfField(v: View): Html {
  return html`<input type="hidden" name="csrf" value="${v.csrf}" /><input type="hidden" name="mode" value="${v.mode}" />`;
}

/** A one-button form POSTing an action; `confirm` asks first (the browser's confirm). */
function actionButton(v: View, action: string, label: string, opts: { id: string; confirm?: string; danger?: boolean; name?: string }): Html {
  return html`<form class="inline" method="post" action="${action}" ${opts.confirm ? html`data-confirm="${opts.confirm}"` : ''}>
    ${csrfField(v)}<button type="submit" id="${opts.id}" class="${opts.danger ? 'danger' : ''}" aria-label="${opts.name ?? label}">${label}</button>
  </form>`;
}

export function layout(v: View, path: string, title: string, body: Html): Html {
  const current = PAGES.find((p) => p.path === path || (p.path !== '/' && path.startsWith(`${p.path}/`)));
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href="/_dashboard/app.css" />
        <title>${title} · ${v.mode === 'live' ? 'Live' : 'Test'} · svc emulator</title>
      </head>
      <body data-page="${v.here}">
        <header>
          <a class="brand" href="${withMode('/', v.mode)}">svc emulator</a>
          <nav aria-label="Dashboard">
            <ul>
              ${PAGES.map(
                (p) => html`<li><a href="${withMode(p.path, v.mode)}" ${current?.path === p.path ? html`aria-current="page"` : ''}>${p.title}</a></li>`,
              )}
            </ul>
          </nav>
          <div class="mode" role="group" aria-label="Mode">
            <a href="${withMode(path, 'test', pageQuery(v))}" aria-current="${String(v.mode === 'test')}">Test</a>
            <a href="${withMode(path, 'live', pageQuery(v))}" aria-current="${String(v.mode === 'live')}">Live</a>
          </div>
        </header>
        <main>
          <h1>${title} <span class="muted">(${v.mode} mode)</span></h1>
          ${v.notice ? html`<p class="notice" role="status">${v.notice}</p>` : ''} ${v.error ? html`<p class="error" role="alert">${v.error}</p>` : ''} ${body}
        </main>
        ${v.shown ?? ''}
        <script src="/_dashboard/app.js" defer></script>
      </body>
    </html>`;
}

/** Filters a list page keeps when the mode switches. */
function pageQuery(v: View): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of ['type', 'status', 'path']) {
    const value = v.query(name);
    if (value) kept[name] = value;
  }
  return kept;
}

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
  return layout(
    v,
    '/',
    'Overview',
    html` <section aria-labelledby="now">
        <h2 id="now">Now</h2>
        <div id="overview-now" data-live>
          <p>
            Emulator clock:
            <time>${time(state.clock.now())}</time
            >${state.clock.offsetMs() > 0 ? html` <span class="muted">(advanced ${Math.round(state.clock.offsetMs() / 1000)} s)</span>` : ''}
          </p>
          <p>Signed in as <strong>${signedInAdmin(state)}</strong> <span class="muted">(the emulator's dashboard acts as this admin)</span></p>
          <ul class="counts">
            ${counts.map(([label, n]) => html`<li><strong>${n}</strong>${label}</li>`)}
          </ul>
        </div>
      </section>
      <section aria-labelledby="orgs">
        <h2 id="orgs">Organizations</h2>
        <div class="scroll" tabindex="0">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Id</th>
                <th scope="col">Admins</th>
                <th scope="col">Balance (cents, live)</th>
              </tr>
            </thead>
            <tbody>
              ${[...state.orgs.values()].map(
                (org) =>
                  html`<tr>
                    <td>${org.name}</td>
                    <td><code>${org.id}</code></td>
                    <td>${[...state.users.values()].filter((u) => u.orgs.has(org.id)).map((u) => html`<div>${u.email}</div>`)}</td>
                    <td>
                      <form method="post" action="/_dashboard/orgs/${org.id}/balance" class="row">
                        ${csrfField(v)}
                        <div>
                          <label for="balance-${org.id}">Balance of ${org.name} in cents</label>
                          <input id="balance-${org.id}" name="available" type="number" min="0" step="1" required value="${org.balance}" />
                        </div>
                        <button type="submit">Save balance</button>
                      </form>
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>
      </section>
      <section aria-labelledby="prices">
        <h2 id="prices">Prices</h2>
        <div class="scroll" tabindex="0">
          <table>
            <thead>
              <tr>
                <th scope="col">Item</th>
                <th scope="col">Price (cents)</th>
              </tr>
            </thead>
            <tbody>
              ${PRICES.map(
                (p) =>
                  html`<tr>
                    <td>${p.item.replace(/_/g, ' ')}</td>
                    <td>${p.unit_amount}</td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>
        <p class="muted">Test mode is never billed; live mode draws from the balance.</p>
      </section>
      <section aria-labelledby="use">
        <h2 id="use">Point svc at this emulator</h2>
        <pre>
export SVC_BASE_URL=${url}
svc login                          # live mode, through the authorize page
SVC_API_KEY=&lt;a key from API keys&gt; svc account
svc --test events tail             # events as they happen</pre>
      </section>`,
  );
}

export function keysPage(v: View): Html {
  const { state } = v;
  const keys = keysIn(state, v.mode).sort((a, b) => (b.created_at ?? 0) - (a.created_at ?? 0));
  const orgs = [...state.orgs.values()];
  return layout(
    v,
    '/keys',
    'API keys',
    html` <p><button type="button" class="primary" data-open="create-key">Create key</button></p>
      <div id="keys" data-live class="scroll" tabindex="0">
        <p class="muted">${keys.length} ${v.mode} key(s). A key is shown once, when it is made; only its last four characters are kept here.</p>
        <table>
          <thead>
            <tr>
              <th scope="col">Name or id</th>
              <th scope="col">Organization</th>
              <th scope="col">Mode</th>
              <th scope="col">Scopes</th>
              <th scope="col">Last four</th>
              <th scope="col">Created</th>
              <th scope="col">Revoked</th>
              <th scope="col"><span class="hide-narrow">Action</span></th>
            </tr>
          </thead>
          <tbody>
            ${keys.map(
              (key) =>
                html`<tr data-key-id="${key.id}">
                  <td>${key.name ? html`${key.name}<br /><code>${key.id}</code>` : html`<code>${key.id}</code>`}</td>
                  <td>${orgName(state, key.org_id)}</td>
                  <td>${key.mode}</td>
                  <td>${key.scopes.length === SCOPES.length ? 'all' : key.scopes.join(', ')}</td>
                  <td><code>${key.last4 ?? '—'}</code></td>
                  <td>${time(key.created_at)}</td>
                  <td>${key.revoked ? 'revoked' : 'no'}</td>
                  <td>
                    ${
                      key.revoked
                        ? ''
                        : actionButton(v, `/_dashboard/keys/${key.id}/revoke`, 'Revoke', {
                            id: `revoke-${key.id}`,
                            name: `Revoke ${key.name ?? key.id}`,
                            danger: true,
                            confirm: `Revoke ${key.name ?? key.id}? Requests with it get 401 at once.`,
                          })
                    }
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
      <dialog id="create-key" aria-labelledby="create-key-title">
        <h2 id="create-key-title">Create an API key</h2>
        <form method="post" action="/_dashboard/keys">
          ${csrfField(v)}
          <label for="key-org">Organization</label>
          <select id="key-org" name="org_id">
            ${orgs.map((org) => html`<option value="${org.id}">${org.name} (${org.id})</option>`)}
          </select>
          <label for="key-name">Name (optional)</label>
          <input id="key-name" name="name" maxlength="200" autocomplete="off" />
          <label for="key-mode">Mode</label>
          <select id="key-mode" name="key_mode">
            <option value="test" ${v.mode === 'test' ? 'selected' : ''}>test</option>
            <option value="live" ${v.mode === 'live' ? 'selected' : ''}>live</option>
          </select>
          <fieldset>
            <legend>Scopes</legend>
            ${SCOPES.map((scope) => html`<label><input type="checkbox" name="scopes" value="${scope}" checked /> ${scope}</label>`)}
          </fieldset>
          <div class="actions"><button type="submit" class="primary">Create</button><button type="button" data-close>Cancel</button></div>
        </form>
      </dialog>`,
  );
}

/** The dialog that shows a new secret once, with a Copy button per value. */
export function shownOnce(title: string, intro: string, values: { label: string; id: string; value: string }[]): Html {
  return html`<dialog id="shown-once" data-show open aria-labelledby="shown-once-title">
    <h2 id="shown-once-title">${title}</h2>
    <p>${intro}</p>
    ${values.map(
      (item) =>
        html`<label for="${item.id}">${item.label}</label>
          <div class="secret">
            <input id="${item.id}" readonly value="${item.value}" /><button type="button" data-copy="${item.id}" aria-label="Copy ${item.label}">Copy</button>
          </div>`,
    )}
    <div class="actions"><button type="button" data-close class="primary">Done</button></div>
  </dialog>`;
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
  return layout(
    v,
    '/apps',
    'Apps',
    html` <p class="muted">OAuth connections are always live mode; the apps and connections are the same in both modes.</p>
      <p><button type="button" class="primary" data-open="register-app">Register app</button></p>
      <div id="apps" data-live>
        <h2>Registered apps</h2>
        <div class="scroll" tabindex="0">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Client id</th>
                <th scope="col">Redirect URIs</th>
                <th scope="col">Type</th>
                <th scope="col">Connected organizations</th>
                <th scope="col"><span class="hide-narrow">Action</span></th>
              </tr>
            </thead>
            <tbody>
              ${[...state.apps.values()].map(
                (app) =>
                  html`<tr>
                    <td>${app.name}</td>
                    <td><code>${app.client_id}</code></td>
                    <td>${app.redirect_uris.map((uri) => html`<div><code>${uri}</code></div>`)}</td>
                    <td>${app.secret_hash ? 'confidential' : 'public (PKCE)'}</td>
                    <td>${connectedOrgs(app.client_id).join(', ') || '—'}</td>
                    <td>
                      ${actionButton(v, `/_dashboard/apps/${app.client_id}/delete`, 'Delete app', {
                        id: `delete-${app.client_id}`,
                        name: `Delete app ${app.name}`,
                        danger: true,
                        confirm: `Delete ${app.name}? It is disconnected from every organization at once.`,
                      })}
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>
        </div>
        ${[...state.orgs.values()].map((org) => {
          const connections = connectionsOf(state, org.id);
          return html`<h2>Connected apps of ${org.name}</h2>
            ${
              connections.length === 0
                ? html`<p class="muted">No app is connected to ${org.name}.</p>`
                : html`<div class="scroll" tabindex="0">
                    <table>
                      <thead>
                        <tr>
                          <th scope="col">App</th>
                          <th scope="col">Client id</th>
                          <th scope="col">Scopes</th>
                          <th scope="col">Connected</th>
                          <th scope="col">Last refresh</th>
                          <th scope="col"><span class="hide-narrow">Action</span></th>
                        </tr>
                      </thead>
                      <tbody>
                        ${connections.map(
                          (conn) =>
                            html`<tr>
                              <td>${conn.name}</td>
                              <td><code>${conn.client_id}</code></td>
                              <td>${conn.scopes.length === SCOPES.length ? 'all' : conn.scopes.join(', ')}</td>
                              <td>${conn.connected_at}</td>
                              <td>${time(lastIssued.get(conn.grant_id))}</td>
                              <td>
                                ${actionButton(v, `/_dashboard/orgs/${org.id}/connections/${conn.client_id}/disconnect`, 'Disconnect', {
                                  id: `disconnect-${org.id}-${conn.client_id}`,
                                  name: `Disconnect ${conn.name} from ${org.name}`,
                                  danger: true,
                                  confirm: `Disconnect ${conn.name} from ${org.name}? Its tokens stop working at once.`,
                                })}
                              </td>
                            </tr>`,
                        )}
                      </tbody>
                    </table>
                  </div>`
            }`;
        })}
      </div>
      <dialog id="register-app" aria-labelledby="register-app-title">
        <h2 id="register-app-title">Register an OAuth app</h2>
        <form method="post" action="/_dashboard/apps">
          ${csrfField(v)}
          <label for="app-name">Name</label>
          <input id="app-name" name="name" required maxlength="200" autocomplete="off" />
          <label for="app-redirects">Redirect URIs (one a line; https, or http for localhost)</label>
          <textarea id="app-redirects" name="redirect_uris" rows="3" cols="40" required>http://127.0.0.1/callback</textarea>
          <fieldset>
            <legend>Client type</legend>
            <label><input type="checkbox" name="public" value="1" /> Public client (PKCE only, no secret)</label>
          </fieldset>
          <div class="actions"><button type="submit" class="primary">Register</button><button type="button" data-close>Cancel</button></div>
        </form>
      </dialog>`,
  );
}

export function callsPage(v: View): Html {
  const { state } = v;
  const calls = storedIn(state.calls, v.mode).slice(0, PAGE_ROWS);
  const lines = storedIn(state.lines, v.mode).slice(0, PAGE_ROWS);
  return layout(
    v,
    '/calls',
    'Calls',
    html`<div id="calls" data-live>
      <div class="scroll" tabindex="0">
        <p class="muted">The newest ${PAGE_ROWS} calls at most.</p>
        <table>
          <thead>
            <tr>
              <th scope="col">Call</th>
              <th scope="col">Organization</th>
              <th scope="col">Status</th>
              <th scope="col">Title</th>
              <th scope="col">Languages</th>
              <th scope="col">Started</th>
              <th scope="col">Ended</th>
            </tr>
          </thead>
          <tbody>
            ${calls.map(
              ({ org_id, obj }) =>
                html`<tr>
                  <td>
                    <a href="${withMode(`/calls/${obj.id}`, v.mode)}"><code>${obj.id}</code></a>
                  </td>
                  <td>${orgName(state, org_id)}</td>
                  <td>${obj.status}</td>
                  <td>${obj.title ?? '—'}</td>
                  <td>${obj.languages.join(' ↔ ')}</td>
                  <td>${obj.created_at}</td>
                  <td>${obj.ended_at ?? '—'}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
      ${calls.length === 0 ? html`<p class="muted">No ${v.mode} calls yet.</p>` : ''}
      <h2>Phone lines</h2>
      ${
        lines.length === 0
          ? html`<p class="muted">No ${v.mode} phone lines.</p>`
          : html`<div class="scroll" tabindex="0">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Line</th>
                    <th scope="col">Number</th>
                    <th scope="col">Country</th>
                    <th scope="col">Status</th>
                  </tr>
                </thead>
                <tbody>
                  ${lines.map(
                    ({ obj }) =>
                      html`<tr>
                        <td><code>${obj.id}</code></td>
                        <td>${obj.number}</td>
                        <td>${obj.country}</td>
                        <td>${obj.status}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
    </div>`,
  );
}

export function callPage(v: View, id: string): Html | null {
  const { state } = v;
  const stored = state.calls.get(id);
  if (!stored || stored.obj.livemode !== (v.mode === 'live')) return null;
  const call = stored.obj;
  const participants = [...state.participants.values()].filter((p) => p.obj.call_id === id);
  const links = [...state.links.values()].filter((l) => l.obj.call_id === id);
  return layout(
    v,
    `/calls/${id}`,
    `Call ${id}`,
    html`<p><a href="${withMode('/calls', v.mode)}">All calls</a></p>
      <div id="call" data-live>
        <dl>
          <dt>Organization</dt>
          <dd>${orgName(state, stored.org_id)}</dd>
          <dt>Status</dt>
          <dd>${call.status}</dd>
          <dt>Title</dt>
          <dd>${call.title ?? '—'}</dd>
          <dt>Languages</dt>
          <dd>${call.languages.join(' ↔ ')}</dd>
          <dt>Started</dt>
          <dd>${call.created_at}</dd>
          <dt>Ended</dt>
          <dd>${call.ended_at ?? '—'}</dd>
        </dl>
        ${call.status === 'active' ? actionButton(v, `/_dashboard/calls/${id}/end`, 'End call', { id: 'end-call', danger: true, confirm: `End ${id}?` }) : ''}
        <h2>Participants</h2>
        ${
          participants.length === 0
            ? html`<p class="muted">No one was dialled.</p>`
            : html`<div class="scroll" tabindex="0">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Participant</th>
                      <th scope="col">Phone</th>
                      <th scope="col">Language</th>
                      <th scope="col">Line</th>
                      <th scope="col">Status</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${participants.map(
                      ({ obj }) =>
                        html`<tr>
                          <td><code>${obj.id}</code></td>
                          <td>${obj.phone}</td>
                          <td>${obj.language}</td>
                          <td>${obj.line_id ?? '—'}</td>
                          <td>${obj.status}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
        }
        <h2>Links</h2>
        ${
          links.length === 0
            ? html`<p class="muted">No links to this call.</p>`
            : html`<div class="scroll" tabindex="0">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Link</th>
                      <th scope="col">URL</th>
                      <th scope="col">Language</th>
                      <th scope="col">Expires</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${links.map(
                      ({ obj }) =>
                        html`<tr>
                          <td><code>${obj.id}</code></td>
                          <td><code>${obj.url}</code></td>
                          <td>${obj.language ?? '—'}</td>
                          <td>${obj.expires_at}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
        }
      </div>`,
  );
}

export function chatsPage(v: View): Html {
  const { state } = v;
  const chats = storedIn(state.chats, v.mode).slice(0, PAGE_ROWS);
  const messageCount = new Map<string, number>();
  for (const m of state.messages.values()) messageCount.set(m.obj.chat_id, (messageCount.get(m.obj.chat_id) ?? 0) + 1);
  return layout(
    v,
    '/chats',
    'Chats',
    html`<div id="chats" data-live>
      <div class="scroll" tabindex="0">
        <p class="muted">The newest ${PAGE_ROWS} chats at most.</p>
        <table>
          <thead>
            <tr>
              <th scope="col">Chat</th>
              <th scope="col">Organization</th>
              <th scope="col">Status</th>
              <th scope="col">Subject</th>
              <th scope="col">Language</th>
              <th scope="col">Messages</th>
              <th scope="col">Started</th>
            </tr>
          </thead>
          <tbody>
            ${chats.map(
              ({ org_id, obj }) =>
                html`<tr>
                  <td>
                    <a href="${withMode(`/chats/${obj.id}`, v.mode)}"><code>${obj.id}</code></a>
                  </td>
                  <td>${orgName(state, org_id)}</td>
                  <td>${obj.status}</td>
                  <td>${obj.subject ?? '—'}</td>
                  <td>${obj.language}</td>
                  <td>${messageCount.get(obj.id) ?? 0}</td>
                  <td>${obj.created_at}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
      ${chats.length === 0 ? html`<p class="muted">No ${v.mode} chats yet.</p>` : ''}
    </div>`,
  );
}

export function chatPage(v: View, id: string): Html | null {
  const { state } = v;
  const stored = state.chats.get(id);
  if (!stored || stored.obj.livemode !== (v.mode === 'live')) return null;
  const chat = stored.obj;
  const messages = [...state.messages.values()].filter((m) => m.obj.chat_id === id).sort((a, b) => a.seq - b.seq);
  return layout(
    v,
    `/chats/${id}`,
    `Chat ${id}`,
    html`<p><a href="${withMode('/chats', v.mode)}">All chats</a></p>
      <div id="chat" data-live>
        <dl>
          <dt>Organization</dt>
          <dd>${orgName(state, stored.org_id)}</dd>
          <dt>Status</dt>
          <dd>${chat.status}</dd>
          <dt>Subject</dt>
          <dd>${chat.subject ?? '—'}</dd>
          <dt>Language</dt>
          <dd>${chat.language}</dd>
          <dt>Stream</dt>
          <dd><code>GET /v1/chats/${id}/stream</code> (<code>svc chats watch ${id}</code>); this page follows it live</dd>
        </dl>
        ${chat.status === 'open' ? actionButton(v, `/_dashboard/chats/${id}/close`, 'Close chat', { id: 'close-chat', danger: true, confirm: `Close ${id}?` }) : ''}
        <h2>Messages</h2>
        ${
          messages.length === 0
            ? html`<p class="muted">No messages yet.</p>`
            : html`<ol class="log">
                ${messages.map(
                  ({ obj }) =>
                    html`<li>
                      <div class="card">
                        <div class="muted">${obj.created_at} · ${obj.kind} · ${obj.language}</div>
                        ${obj.kind === 'voice' ? html`<p>🎤 voice message — transcript: ${obj.transcript ?? '(none)'}</p>` : html`<p>${obj.text}</p>`}
                        ${obj.translation ? html`<p class="muted">${obj.translation.language}: ${obj.translation.text}</p>` : ''}
                      </div>
                    </li>`,
                )}
              </ol>`
        }
      </div>`,
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
  const pretty = (event: EmulatorEvent) => JSON.stringify(JSON.parse(event.json), null, 2);
  return layout(
    v,
    '/events',
    'Events',
    html`<form method="get" action="/events" class="row card">
        <input type="hidden" name="mode" value="${v.mode}" />
        <div>
          <label for="event-type">Type (exact, or a family such as call)</label>
          <input id="event-type" name="type" value="${type}" list="event-types" autocomplete="off" />
        </div>
        <datalist id="event-types">${EVENT_TYPES.map((t) => html`<option value="${t}"></option>`)}</datalist>
        <button type="submit">Filter</button>
      </form>
      <div id="events" data-live>
        <p class="muted">Retained ${v.mode} events, newest first (the emulator keeps the last 10,000 per organization and mode); ${PAGE_ROWS} a page.</p>
        <ol class="log" aria-label="Events">
          ${shown.map(
            (event) =>
              html`<li>
                <details data-key="${event.id}">
                  <summary>
                    <time>${(JSON.parse(event.json) as { created_at: string }).created_at}</time> <strong>${event.type}</strong> <code>${event.id}</code>
                  </summary>
                  <pre>${pretty(event)}</pre>
                </details>
              </li>`,
          )}
        </ol>
        ${shown.length === 0 ? html`<p class="muted">No ${v.mode} events${type ? ` of type ${type}` : ''}.</p>` : ''}
        ${more ? html`<p><a href="${withMode('/events', v.mode, { ...(type ? { type } : {}), before: String(shown.at(-1)!.seq) })}">Older events</a></p>` : ''}
      </div>`,
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
  return layout(
    v,
    '/requests',
    'Requests',
    html`<form method="get" action="/requests" class="row card">
        <input type="hidden" name="mode" value="${v.mode}" />
        <div>
          <label for="request-status">Status</label>
          <select id="request-status" name="status">
            ${['', '2xx', '3xx', '4xx', '5xx'].map((s) => html`<option value="${s}" ${s === status ? 'selected' : ''}>${s || 'any'}</option>`)}
          </select>
        </div>
        <div><label for="request-path">Path contains</label><input id="request-path" name="path" value="${pathFilter}" autocomplete="off" /></div>
        <button type="submit">Filter</button>
      </form>
      <div id="requests" data-live>
        <p class="muted">
          The last ${v.requests.size} requests the emulator served (all modes; ${v.requests.total} since it started), newest first. Secrets in bodies are not
          shown.
        </p>
        <ol class="log" aria-label="Requests">
          ${rows.map(
            (entry) =>
              html`<li>
                <details data-key="r${entry.n}">
                  <summary>
                    <time>${time(entry.at)}</time> <strong>${entry.method}</strong> <code>${entry.path}</code>
                    <span class="status-${String(entry.status)[0]}">${entry.status}</span>
                    <span>${entry.credential ?? 'no credential'}</span><span class="muted">${entry.latency_ms} ms</span>
                    ${modeOf(entry) && modeOf(entry) !== v.mode ? html`<span class="muted">(${modeOf(entry)})</span>` : ''}
                  </summary>
                  <h3 class="muted">Request body</h3>
                  <pre>${entry.request_body ?? '(none kept)'}</pre>
                  <h3 class="muted">Response body</h3>
                  <pre>${entry.response_body ?? '(none kept)'}</pre>
                </details>
              </li>`,
          )}
        </ol>
        ${rows.length === 0 ? html`<p class="muted">No requests${status || pathFilter ? ' match' : ' yet'}.</p>` : ''}
        ${more ? html`<p><a href="${withMode('/requests', v.mode, { ...(status ? { status } : {}), ...(pathFilter ? { path: pathFilter } : {}), before: String(rows.at(-1)!.n) })}">Older requests</a></p>` : ''}
      </div>`,
  );
}

export function controlsPage(v: View): Html {
  const { state } = v;
  const orgs = [...state.orgs.values()];
  return layout(
    v,
    '/controls',
    'Controls',
    html`<section class="card" aria-labelledby="clock-title">
        <h2 id="clock-title">Clock</h2>
        <p id="clock" data-live>Now: <time>${time(state.clock.now())}</time></p>
        <form method="post" action="/_dashboard/clock" class="row">
          ${csrfField(v)}
          <div>
            <label for="advance">Advance by (seconds)</label><input id="advance" name="advance_seconds" type="number" min="0" step="1" required value="3600" />
          </div>
          <button type="submit">Advance clock</button>
        </form>
      </section>
      <section class="card" aria-labelledby="fault-title">
        <h2 id="fault-title">Inject a fault</h2>
        <form method="post" action="/_dashboard/faults" class="row">
          ${csrfField(v)}
          <div>
            <label for="fault-status">Status</label
            ><select id="fault-status" name="status">
              <option>429</option>
              <option>502</option>
            </select>
          </div>
          <div><label for="fault-path">Path prefix</label><input id="fault-path" name="path_prefix" required value="/v1/" /></div>
          <div><label for="fault-count">Count</label><input id="fault-count" name="count" type="number" min="1" step="1" required value="1" /></div>
          <button type="submit">Inject fault</button>
        </form>
        <p class="muted">The next matching requests fail with that status; the dashboard and /_emulator never do.</p>
      </section>
      <section class="card" aria-labelledby="publish-title">
        <h2 id="publish-title">Publish events</h2>
        <form method="post" action="/_dashboard/events" class="row">
          ${csrfField(v)}
          <div>
            <label for="publish-org">Organization</label
            ><select id="publish-org" name="org_id">
              ${orgs.map((org) => html`<option value="${org.id}">${org.name}</option>`)}
            </select>
          </div>
          <div><label for="publish-type">Type</label><input id="publish-type" name="type" required value="call.started" list="publish-types" /></div>
          <datalist id="publish-types">${EVENT_TYPES.map((t) => html`<option value="${t}"></option>`)}</datalist>
          <div>
            <label for="publish-count">Count</label><input id="publish-count" name="count" type="number" min="1" max="1000000" step="1" required value="1" />
          </div>
          <button type="submit">Publish ${v.mode} events</button>
        </form>
      </section>
      <section class="card" aria-labelledby="state-title">
        <h2 id="state-title">State</h2>
        <p>
          <a href="/_dashboard/export" download="svc-emulator-state.json">Export the state as a document</a> (what <code>svc emulator --import</code> reads).
        </p>
        <form method="post" action="/_dashboard/import" enctype="multipart/form-data" class="row" data-confirm="Replace the whole world with this document?">
          ${csrfField(v)}
          <div>
            <label for="import-file">Import a document</label><input id="import-file" name="document" type="file" accept="application/json,.json" required />
          </div>
          <button type="submit">Import</button>
        </form>
        <form method="post" action="/_dashboard/reset" data-confirm="Reset the emulator? Everything is emptied and the seed planted again (new keys).">
          ${csrfField(v)}
          <p><button type="submit" class="danger">Reset the emulator</button></p>
        </form>
      </section>`,
  );
}

export function notFoundPage(v: View, path: string, what: string): Html {
  return layout(
    v,
    path,
    'Not found',
    html`<p>${what}</p>
      <p><a href="${withMode('/', v.mode)}">Back to the overview</a></p>`,
  );
}
