import type { Hono } from 'hono';
import { requireScope } from '../auth.js';
import { PRICES, balanceObject } from '../billing.js';
import { notFound } from '../errors.js';
import { credentialOf } from '../http.js';
import type { EmulatorEnv } from '../http.js';
import type { State } from '../state.js';
import { route } from './wire.js';
import { noQuery } from '../validate.js';

export function accountRoutes(app: Hono<EmulatorEnv>, state: State): void {
  route(app, 'account.get', (c, credential) => {
    noQuery(c);
    const org = state.orgs.get(credential.org_id);
    if (!org) throw notFound('no such organization');
    return c.json({
      object: 'account',
      id: org.id,
      name: org.name,
      livemode: credential.mode === 'live',
      credential: {
        type: credential.type,
        scopes: credential.scopes,
        ...(credential.key_id ? { key_id: credential.key_id } : {}),
        ...(credential.client_id ? { client_id: credential.client_id } : {}),
      },
    });
  });

  route(app, 'balance.get', (c, credential) => {
    noQuery(c);
    return c.json(balanceObject(state, credential.org_id, credential.mode === 'live'));
  });

  route(app, 'prices.list', (c, credential) => {
    requireScope(credentialOf(c), 'account:read');
    noQuery(c);
    return c.json({ object: 'list', data: PRICES, has_more: false, next_cursor: null });
  });
}
