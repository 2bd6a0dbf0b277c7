// The emulator's dashboard (issue 27): the real service's admin pages in miniature (API keys,
// connected apps, the app owner's apps) and a developer console (calls, chats, events,
// requests, clock, faults, export/import), served by the emulator's own app at its root URL.
//
// Guards, as the control plane's: the Host guard (server.ts) answers loopback names only;
// every action is a same-origin POST (sameSiteGuard) carrying this session's CSRF token, an
// HMAC of the session cookie, so nothing is stored per session. Each action calls the same
// operation the control plane does (routes/control.ts, state.ts).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getCookie, setCookie } from 'hono/cookie';
import { streamSSE } from 'hono/streaming';
import type { z } from 'zod';
import { money } from '../../contract/money.js';
import { SCOPES } from '../../shared/constants.js';
import type { Mode, Scope } from '../../shared/constants.js';
import { HttpError, notFound } from '../errors.js';
import { sameSiteGuard } from '../guards.js';
import type { EmulatorEnv } from '../http.js';
import { randomToken } from '../ids.js';
import { exportDocument, importDocument, InvalidDocumentError } from '../persistence/document.js';
import { endCall } from '../routes/calls.js';
import { closeChat } from '../routes/chats.js';
import { addFault } from '../faults.js';
import {
  advanceClock,
  deleteApp,
  disconnectApp,
  fault as faultSchema,
  newApp,
  publishSynthetic,
  registerApp,
  revokeKey,
  setOrgBalance,
  synthetic,
} from '../routes/control.js';
import { createKey, createState, empty, reset } from '../state.js';
import type { State } from '../state.js';
import { SCRIPT, STYLESHEET } from './assets.js';
import type { RequestLog } from './requests.js';
import {
  PAGES,
  appsPage,
  callPage,
  callsPage,
  chatPage,
  chatsPage,
  controlsPage,
  eventsPage,
  keysPage,
  notFoundPage,
  overviewPage,
  requestsPage,
  shownOnce,
  withMode,
} from './views.js';
import type { View } from './views.js';

export const DASHBOARD_PREFIX = '/_dashboard';
const PAGE_PATHS: Set<string> = new Set(PAGES.map((p) => p.path));

/** Whether a path is the dashboard's own (not logged on Requests, never failed by an injected fault). */
export function isDashboardPath(path: string): boolean {
  if (PAGE_PATHS.has(path) || path.startsWith(`${DASHBOARD_PREFIX}/`)) return true;
  return /^\/(calls|chats)\/[^/]+$/.test(path);
}

/** Same-origin pages keep talking to the emulator; frames, other sites' scripts and inline code are refused. */
const PAGE_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy':
    "default-src 'none'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};
/** How long the stream gathers changes into one message; the pages refresh at most this often. */
const COALESCE_MS = 150;
const KEEPALIVE_MS = 15_000;
const FORM_LIMIT = 64 * 1024;
const IMPORT_LIMIT = 64 * 1024 * 1024;

type Ctx = Context<EmulatorEnv>;
type Form = Record<string, string | File | (string | File)[]>;

/** An action's outcome: back to a page with a notice, or a page shown in answer (a secret shown once). */
type Outcome = { notice: string; back?: string } | { page: (v: View) => ReturnType<typeof keysPage> };

export function dashboardRoutes(app: Hono<EmulatorEnv>, state: State, requests: RequestLog): void {
  const secret = randomBytes(32);
  const cookieName = () => `svc_dashboard_${state.address?.port ?? 0}`;
  const tokenFor = (session: string) => createHmac('sha256', secret).update(session).digest('base64url');

  /** This browser's session (a cookie made on its first page) and its CSRF token. */
  const sessionToken = (c: Ctx): string => {
    let session = getCookie(c, cookieName());
    if (!session || !/^[\w-]{20,64}$/.test(session)) {
      session = randomToken(24);
      setCookie(c, cookieName(), session, { httpOnly: true, sameSite: 'Strict', path: '/', secure: state.address?.url.startsWith('https:') ?? false });
    }
    return tokenFor(session);
  };

  const modeOf = (value: unknown): Mode => (value === 'live' ? 'live' : 'test');

  const view = (c: Ctx, mode: Mode, extra: Partial<View> = {}): View => {
    const url = new URL(c.req.url);
    url.searchParams.delete('notice');
    url.searchParams.delete('error');
    url.searchParams.set('mode', mode);
    return {
      state,
      requests,
      mode,
      csrf: sessionToken(c),
      here: `${url.pathname}?${url.searchParams.toString()}`,
      query: (name) => c.req.query(name),
      notice: c.req.query('notice'),
      error: c.req.query('error'),
      ...extra,
    };
  };

  const page = (c: Ctx, body: ReturnType<typeof keysPage>, status: 200 | 404 = 200) => c.html(body, status, PAGE_HEADERS);

  app.get(`${DASHBOARD_PREFIX}/app.css`, (c) => c.body(STYLESHEET, 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'no-cache' }));
  app.get(`${DASHBOARD_PREFIX}/app.js`, (c) =>
    c.body(SCRIPT, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' }),
  );

  const pages: [string, (v: View) => ReturnType<typeof keysPage>][] = [
    ['/', overviewPage],
    ['/keys', keysPage],
    ['/apps', appsPage],
    ['/calls', callsPage],
    ['/chats', chatsPage],
    ['/events', eventsPage],
    ['/requests', requestsPage],
    ['/controls', controlsPage],
  ];
  for (const [path, render] of pages) app.get(path, (c) => page(c, render(view(c, modeOf(c.req.query('mode'))))));
  for (const [kind, render] of [
    ['calls', callPage],
    ['chats', chatPage],
  ] as const) {
    app.get(`/${kind}/:id`, (c) => {
      const v = view(c, modeOf(c.req.query('mode')));
      const id = c.req.param('id');
      return page(c, render(v, id) ?? notFoundPage(v, `/${kind}`, `There is no ${v.mode} ${kind.slice(0, -1)} ${id}.`), render(v, id) ? 200 : 404);
    });
  }

  // Live: one small "change" message after requests (gathered), never the events themselves, so
  // an open dashboard holds at most one message however many requests and events go by.
  app.get(`${DASHBOARD_PREFIX}/stream`, (c) =>
    streamSSE(c, async (stream) => {
      let changed = false;
      let closed = false;
      let wake: (() => void) | null = null;
      const stop = requests.listen(() => {
        changed = true;
        wake?.();
      });
      stream.onAbort(() => {
        closed = true;
        wake?.();
      });
      try {
        await stream.writeSSE({ event: 'ready', data: String(requests.total) });
        while (!closed) {
          if (!changed) {
            let timer: NodeJS.Timeout | undefined;
            await new Promise<void>((resolve) => {
              wake = resolve;
              timer = setTimeout(resolve, KEEPALIVE_MS);
            });
            clearTimeout(timer);
            wake = null;
          }
          if (closed) break;
          if (!changed) {
            await stream.write(': keepalive\n\n');
            continue;
          }
          await stream.sleep(COALESCE_MS);
          changed = false;
          await stream.writeSSE({ event: 'change', data: String(requests.total) });
        }
      } finally {
        stop();
      }
    }),
  );

  app.get(`${DASHBOARD_PREFIX}/export`, (c) =>
    c.body(JSON.stringify(exportDocument(state), null, 2), 200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Disposition': 'attachment; filename="svc-emulator-state.json"',
      'Cache-Control': 'no-store',
    }),
  );

  // Actions: POST only, same origin only, with this session's token.
  app.use(`${DASHBOARD_PREFIX}/*`, async (c, next) => {
    if (c.req.method !== 'POST') return next();
    return sameSiteGuard(() => state.address)(c, next);
  });

  const action = (path: string, back: string, handle: (form: Form, mode: Mode, c: Ctx) => Outcome | Promise<Outcome>, limit = FORM_LIMIT) => {
    app.post(
      `${DASHBOARD_PREFIX}${path}`,
      bodyLimit({ maxSize: limit, onError: () => Promise.reject(new HttpError(413, `the form is larger than ${limit} bytes`)) }),
      async (c) => {
        const type = c.req.header('content-type') ?? '';
        if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type)) {
          throw new HttpError(415, 'dashboard actions are form posts');
        }
        const form = (await c.req.parseBody({ all: true })) as Form;
        const session = getCookie(c, cookieName());
        const given = typeof form.csrf === 'string' ? Buffer.from(form.csrf) : Buffer.alloc(0);
        const expected = session ? Buffer.from(tokenFor(session)) : null;
        if (!expected || given.length !== expected.length || !timingSafeEqual(given, expected)) {
          throw new HttpError(403, 'this form is no longer valid (the CSRF check failed): reload the dashboard and try again');
        }
        const mode = modeOf(form.mode);
        let outcome: Outcome;
        try {
          outcome = await handle(form, mode, c);
        } catch (error) {
          const message = error instanceof HttpError ? describe(error) : error instanceof InvalidDocumentError ? error.message : null;
          if (message === null) throw error;
          return c.redirect(withMode(back, mode, { error: message }), 303);
        }
        // Other open dashboards refresh too (a dashboard action is not on the Requests page).
        requests.touch();
        if ('page' in outcome) return page(c, outcome.page(view(c, mode)));
        return c.redirect(withMode(outcome.back ?? back, mode, { notice: outcome.notice }), 303);
      },
    );
  };

  const text = (form: Form, name: string) => {
    const value = form[name];
    return typeof value === 'string' ? value.trim() : '';
  };
  const integer = (form: Form, name: string) => {
    const value = text(form, name);
    if (!/^\d+$/.test(value)) throw new HttpError(422, `${name.replace(/_/g, ' ')} must be a whole number`);
    return Number(value);
  };
  const checked = <S extends z.ZodType>(schema: S, value: unknown): z.output<S> => {
    const result = schema.safeParse(value);
    if (!result.success) {
      const issue = result.error.issues[0]!;
      throw new HttpError(422, `${issue.path.join('.') || 'form'}: ${issue.message}`);
    }
    return result.data;
  };

  action('/keys', '/keys', (form) => {
    const orgId = text(form, 'org_id');
    if (!state.orgs.has(orgId)) throw notFound(`no such organization: ${orgId}`);
    const keyMode = modeOf(form.key_mode);
    const scopes = [form.scopes ?? []].flat().filter((s): s is Scope => typeof s === 'string' && (SCOPES as readonly string[]).includes(s));
    if (scopes.length === 0) throw new HttpError(422, 'choose at least one scope');
    const name = text(form, 'name').slice(0, 200);
    const made = createKey(state, orgId, keyMode, scopes, name || undefined);
    return {
      page: (v) => {
        const shown = shownOnce('Your new API key', `This is the only time ${name || made.id} is shown: copy it now. Use it as SVC_API_KEY.`, [
          { label: 'API key', id: 'new-key', value: made.key },
        ]);
        return keysPage({ ...v, mode: keyMode, here: withMode('/keys', keyMode), notice: `Created ${made.id}.`, shown });
      },
    };
  });

  action('/keys/:id/revoke', '/keys', (_form, _mode, c) => {
    const key = state.keys.get(c.req.param('id')!);
    if (!key) throw notFound('no such key');
    revokeKey(state, key.org_id, key.id);
    return { notice: `Revoked ${key.name ?? key.id}: requests with it now get 401.` };
  });

  action('/orgs/:org/balance', '/', (form, _mode, c) => {
    const balance = setOrgBalance(state, c.req.param('org')!, integer(form, 'available'));
    return {
      notice: `The balance of ${state.orgs.get(c.req.param('org')!)?.name ?? 'the organization'} is now ${money(balance.available, balance.currency)}.`,
    };
  });

  action('/apps', '/apps', (form) => {
    const body = checked(newApp, {
      name: text(form, 'name'),
      redirect_uris: text(form, 'redirect_uris').split(/\s+/).filter(Boolean),
      public: form.public === '1',
    });
    const made = registerApp(state, body);
    const values = [{ label: 'Client id', id: 'new-client-id', value: made.client_id }];
    if (made.client_secret) values.push({ label: 'Client secret', id: 'new-client-secret', value: made.client_secret });
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
          ),
        }),
    };
  });

  action('/apps/:id/delete', '/apps', (_form, _mode, c) => {
    const name = state.apps.get(c.req.param('id')!)?.name;
    const result = deleteApp(state, c.req.param('id')!);
    return { notice: `Deleted ${name ?? result.client_id}; ${result.connections_ended} connection(s) ended.` };
  });

  action('/orgs/:org/connections/:client/disconnect', '/apps', (_form, _mode, c) => {
    const clientId = c.req.param('client')!;
    const name = state.apps.get(clientId)?.name ?? clientId;
    disconnectApp(state, c.req.param('org')!, clientId);
    return { notice: `Disconnected ${name} from ${state.orgs.get(c.req.param('org')!)?.name ?? 'the organization'}.` };
  });

  action('/calls/:id/end', '/calls', (_form, mode, c) => {
    const stored = state.calls.get(c.req.param('id')!);
    if (!stored) throw notFound('no such call');
    endCall(state, stored);
    return { notice: `Ended ${stored.obj.id}.`, back: `/calls/${stored.obj.id}` };
  });

  action('/chats/:id/close', '/chats', (_form, _mode, c) => {
    const stored = state.chats.get(c.req.param('id')!);
    if (!stored) throw notFound('no such chat');
    closeChat(state, stored);
    return { notice: `Closed ${stored.obj.id}.`, back: `/chats/${stored.obj.id}` };
  });

  action('/clock', '/controls', (form) => {
    const seconds = integer(form, 'advance_seconds');
    const { now } = advanceClock(state, seconds);
    return { notice: `The clock moved ${seconds} s: it is now ${now}.` };
  });

  action('/faults', '/controls', (form) => {
    const body = checked(faultSchema, { status: integer(form, 'status'), path_prefix: text(form, 'path_prefix'), count: integer(form, 'count') });
    addFault(state, body);
    return { notice: `The next ${body.count} request(s) under ${body.path_prefix} fail with ${body.status}.` };
  });

  action('/events', '/controls', async (form, mode) => {
    const body = checked(synthetic, { org_id: text(form, 'org_id'), mode, type: text(form, 'type'), count: integer(form, 'count') });
    const result = await publishSynthetic(state, body);
    return { notice: `Published ${result.published} ${mode} ${body.type} event(s).` };
  });

  action('/reset', '/controls', () => {
    const seed = reset(state);
    requests.clear();
    return {
      page: (v) =>
        controlsPage({
          ...v,
          here: withMode('/controls', v.mode),
          notice: 'The emulator was reset and the seed planted again.',
          shown: shownOnce(
            'The new seed',
            `Organization ${seed.org_name} (${seed.org_id}); its admin signs in as ${seed.admin.email} / ${seed.admin.password}.`,
            [
              { label: 'Test key', id: 'seed-test-key', value: seed.keys.test },
              { label: 'Live key', id: 'seed-live-key', value: seed.keys.live },
            ],
          ),
        }),
    };
  });

  action(
    '/import',
    '/controls',
    async (form) => {
      if (state.journal) throw new HttpError(409, 'this emulator keeps its world in a --state file: restart it with --import FILE instead');
      const file = form.document;
      if (!(file instanceof File)) throw new HttpError(422, 'choose a document file to import');
      let document: unknown;
      try {
        document = JSON.parse(await file.text());
      } catch (error) {
        throw new HttpError(422, `${file.name} is not JSON: ${(error as Error).message}`);
      }
      // Checked on a scratch world first, so that a bad document changes nothing.
      importDocument(createState(state.clock, state.keepaliveMs, { seed: false }), document);
      empty(state);
      const counts = importDocument(state, document);
      requests.clear();
      return { notice: `Imported ${file.name}: ${counts.orgs} organization(s), ${counts.keys} key(s), ${counts.apps} app(s), ${counts.events} event(s).` };
    },
    IMPORT_LIMIT,
  );
}

function describe(error: HttpError): string {
  if (typeof error.detail === 'string') return error.detail;
  return error.detail.map((item) => `${item.loc.slice(1).join('.')}: ${item.msg}`).join('; ');
}
