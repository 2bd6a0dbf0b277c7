// Idempotent creates (docs/contract.md "Conventions"): a create sent with an Idempotency-Key
// is handled once per credential and key within 24 hours. Sent again, it answers the first
// answer again (`Idempotent-Replayed: true`) and creates and bills nothing; with another
// method, path or body it is 422; while the first is still being handled, 409. Answers the
// request may be sent again after (5xx, 429) are not kept, as Stripe keeps none for them.
// With --state the keys are kept in the file (a restart within the 24 hours still replays); a
// key whose request was never answered (the emulator stopped while handling it) is handled anew.
import type { Context, MiddlewareHandler, Next } from 'hono';
import { endpointFor, IDEMPOTENCY_HEADER, IDEMPOTENCY_KEY, IDEMPOTENCY_WINDOW_MS, isCreate } from '../contract/endpoints.js';
import { credentialOf, type EmulatorEnv } from './http.js';
import { conflict, invalidOne } from './errors.js';
import { sha256 } from './ids.js';
import type { IdempotentEntry, State } from './state.js';
import { readBody, VOICE_BODY_LIMIT } from './validate.js';

/** No more keys than this are remembered; the oldest go first (they would expire first). */
export const MAX_KEYS = 100_000;

export function idempotentCreates(state: State): MiddlewareHandler<EmulatorEnv> {
  /** The entries of requests this emulator is handling now; one without an answer and not here was never answered. */
  const handling = new WeakSet<IdempotentEntry>();
  return async (c, next) => {
    const key = c.req.header(IDEMPOTENCY_HEADER);
    const endpoint = key === undefined || c.req.method !== 'POST' ? undefined : endpointFor('POST', c.req.path);
    if (key === undefined || !endpoint || !isCreate(endpoint)) return next();
    if (!IDEMPOTENCY_KEY.test(key)) throw invalidOne(['header', 'Idempotency-Key'], 'an Idempotency-Key is 1 to 255 printable ASCII characters', 'value_error');
    // The body is read here to know the request by it, then handed on to the route as it came.
    const body = await readBody(c, VOICE_BODY_LIMIT);
    c.req.raw = new Request(c.req.raw.url, { method: c.req.raw.method, headers: c.req.raw.headers, ...(body.length ? { body } : {}) });
    const credential = credentialOf(c);
    const id = `${credential.org_id}|${credential.mode}|${credential.rate_key}|${key}`;
    const fingerprint = sha256(`${c.req.method} ${c.req.path}\n${c.req.header('content-type') ?? ''}\n${body.toString('base64')}`);
    const now = state.clock.now();
    forgetExpired(state, now);
    const found = state.idempotency.get(id);
    const known = found && (found.answer || handling.has(found)) ? found : undefined;
    if (known) {
      if (known.fingerprint !== fingerprint)
        throw invalidOne(['header', 'Idempotency-Key'], 'this Idempotency-Key was used with another request', 'idempotency_mismatch');
      if (!known.answer) throw conflict('a request with this Idempotency-Key is still being handled; send it again in a moment');
      const { status, body: text, contentType } = known.answer;
      return new Response(text, { status, headers: { 'content-type': contentType, 'idempotent-replayed': 'true' } });
    }
    const entry: IdempotentEntry = { fingerprint, at: now };
    handling.add(entry);
    state.idempotency.set(id, entry);
    try {
      await answered(state, id, entry, c, next);
    } finally {
      handling.delete(entry);
    }
  };
}

/** The request handled, and its answer kept with its key (not one it may be sent again after). */
async function answered(state: State, id: string, entry: IdempotentEntry, c: Context<EmulatorEnv>, next: Next): Promise<void> {
  try {
    await next();
  } catch (error) {
    state.idempotency.delete(id);
    throw error;
  }
  const { status } = c.res;
  if (status >= 500 || status === 429) {
    state.idempotency.delete(id);
    return;
  }
  entry.answer = { status, body: await c.res.clone().text(), contentType: c.res.headers.get('content-type') ?? 'application/json' };
  // Set again: the --state journal writes the entry with its answer, though another request's commit wrote it before.
  state.idempotency.set(id, entry);
}

function forgetExpired(state: State, now: number): void {
  // Map.prototype.entries: a look at the oldest must not mark every key for the --state journal.
  for (const [id, entry] of Map.prototype.entries.call(state.idempotency) as MapIterator<[string, IdempotentEntry]>) {
    if (entry.at + IDEMPOTENCY_WINDOW_MS > now && state.idempotency.size < MAX_KEYS) break;
    state.idempotency.delete(id);
  }
}
