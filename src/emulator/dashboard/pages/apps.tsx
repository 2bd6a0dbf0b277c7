// Apps: registered OAuth apps, each organization's connections, Register app, Delete app and Disconnect.
import { CLI_CLIENT_ID, LIMITS, SCOPES } from '../../../contract/constants.js';
import { connectionsOf } from '../../routes/control.js';
import type { App, State } from '../../state.js';
import { ActionButton, CsrfFields, Layout, When, withMode, ObjectPage } from '../layout.js';
import type { Html, View } from '../layout.js';
import { FieldError, FormError, invalidAttrs, kept, keptChecked, reopened } from '../forms.js';
import { ObjectEvents } from './events.js';
import { ObjectRequests } from './requests.js';
import { ACTION_COLUMN, DialogActions, Table, orgName } from '../parts.js';

/** The Register form's action; its dialog shows a failure of the whole form (FormError). */
export const REGISTER = '/_dashboard/apps';

/** What deleting svc's own app does, said before it is deleted (its confirmation, its page). */
const CLI_APP_WARNING = "This is svc's own app: svc login stops working until the emulator is reset.";

/** The organizations an app is connected to now, by name. */
const connectedOrgs = (state: State, clientId: string) => [
  ...new Set([...state.grants.values()].filter((g) => g.active && g.client_id === clientId).map((g) => orgName(state, g.org_id))),
];

/** Delete app, asking first (svc's own app says what breaks). */
/** An app's redirect URIs, one a line, as the list and the app's page show them. */
function RedirectUris({ uris }: { uris: readonly string[] }) {
  return (
    <>
      {uris.map((uri) => (
        <div>
          <code>{uri}</code>
        </div>
      ))}
    </>
  );
}

function DeleteApp({ v, app }: { v: View; app: App }) {
  return (
    <ActionButton
      v={v}
      action={`/_dashboard/apps/${app.client_id}/delete`}
      label="Delete app"
      id={`delete-${app.client_id}`}
      name={`Delete app ${app.name}`}
      danger
      confirm={`Delete ${app.name}? It is disconnected from every organization at once.${app.client_id === CLI_CLIENT_ID ? ` ${CLI_APP_WARNING}` : ''}`}
    />
  );
}

export function appsPage(v: View): Html {
  const { state } = v;
  const lastIssued = new Map<string, number>();
  for (const token of state.accessTokens.values()) {
    const issued = token.expires_at - LIMITS.accessTokenSeconds * 1000;
    if (issued > (lastIssued.get(token.grant_id) ?? -Infinity)) lastIssued.set(token.grant_id, issued);
  }
  return (
    <Layout v={v} path="/apps" title="Apps">
      <p class="muted">OAuth connections are always live mode; the apps and connections are the same in both modes.</p>
      <p>
        <a href="#register-app" class="button primary" role="button" id="open-register-app" data-open="register-app">
          Register app
        </a>
      </p>
      <div id="apps" data-live="">
        <h2>Registered apps</h2>
        <Table columns={['Name', 'Client id', 'Redirect URIs', 'Type', 'Connected organizations', ACTION_COLUMN]}>
          {[...state.apps.values()].map((app) => (
            <tr>
              <td>
                <a href={withMode(`/apps/${app.client_id}`, v.mode)} aria-label={`Details and requests of ${app.name}`}>
                  {app.name}
                </a>
              </td>
              <td>
                <code>{app.client_id}</code>
              </td>
              <td>
                <RedirectUris uris={app.redirect_uris} />
              </td>
              <td>{app.secret_hash ? 'confidential' : 'public (PKCE)'}</td>
              <td>{connectedOrgs(state, app.client_id).join(', ') || '—'}</td>
              <td>
                <DeleteApp v={v} app={app} />
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
                      <td>
                        <When at={conn.connected_at} />
                      </td>
                      <td>
                        <When at={lastIssued.get(conn.grant_id)} />
                      </td>
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
      <dialog id="register-app" aria-labelledby="register-app-title" {...reopened(v, REGISTER)}>
        <h2 id="register-app-title">Register an OAuth app</h2>
        <form method="post" action={REGISTER}>
          <CsrfFields v={v} />
          <FormError v={v} action={REGISTER} />
          <label for="app-name">Name</label>
          <input
            id="app-name"
            name="name"
            required
            maxlength={200}
            autocomplete="off"
            value={kept(v, REGISTER, 'name', '')}
            {...invalidAttrs(v, REGISTER, 'name')}
          />
          <FieldError v={v} action={REGISTER} field="name" />
          <label for="app-redirects">Redirect URIs (one a line; https, or http for localhost)</label>
          <textarea id="app-redirects" name="redirect_uris" rows={3} cols={40} required {...invalidAttrs(v, REGISTER, 'redirect_uris')}>
            {kept(v, REGISTER, 'redirect_uris', 'http://127.0.0.1/callback')}
          </textarea>
          <FieldError v={v} action={REGISTER} field="redirect_uris" />
          <fieldset>
            <legend>Client type</legend>
            <label>
              <input type="checkbox" name="public" value="1" checked={keptChecked(v, REGISTER, 'public', '1', false)} /> Public client (PKCE only, no secret)
            </label>
          </fieldset>
          <DialogActions submit="Register" />
        </form>
      </dialog>
    </Layout>
  );
}

/** An app's own page: what is registered, where it is connected, its events and the requests that touched it (its credential, its id). */
export function appPage(v: View, id: string): Html | null {
  const app = v.state.apps.get(id);
  if (!app) return null;
  return (
    <ObjectPage v={v} list="apps" id={id} title={`App ${app.name}`} back="All apps" live="app">
      {app.client_id === CLI_CLIENT_ID ? (
        <p class="warning">
          <strong>Deleting it:</strong> {CLI_APP_WARNING}
        </p>
      ) : null}
      <dl>
        <dt>Name</dt>
        <dd>{app.name}</dd>
        <dt>Client id</dt>
        <dd>
          <code>{app.client_id}</code>
        </dd>
        <dt>Type</dt>
        <dd>{app.secret_hash ? 'confidential (a client secret)' : 'public (PKCE, no secret)'}</dd>
        <dt>Redirect URIs</dt>
        <dd>
          <RedirectUris uris={app.redirect_uris} />
        </dd>
        <dt>Connected organizations</dt>
        <dd>{connectedOrgs(v.state, app.client_id).join(', ') || '—'}</dd>
      </dl>
      <DeleteApp v={v} app={app} />
      <ObjectEvents v={v} id={id} />
      <ObjectRequests v={v} id={id} />
    </ObjectPage>
  );
}
