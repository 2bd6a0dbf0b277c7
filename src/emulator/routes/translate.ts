import type { Hono } from 'hono';
import { charge, costOf, ensureFunds } from '../billing.js';
import { publish } from '../events.js';
import type { EmulatorEnv } from '../http.js';
import type { State } from '../state.js';
import { route } from './wire.js';
import { characterCount, standInTranslation } from '../translate.js';
import { contractBody, noQuery } from '../validate.js';

export function translateRoutes(app: Hono<EmulatorEnv>, state: State): void {
  route(app, 'translate', async (c, credential) => {
    noQuery(c);
    const body = await contractBody(c, 'translate');
    const characters = characterCount(body.text);
    const cost = costOf('translation_character', characters);
    ensureFunds(state, credential, cost);
    const result = {
      object: 'translation',
      text: standInTranslation(body.text, body.to),
      to: body.to,
      from: body.from ?? null,
      characters,
      livemode: credential.mode === 'live',
    };
    publish(state, credential.org_id, credential.mode, 'translation.created', result);
    charge(state, credential, cost);
    return c.json(result);
  });
}
