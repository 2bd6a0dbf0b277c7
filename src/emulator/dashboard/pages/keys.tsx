// API keys: the mode's keys (last four only), Create key (a dialog) and Revoke.
import { SCOPES } from '../../../contract/constants.js';
import { rfc3339 } from '../../ids.js';
import { ActionButton, CsrfFields, Layout, When, withMode, ObjectPage } from '../layout.js';
import type { Html, View } from '../layout.js';
import { FieldError, FormError, invalidAttrs, kept, keptChecked, reopened } from '../forms.js';
import { ObjectRequests } from './requests.js';
import { ACTION_COLUMN, DialogActions, Table, keysIn, orgName } from '../parts.js';

/** The Create form's action; its dialog shows a failure of the whole form (FormError). */
export const CREATE = '/_dashboard/keys';

export function keysPage(v: View): Html {
  const { state } = v;
  const keys = keysIn(state, v.mode).sort((a, b) => (b.created_at ?? 0) - (a.created_at ?? 0));
  const orgs = [...state.orgs.values()];
  return (
    <Layout v={v} path="/keys" title="API keys">
      <p>
        <a href="#create-key" class="button primary" role="button" id="open-create-key" data-open="create-key">
          Create key
        </a>{' '}
        {v.mode === 'test' && v.state.seed ? (
          <ActionButton v={v} action="/_dashboard/keys/seed/show" label="Show the seeded test key" id="show-seed-key" />
        ) : null}
      </p>
      <Table
        live="keys"
        caption={`${keys.length} ${v.mode} key(s). A key is shown once, when it is made; only its last four characters are kept here.`}
        columns={['Name or id', 'Organization', 'Mode', 'Scopes', 'Last four', 'Created', 'Last used', 'Revoked', ACTION_COLUMN]}
      >
        {keys.map((key) => (
          <tr data-key-id={key.id} data-key={key.id} id={`key-${key.id}`}>
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
              <br />
              <a href={withMode(`/keys/${key.id}`, v.mode)} aria-label={`Details and requests of ${key.name ?? key.id}`}>
                Details and requests
              </a>
            </td>
            <td>{orgName(state, key.org_id)}</td>
            <td>{key.mode}</td>
            <td>{key.scopes.length === SCOPES.length ? 'all' : key.scopes.join(', ')}</td>
            <td>
              <code>{key.last4 ?? '—'}</code>
            </td>
            <td>
              <When at={key.created_at} />
            </td>
            <td data-last-used={key.last_used_at === undefined ? 'never' : rfc3339(key.last_used_at)}>
              {key.last_used_at === undefined ? 'never' : <When at={key.last_used_at} />}
            </td>
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
      <dialog id="create-key" aria-labelledby="create-key-title" {...reopened(v, CREATE)}>
        <h2 id="create-key-title">Create an API key</h2>
        <form method="post" action={CREATE}>
          <CsrfFields v={v} />
          <FormError v={v} action={CREATE} />
          <label for="key-org">Organization</label>
          <select id="key-org" name="org_id" {...invalidAttrs(v, CREATE, 'org_id')}>
            {orgs.map((org) => (
              <option value={org.id} selected={kept(v, CREATE, 'org_id', '') === org.id}>
                {org.name} ({org.id})
              </option>
            ))}
          </select>
          <FieldError v={v} action={CREATE} field="org_id" />
          <label for="key-name">Name (optional)</label>
          <input id="key-name" name="name" maxlength={200} autocomplete="off" value={kept(v, CREATE, 'name', '')} />
          <label for="key-mode">Mode</label>
          <select id="key-mode" name="key_mode">
            <option value="test" selected={kept(v, CREATE, 'key_mode', v.mode) === 'test'}>
              test
            </option>
            <option value="live" selected={kept(v, CREATE, 'key_mode', v.mode) === 'live'}>
              live
            </option>
          </select>
          <fieldset {...invalidAttrs(v, CREATE, 'scopes')}>
            <legend>Scopes</legend>
            {SCOPES.map((scope) => (
              <label>
                <input type="checkbox" name="scopes" value={scope} checked={keptChecked(v, CREATE, 'scopes', scope, true)} /> {scope}
              </label>
            ))}
            <FieldError v={v} action={CREATE} field="scopes" />
          </fieldset>
          <DialogActions submit="Create" />
        </form>
      </dialog>
    </Layout>
  );
}

/** A key's own page: what is kept of it and the requests it authenticated. */
export function keyPage(v: View, id: string): Html | null {
  const key = v.state.keys.get(id);
  if (!key || key.mode !== v.mode) return null;
  return (
    <ObjectPage v={v} list="keys" id={id} title={`Key ${key.name ?? id}`} back="All keys" live="key">
      <dl>
        <dt>Id</dt>
        <dd>
          <code>{key.id}</code>
        </dd>
        <dt>Organization</dt>
        <dd>{orgName(v.state, key.org_id)}</dd>
        <dt>Scopes</dt>
        <dd>{key.scopes.join(', ')}</dd>
        <dt>Last four</dt>
        <dd>
          <code>{key.last4 ?? '—'}</code>
        </dd>
        <dt>Created</dt>
        <dd>
          <When at={key.created_at} />
        </dd>
        <dt>Last used</dt>
        <dd>{key.last_used_at === undefined ? 'never' : <When at={key.last_used_at} />}</dd>
        <dt>Revoked</dt>
        <dd>{key.revoked ? 'yes' : 'no'}</dd>
      </dl>
      <ObjectRequests v={v} id={id} by="credential" />
    </ObjectPage>
  );
}
