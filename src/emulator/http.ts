// Shared pieces of the route files: the Hono environment and object ownership checks.
import type { Context } from 'hono';
import type { Credential } from './auth.js';
import { notFound } from './errors.js';
import { newId, rfc3339 } from './ids.js';
import { nextSeq } from './state.js';
import type { ObjectBase, State, Stored } from './state.js';

/** `incoming`/`outgoing` are set by the Node adapter (@hono/node-server); absent under app.request(). */
export type EmulatorEnv = {
  Variables: { credential: Credential };
  Bindings: { incoming?: import('node:http').IncomingMessage; outgoing?: import('node:http').ServerResponse };
};
export type EmulatorContext = Context<EmulatorEnv>;

export function credentialOf(c: EmulatorContext): Credential {
  return c.get('credential');
}

/** The stored object, if it belongs to the credential's organization AND mode; 404 otherwise. */
export function owned<T extends { id: string; livemode: boolean }>(collection: Map<string, Stored<T>>, id: string, credential: Credential): Stored<T> {
  const item = collection.get(id);
  if (!item || item.org_id !== credential.org_id || item.obj.livemode !== (credential.mode === 'live')) {
    throw notFound(`no such object: ${id}`);
  }
  return item;
}

export function visibleTo(credential: Credential) {
  return (item: Stored<{ id: string; livemode: boolean }>) => item.org_id === credential.org_id && item.obj.livemode === (credential.mode === 'live');
}

/** Makes and stores a new object with the common fields (id, object, livemode, created_at). */
export function store<T extends ObjectBase>(
  state: State,
  collection: Map<string, Stored<T>>,
  credential: Credential,
  prefix: string,
  object: string,
  fields: Omit<T, keyof ObjectBase>,
): T {
  const obj = {
    id: newId(prefix),
    object,
    livemode: credential.mode === 'live',
    created_at: rfc3339(state.clock.now()),
    ...fields,
  } as T;
  collection.set(obj.id, { org_id: credential.org_id, seq: nextSeq(state), obj });
  return obj;
}
