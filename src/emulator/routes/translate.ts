import type { Hono } from 'hono';
import { z } from 'zod';
import { requireScope } from '../auth.js';
import { charge, costOf, ensureFunds } from '../billing.js';
import { publish } from '../events.js';
import { credentialOf } from '../http.js';
import type { EmulatorEnv } from '../http.js';
import type { State } from '../state.js';
import { characterCount, standInTranslation } from '../translate.js';
import { jsonBody, languageTag, noQuery } from '../validate.js';

const translation = z.strictObject({
  text: z.string().min(1).refine((text) => characterCount(text) <= 5000, 'at most 5,000 characters'),
  to: languageTag,
  from: languageTag.optional(),
});

export function translateRoutes(app: Hono<EmulatorEnv>, state: State): void {
  app.post('/v1/translate', async (c) => {
    const credential = credentialOf(c);
    requireScope(credential, 'translate');
    noQuery(c);
    const body = await jsonBody(c, translation);
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
