// Apps page actions: Register app (its secret shown once), Delete app, Disconnect.
import { deleteApp, disconnectApp, newApp, registerApp } from '../../routes/control.js';
import { shownOnce, withMode } from '../layout.js';
import type { ShownValue } from '../layout.js';
import { appsPage } from '../pages/apps.js';
import { checked, text } from './action.js';
import type { Action } from './action.js';

export const registerAppAction: Action = {
  path: '/apps',
  back: '/apps',
  handle: ({ state, form }) => {
    const body = checked(
      newApp,
      {
        name: text(form, 'name'),
        redirect_uris: text(form, 'redirect_uris').split(/\s+/).filter(Boolean),
        public: form.public === '1',
      },
      { name: () => 'Name', redirect_uris: (index) => (index === undefined ? 'Redirect URIs' : `Redirect URI ${index + 1}`) },
    );
    const made = registerApp(state, body);
    const values: ShownValue[] = [{ label: 'Client id', id: 'new-client-id', value: made.client_id }];
    if (made.client_secret) values.push({ label: 'Client secret', id: 'new-client-secret', value: made.client_secret, once: true });
    return {
      page: (v) =>
        appsPage({
          ...v,
          here: withMode('/apps', v.mode),
          notice: `Registered ${body.name}.`,
          shown: shownOnce(
            `${body.name} is registered`,
            made.client_secret
              ? 'This is the only time the client secret is shown: copy it now (SVC_CLIENT_ID and SVC_CLIENT_SECRET).'
              : 'A public client signs in with PKCE only; it has no secret.',
            values,
            'open-register-app',
          ),
        }),
    };
  },
};

export const deleteAppAction: Action = {
  path: '/apps/:id/delete',
  back: '/apps',
  handle: ({ state, param }) => {
    const name = state.apps.get(param('id'))?.name;
    const result = deleteApp(state, param('id'));
    return { notice: `Deleted ${name ?? result.client_id}; ${result.connections_ended} connection(s) ended.` };
  },
};

export const disconnectAction: Action = {
  path: '/orgs/:org/connections/:client/disconnect',
  back: '/apps',
  handle: ({ state, param }) => {
    const clientId = param('client');
    const name = state.apps.get(clientId)?.name ?? clientId;
    disconnectApp(state, param('org'), clientId);
    return { notice: `Disconnected ${name} from ${state.orgs.get(param('org'))?.name ?? 'the organization'}.` };
  },
};
