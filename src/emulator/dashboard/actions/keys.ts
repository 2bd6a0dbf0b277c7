// API keys page actions: Create key (the key shown once) and Revoke.
import { SCOPES } from '../../../contract/constants.js';
import type { Scope } from '../../../contract/constants.js';
import { notFound } from '../../errors.js';
import { revokeKey } from '../../routes/control.js';
import { createKey } from '../../state.js';
import { shownOnce, withMode } from '../layout.js';
import { keysPage } from '../pages/keys.js';
import { InvalidField, modeOf, text } from './action.js';
import type { Action } from './action.js';

export const createKeyAction: Action = {
  path: '/keys',
  back: '/keys',
  handle: ({ state, form }) => {
    const orgId = text(form, 'org_id');
    if (!state.orgs.has(orgId)) throw new InvalidField('org_id', `Organization: there is no organization ${orgId}`);
    const keyMode = modeOf(form.key_mode);
    const scopes = [form.scopes ?? []].flat().filter((s): s is Scope => typeof s === 'string' && (SCOPES as readonly string[]).includes(s));
    if (scopes.length === 0) throw new InvalidField('scopes', 'Scopes: choose at least one');
    const name = text(form, 'name').slice(0, 200);
    const made = createKey(state, orgId, keyMode, scopes, name || undefined);
    return {
      page: (v) => {
        const shown = shownOnce(
          'Your new API key',
          `This is the only time ${name || made.id} is shown: copy it now. Use it as SVC_API_KEY.`,
          [{ label: 'API key', id: 'new-key', value: made.key, once: true }],
          'open-create-key',
        );
        return keysPage({ ...v, mode: keyMode, here: withMode('/keys', keyMode), notice: `Created ${made.id}.`, shown });
      },
    };
  },
};

/** The seed's test key is known to the emulator (it planted it): shown again on request, in test mode only. */
export const showSeedKeyAction: Action = {
  path: '/keys/seed/show',
  back: '/keys',
  handle: ({ state }) => {
    const seeded = state.seed?.keys.test;
    if (!seeded) throw new InvalidField(null, 'This emulator loaded its world from a file: its seeded keys were shown when they were made.', 409);
    return {
      page: (v) =>
        keysPage({
          ...v,
          mode: 'test',
          here: withMode('/keys', 'test'),
          shown: shownOnce(
            'The seeded test key',
            'The test key the emulator planted at its start (or last reset). Use it as SVC_API_KEY.',
            [{ label: 'API key', id: 'seed-key', value: seeded }],
            'show-seed-key',
          ),
        }),
    };
  },
};

export const revokeKeyAction: Action = {
  path: '/keys/:id/revoke',
  back: '/keys',
  handle: ({ state, param }) => {
    const key = state.keys.get(param('id'));
    if (!key) throw notFound('no such key');
    revokeKey(state, key.org_id, key.id);
    return { notice: `Revoked ${key.name ?? key.id}: requests with it now get 401.` };
  },
};
