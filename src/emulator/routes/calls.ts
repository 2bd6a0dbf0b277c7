// Calls, their participants, links and phone lines (docs/contract.md "Resources").
import type { Hono } from 'hono';
import { z } from 'zod';
import { ID_PREFIX } from '../../contract/constants.js';
import { charge, costOf, ensureFunds } from '../billing.js';
import { badRequest, conflict } from '../errors.js';
import { publish } from '../events.js';
import { owned, store, visibleTo } from '../http.js';
import type { EmulatorEnv } from '../http.js';
import { rfc3339 } from '../ids.js';
import type { State } from '../state.js';
import { endCall, meterMinutes } from '../calls.js';
import { route } from './wire.js';

export { endCall };
import { contractBody, listQuery, noBody, noQuery, page, parseQuery } from '../validate.js';

export function callRoutes(app: Hono<EmulatorEnv>, state: State): void {
  route(app, 'calls.list', (c, credential) => {
    const query = parseQuery(c, listQuery.extend({ status: z.enum(['active', 'ended']).optional() }));
    const visible = visibleTo(credential);
    return c.json(page(state.calls.values(), query, (s) => visible(s) && (!query.status || s.obj.status === query.status)));
  });

  route(app, 'calls.get', (c, credential) => {
    noQuery(c);
    return c.json(owned(state.calls, c.req.param('id'), credential).obj);
  });

  route(app, 'calls.create', async (c, credential) => {
    noQuery(c);
    const body = await contractBody(c, 'calls.create');
    const cost = costOf('call_minute');
    ensureFunds(state, credential, cost);
    const call = store(state, state.calls, credential, ID_PREFIX.call, 'call', {
      status: 'active',
      languages: body.languages,
      title: body.title ?? null,
      ended_at: null,
      ended_reason: null,
    });
    publish(state, credential.org_id, credential.mode, 'call.started', call);
    charge(state, credential, cost);
    if (credential.mode === 'live') meterMinutes(state, 'call', call.id);
    return c.json(call, 201);
  });

  route(app, 'calls.end', async (c, credential) => {
    noQuery(c);
    await noBody(c);
    return c.json(endCall(state, owned(state.calls, c.req.param('id'), credential)));
  });

  route(app, 'calls.dial', async (c, credential) => {
    noQuery(c);
    const body = await contractBody(c, 'calls.dial');
    const call = owned(state.calls, c.req.param('id'), credential).obj;
    if (credential.mode === 'test') throw badRequest('phones cannot be dialled in test mode');
    if (call.status === 'ended') throw conflict('the call has ended');
    if (body.line_id !== undefined) {
      const line = owned(state.lines, body.line_id, credential).obj;
      if (line.status !== 'active') throw conflict('the phone line has been released');
    }
    const cost = costOf('dial_minute');
    ensureFunds(state, credential, cost);
    const participant = store(state, state.participants, credential, ID_PREFIX.participant, 'participant', {
      call_id: call.id,
      phone: body.to,
      language: body.language ?? call.languages[1]!,
      line_id: body.line_id ?? null,
      status: 'ringing',
    });
    publish(state, credential.org_id, credential.mode, 'call.participant.dialed', participant);
    charge(state, credential, cost);
    meterMinutes(state, 'phone', participant.id);
    return c.json(participant, 201);
  });
  linkRoutes(app, state);
  lineRoutes(app, state);
}

/** Links to a call (a page a person opens, /join/{id}). */
function linkRoutes(app: Hono<EmulatorEnv>, state: State): void {
  route(app, 'links.list', (c, credential) => {
    return c.json(page(state.links.values(), parseQuery(c, listQuery), visibleTo(credential)));
  });

  route(app, 'links.create', async (c, credential) => {
    noQuery(c);
    const body = await contractBody(c, 'links.create');
    if (body.call_id !== undefined) {
      const call = owned(state.calls, body.call_id, credential).obj;
      if (call.status === 'ended') throw conflict('the call has ended');
    }
    const expiresIn = body.expires_in ?? 86_400;
    const link = store(state, state.links, credential, ID_PREFIX.link, 'link', {
      url: '',
      call_id: body.call_id ?? null,
      language: body.language ?? null,
      expires_at: rfc3339(state.clock.now() + expiresIn * 1000),
    });
    link.url = `${new URL(c.req.url).origin}/join/${link.id}`;
    publish(state, credential.org_id, credential.mode, 'link.created', link);
    return c.json(link, 201);
  });
}

/** Phone lines: added (billed monthly) and released. */
function lineRoutes(app: Hono<EmulatorEnv>, state: State): void {
  route(app, 'lines.list', (c, credential) => {
    return c.json(page(state.lines.values(), parseQuery(c, listQuery), visibleTo(credential)));
  });

  route(app, 'lines.create', async (c, credential) => {
    noQuery(c);
    const body = await contractBody(c, 'lines.create');
    const cost = costOf('line_month');
    ensureFunds(state, credential, cost);
    const line = store(state, state.lines, credential, ID_PREFIX.line, 'line', {
      number: fakeNumber(body.country, body.area_code),
      country: body.country,
      status: 'active',
    });
    publish(state, credential.org_id, credential.mode, 'line.created', line);
    charge(state, credential, cost);
    return c.json(line, 201);
  });

  route(app, 'lines.release', async (c, credential) => {
    noQuery(c);
    await noBody(c);
    const line = owned(state.lines, c.req.param('id'), credential).obj;
    if (line.status === 'released') throw conflict('the phone line has already been released');
    line.status = 'released';
    publish(state, credential.org_id, credential.mode, 'line.released', line);
    return c.json(line);
  });
}

/**
 * A number from a range kept for fiction, so nothing real is ever shown as dialable: for GB,
 * Ofcom's drama range (020 7946 0000 to 0999); elsewhere North America's 555-01xx.
 */
function fakeNumber(country: string, areaCode = '415'): string {
  if (country.toUpperCase() === 'GB') return `+4420794600${String(Math.floor(Math.random() * 100)).padStart(2, '0')}`;
  const tail = String(Math.floor(Math.random() * 100)).padStart(2, '0');
  return `+1${areaCode}55501${tail}`.slice(0, 16);
}
