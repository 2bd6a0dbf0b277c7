// The control plane (api-contract.md "Emulator control plane"): no credential, so that
// tests and demos can arrange what the real service's dashboard does by hand.
import type { Hono } from 'hono';
import { z } from 'zod';
import { PREFIX, SCOPES } from '../../shared/constants.js';
import { balanceObject } from '../billing.js';
import { invalidOne, notFound } from '../errors.js';
import { eventLog, eventShape, publish, publishJson } from '../events.js';
import { addFault } from '../faults.js';
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
  balance: z.number().int().min(0).optional(),
  admin_email: z.string().email().optional(),
});
const newKey = z.strictObject({ mode: z.enum(['test', 'live']), scopes: z.array(z.enum(SCOPES)).optional() });
const setBalance = z.strictObject({ available: z.number().int().min(0) });
const newApp = z.strictObject({
  name: z.string().min(1).max(200),
  redirect_uris: z.array(z.string().refine(isAllowedRedirectUri, 'https only; http only for localhost')).min(1),
  public: z.boolean().optional(),
});
/** api-contract.md "Emulator control plane": 0 ≤ n ≤ ten years per move, so the clock can never leave RFC 3339's range. */
export const MAX_ADVANCE_SECONDS = 315_360_000;
/** The last instant an RFC 3339 timestamp (four-digit year) can name. */
const LATEST_CLOCK_MS = Date.UTC(9999, 11, 31, 23, 59, 59);
const advance = z.strictObject({ advance_seconds: z.number().min(0).max(MAX_ADVANCE_SECONDS) });
const fault = z.strictObject({
  path_prefix: z.string().startsWith('/'),
  status: z.union([z.literal(429), z.literal(502)]),
  count: z.number().int().min(1),
});
const approval = z.strictObject({ email: z.string().min(1), org_id: z.string().min(1), decision: z.enum(['approve', 'deny']) });
const synthetic = z.strictObject({
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
    const existing = body.admin_email ? state.users.get(body.admin_email) : undefined;
    const admin = body.admin_email ? { email: body.admin_email, password: existing?.password ?? randomToken(9) } : undefined;
    const made = createOrg(state, body.name, body.balance ?? 0, admin);
    return c.json({ id: made.org.id, org_id: made.org.id, name: made.org.name, balance: made.org.balance, admin: made.admin }, 201);
  });

  app.post('/_emulator/orgs/:org/keys', async (c) => {
    const body = await jsonBody(c, newKey);
    const target = org(c.req.param('org'));
    return c.json(createKey(state, target.id, body.mode, body.scopes ?? [...SCOPES]), 201);
  });

  app.delete('/_emulator/orgs/:org/keys/:id', (c) => {
    const key = state.keys.get(c.req.param('id'));
    if (!key || key.org_id !== c.req.param('org')) throw notFound('no such key');
    key.revoked = true;
    endUnauthorizedStreams(state);
    return c.json({ id: key.id, revoked: true });
  });

  app.put('/_emulator/orgs/:org/balance', async (c) => {
    const body = await jsonBody(c, setBalance);
    const target = org(c.req.param('org'));
    target.balance = body.available;
    const balance = balanceObject(state, target.id, true);
    publish(state, target.id, 'live', 'balance.updated', balance);
    return c.json(balance);
  });

  app.post('/_emulator/apps', async (c) => {
    const body = await jsonBody(c, newApp);
    const clientId = PREFIX.clientId + randomToken(12).replace(/[-_]/g, 'x');
    const secret = body.public ? null : PREFIX.clientSecret + randomToken(24);
    state.apps.set(clientId, {
      client_id: clientId,
      name: body.name,
      redirect_uris: body.redirect_uris,
      secret_hash: secret ? sha256(secret) : null,
    });
    return c.json({ client_id: clientId, client_secret: secret }, 201);
  });

  app.delete('/_emulator/apps/:client_id', (c) => {
    const clientId = c.req.param('client_id');
    if (!state.apps.delete(clientId)) throw notFound('no such app');
    const connections = endGrants(state, (g) => g.client_id === clientId);
    return c.json({ client_id: clientId, deleted: true, connections_ended: connections });
  });

  app.get('/_emulator/orgs/:org/connections', (c) => {
    const target = org(c.req.param('org'));
    const byApp = new Map<string, { client_id: string; name: string; scopes: string[]; connected_at: string }>();
    for (const grant of state.grants.values()) {
      if (!grant.active || grant.org_id !== target.id) continue;
      byApp.set(grant.client_id, {
        client_id: grant.client_id,
        name: state.apps.get(grant.client_id)?.name ?? grant.client_id,
        scopes: grant.scopes,
        connected_at: rfc3339(grant.created_at),
      });
    }
    return c.json({ object: 'list', data: [...byApp.values()], has_more: false, next_cursor: null });
  });

  app.delete('/_emulator/orgs/:org/connections/:client_id', (c) => {
    const target = org(c.req.param('org'));
    const clientId = c.req.param('client_id');
    const ended = endGrants(state, (g) => g.org_id === target.id && g.client_id === clientId);
    if (ended === 0) throw notFound('that app is not connected to this organization');
    return c.json({ client_id: clientId, disconnected: true });
  });

  app.post('/_emulator/clock', async (c) => {
    const body = await jsonBody(c, advance);
    if (state.clock.now() + body.advance_seconds * 1000 > LATEST_CLOCK_MS) {
      throw invalidOne(['body', 'advance_seconds'], 'the clock would pass the year 9999; reset cannot move it back, restart the emulator', 'less_than_equal');
    }
    state.clock.advance(body.advance_seconds * 1000);
    // Moving time can expire tokens: streams opened with them end now, not at the next keepalive.
    endUnauthorizedStreams(state);
    return c.json({ now: rfc3339(state.clock.now()) });
  });

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

  app.post('/_emulator/events', async (c) => {
    const body = await jsonBody(c, synthetic);
    org(body.org_id);
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
      // are answered and streams write what queued, instead of the whole burst holding the server
      // (issue 13). Timed rather than counted, so that a busy machine gets shorter slices.
      if (n % 256 === 0 && n < body.count && performance.now() - sliceStart > PUBLISH_SLICE_MS) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
        log = eventLog(state, body.org_id, body.mode);
      }
    }
    return c.json({ published: body.count, first_id: first!.id, last_id: last!.id }, 201);
  });

  app.post('/_emulator/streams/drop', (c) => {
    const open = [...state.subscribers];
    for (const subscriber of open) subscriber.end();
    return c.json({ dropped: open.length });
  });

  // An emulator extension: the whole world as the document `svc emulator --export` writes and `--import` reads.
  app.get('/_emulator/state', (c) => c.json(exportDocument(state)));

  app.get('/_emulator/stats', (c) => c.json({ ...state.stats, open_streams: state.subscribers.size }));
}
