// The control plane (docs/contract.md "Emulator control plane"): no credential, so that
// tests and demos can arrange what the real service's dashboard does by hand.
import type { Hono } from 'hono';
import { z } from 'zod';
import { PREFIX, SCOPES } from '../../contract/constants.js';
import { balanceObject, centsAmount } from '../billing.js';
import { centsOfSubcents, subcentsOf } from '../../contract/money.js';
import { invalidOne, notFound } from '../errors.js';
import { eventLog, eventShape, publish, publishJson } from '../events.js';
import { addFault, MAX_DELAY_MS } from '../faults.js';
import { exportDocument } from '../persistence/document.js';
import type { EmulatorEnv } from '../http.js';
import { randomToken, rfc3339, sha256 } from '../ids.js';
import { isAllowedRedirectUri } from '../redirects.js';
import { createKey, createOrg, endGrants, endUnauthorizedStreams, reset } from '../state.js';
import type { EmulatorEvent, State } from '../state.js';
import { jsonBody } from '../validate.js';

// `admin_email` (an emulator extension) makes an existing user admin of the new org too,
// so that the authorize page's organization choice can be exercised.
const newOrg = z.strictObject({
  name: z.string().min(1).max(200),
  balance: centsAmount.optional(),
  admin_email: z.string().email().optional(),
});
const newKey = z.strictObject({ mode: z.enum(['test', 'live']), scopes: z.array(z.enum(SCOPES)).optional() });
const setBalance = z.strictObject({ available: centsAmount });
export const newApp = z.strictObject({
  name: z.string().min(1).max(200),
  redirect_uris: z.array(z.string().refine(isAllowedRedirectUri, 'https only; http only for localhost')).min(1),
  public: z.boolean().optional(),
});
/** docs/contract.md "Emulator control plane": 0 ≤ n ≤ ten years per move, so the clock can never leave RFC 3339's range. */
export const MAX_ADVANCE_SECONDS = 315_360_000;
/** The last instant an RFC 3339 timestamp (four-digit year) can name. */
const LATEST_CLOCK_MS = Date.UTC(9999, 11, 31, 23, 59, 59);
const advance = z.strictObject({ advance_seconds: z.number().min(0).max(MAX_ADVANCE_SECONDS) });
/** A fault that fails requests (the dashboard's form makes these). */
export const statusFault = z.strictObject({
  path_prefix: z.string().startsWith('/'),
  status: z.union([z.literal(429), z.literal(502)]),
  count: z.number().int().min(1),
});
export const fault = z.union([
  statusFault,
  z.strictObject({
    path_prefix: z.string().startsWith('/'),
    delay_ms: z.number().int().min(1).max(MAX_DELAY_MS),
    method: z.enum(['GET', 'POST', 'PUT', 'DELETE', 'PATCH']).optional(),
    count: z.number().int().min(1),
  }),
]);
const approval = z.strictObject({ email: z.string().min(1), org_id: z.string().min(1), decision: z.enum(['approve', 'deny']) });
export const synthetic = z.strictObject({
  org_id: z.string().min(1),
  mode: z.enum(['test', 'live']),
  type: z.string().regex(/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/, 'an event type such as call.started'),
  count: z.number().int().min(1).max(1_000_000),
});

/** How long POST /_emulator/events publishes before it yields to the event loop. */
const PUBLISH_SLICE_MS = 4;

export function controlRoutes(app: Hono<EmulatorEnv>, state: State): void {
  const org = (id: string) => {
    const found = state.orgs.get(id);
    if (!found) throw notFound(`no such organization: ${id}`);
    return found;
  };

  app.post('/_emulator/reset', (c) => c.json(reset(state)));

  app.post('/_emulator/orgs', async (c) => {
    const body = await jsonBody(c, newOrg);
    const admin = body.admin_email ? { email: body.admin_email, password: randomToken(9) } : undefined;
    const made = createOrg(state, body.name, body.balance ?? 0, admin);
    return c.json({ id: made.org.id, org_id: made.org.id, name: made.org.name, balance: centsOfSubcents(made.org.balance_subcents), admin: made.admin }, 201);
  });

  app.post('/_emulator/orgs/:org/keys', async (c) => {
    const body = await jsonBody(c, newKey);
    const target = org(c.req.param('org'));
    return c.json(createKey(state, target.id, body.mode, body.scopes ?? [...SCOPES]), 201);
  });

  app.delete('/_emulator/orgs/:org/keys/:id', (c) => c.json(revokeKey(state, c.req.param('org'), c.req.param('id'))));

  app.put('/_emulator/orgs/:org/balance', async (c) => {
    const body = await jsonBody(c, setBalance);
    return c.json(setOrgBalance(state, c.req.param('org'), body.available));
  });

  app.post('/_emulator/apps', async (c) => c.json(registerApp(state, await jsonBody(c, newApp)), 201));

  app.delete('/_emulator/apps/:client_id', (c) => c.json(deleteApp(state, c.req.param('client_id'))));

  app.get('/_emulator/orgs/:org/connections', (c) => {
    const data = connectionsOf(state, org(c.req.param('org')).id).map(({ client_id, name, scopes, connected_at }) => ({
      client_id,
      name,
      scopes,
      connected_at,
    }));
    return c.json({ object: 'list', data, has_more: false, next_cursor: null });
  });

  app.delete('/_emulator/orgs/:org/connections/:client_id', (c) => c.json(disconnectApp(state, c.req.param('org'), c.req.param('client_id'))));

  app.post('/_emulator/clock', async (c) => c.json(advanceClock(state, (await jsonBody(c, advance)).advance_seconds)));

  app.post('/_emulator/faults', async (c) => {
    const body = await jsonBody(c, fault);
    addFault(state, body);
    return c.json({ ...body }, 201);
  });

  app.post('/_emulator/approvals', async (c) => {
    const body = await jsonBody(c, approval);
    const user = state.users.get(body.email);
    if (!user || !user.orgs.has(body.org_id)) throw notFound(`${body.email} is not an admin of ${body.org_id}`);
    state.approvals.push(body);
    return c.json(body, 201);
  });

  app.post('/_emulator/events', async (c) => c.json(await publishSynthetic(state, await jsonBody(c, synthetic)), 201));

  app.post('/_emulator/streams/drop', (c) => {
    const open = [...state.subscribers];
    for (const subscriber of open) subscriber.end();
    return c.json({ dropped: open.length });
  });

  // An emulator extension: the whole world as the document `svc emulator --export` writes and `--import` reads.
  app.get('/_emulator/state', (c) => c.json(exportDocument(state)));

  app.get('/_emulator/stats', (c) => c.json({ ...state.stats, open_streams: state.subscribers.size }));
}

// The control plane's operations, shared with the dashboard (dashboard/): each changes the state
// as the real service's dashboard would, and answers what the control plane returns.

function orgOf(state: State, id: string) {
  const found = state.orgs.get(id);
  if (!found) throw notFound(`no such organization: ${id}`);
  return found;
}

/** Revokes a key at once: requests with it get 401 and its open streams end. */
export function revokeKey(state: State, orgId: string, keyId: string): { id: string; revoked: true } {
  const key = state.keys.get(keyId);
  if (!key || key.org_id !== orgId) throw notFound('no such key');
  key.revoked = true;
  endUnauthorizedStreams(state);
  return { id: key.id, revoked: true };
}

export function setOrgBalance(state: State, orgId: string, available: number) {
  const target = orgOf(state, orgId);
  target.balance_subcents = subcentsOf(available);
  const balance = balanceObject(state, target.id, true);
  publish(state, target.id, 'live', 'balance.updated', balance);
  return balance;
}

/** A new OAuth app; its client secret (null for a public client) is in the answer only. */
export function registerApp(state: State, body: z.output<typeof newApp>): { client_id: string; client_secret: string | null } {
  const clientId = PREFIX.clientId + randomToken(12).replace(/[-_]/g, 'x');
  const secret = body.public ? null : PREFIX.clientSecret + randomToken(24);
  state.apps.set(clientId, {
    client_id: clientId,
    name: body.name,
    redirect_uris: body.redirect_uris,
    secret_hash: secret ? sha256(secret) : null,
  });
  return { client_id: clientId, client_secret: secret };
}

/** Deletes an app and so disconnects it from every organization. */
export function deleteApp(state: State, clientId: string) {
  if (!state.apps.delete(clientId)) throw notFound('no such app');
  const connections = endGrants(state, (g) => g.client_id === clientId);
  return { client_id: clientId, deleted: true, connections_ended: connections };
}

/** The apps connected to an organization: one row per app (its latest grant). */
export function connectionsOf(state: State, orgId: string) {
  const byApp = new Map<string, { client_id: string; name: string; scopes: string[]; connected_at: string; grant_id: string }>();
  for (const grant of state.grants.values()) {
    if (!grant.active || grant.org_id !== orgId) continue;
    byApp.set(grant.client_id, {
      client_id: grant.client_id,
      name: state.apps.get(grant.client_id)?.name ?? grant.client_id,
      scopes: grant.scopes,
      connected_at: rfc3339(grant.created_at),
      grant_id: grant.id,
    });
  }
  return [...byApp.values()];
}

export function disconnectApp(state: State, orgId: string, clientId: string): { client_id: string; disconnected: true } {
  const target = orgOf(state, orgId);
  const ended = endGrants(state, (g) => g.org_id === target.id && g.client_id === clientId);
  if (ended === 0) throw notFound('that app is not connected to this organization');
  return { client_id: clientId, disconnected: true };
}

export function advanceClock(state: State, seconds: number): { now: string } {
  if (state.clock.now() + seconds * 1000 > LATEST_CLOCK_MS) {
    throw invalidOne(['body', 'advance_seconds'], 'the clock would pass the year 9999; reset cannot move it back, restart the emulator', 'less_than_equal');
  }
  state.clock.advance(seconds * 1000);
  // Moving time can expire tokens: streams opened with them end now, not at the next keepalive.
  endUnauthorizedStreams(state);
  return { now: rfc3339(state.clock.now()) };
}

/** `count` synthetic events of one type, published in slices that let other requests through. */
export async function publishSynthetic(state: State, body: z.output<typeof synthetic>): Promise<{ published: number; first_id: string; last_id: string }> {
  orgOf(state, body.org_id);
  let first: EmulatorEvent | undefined;
  let last: EmulatorEvent | undefined;
  let sliceStart = performance.now();
  // Each event's data is {"object":"synthetic","n":n,"of":count}: serialized here around n, and the
  // log found once per slice (a reset between slices empties the logs), not once per event.
  const shape = eventShape(body.type);
  const of = `,"of":${body.count}}`;
  let log = eventLog(state, body.org_id, body.mode);
  for (let n = 1; n <= body.count; n++) {
    const event = publishJson(state, log, shape, `{"object":"synthetic","n":${n}${of}`);
    first ??= event;
    last = event;
    // Publish in slices of a few ms and let the event loop breathe between them: other requests
    // are answered and streams write what queued, instead of the whole burst holding the server.
    // Timed rather than counted, so that a busy machine gets shorter slices.
    if (n % 256 === 0 && n < body.count && performance.now() - sliceStart > PUBLISH_SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
      log = eventLog(state, body.org_id, body.mode);
    }
  }
  return { published: body.count, first_id: first!.id, last_id: last!.id };
}
