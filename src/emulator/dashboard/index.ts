// The emulator's dashboard: the real service's admin pages in miniature (API keys,
// connected apps, the app owner's apps) and a developer console (calls, chats, events,
// requests, clock, faults, export/import), served by the emulator's own app at its root URL.
// A file per page (pages/), a route per action (actions/).
//
// Guards, as the control plane's: the Host guard (server.ts) answers loopback names only;
// every action is a same-origin POST (sameSiteGuard) carrying this session's CSRF token, an
// HMAC of the session cookie, so nothing is stored per session. The HMAC's key is the state's
// sessionSecret, which a --state file keeps: a tab from before a restart still submits. Each action calls the same
// operation the control plane does (routes/control.ts, state.ts).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { getCookie, setCookie } from 'hono/cookie';
import type { Mode } from '../../contract/constants.js';
import { HttpError } from '../errors.js';
import { sameSiteGuard } from '../guards.js';
import type { EmulatorEnv } from '../http.js';
import { randomToken } from '../ids.js';
import { exportDocument, InvalidDocumentError } from '../persistence/document.js';
import type { State } from '../state.js';
import { InvalidField, modeOf } from './actions/action.js';
import type { Action, Form, Outcome } from './actions/action.js';
import { ACTIONS } from './actions/index.js';
import { SCRIPT, STYLESHEET } from './assets.js';
import { PAGES, withMode } from './layout.js';
import type { Html, View } from './layout.js';
import { appPage, appsPage, REGISTER } from './pages/apps.js';
import { callPage, callsPage } from './pages/calls.js';
import { CREATE, keyPage } from './pages/keys.js';
import { chatPage, chatsPage } from './pages/chats.js';
import { controlsPage } from './pages/controls.js';
import { eventsPage } from './pages/events.js';
import { keysPage } from './pages/keys.js';
import { notFoundPage } from './pages/not-found.js';
import { overviewPage } from './pages/overview.js';
import { requestsPage } from './pages/requests.js';
import type { RequestLog } from './requests.js';
import { changeStream } from './stream.js';
import { joinPage, noSuchLinkPage } from '../pages/join.js';

export const DASHBOARD_PREFIX = '/_dashboard';
const PAGE_PATHS: Set<string> = new Set(PAGES.map((p) => p.path));

/** Whether a path is the dashboard's own (not logged on Requests, never failed by an injected fault). */
export function isDashboardPath(path: string): boolean {
  if (PAGE_PATHS.has(path) || path.startsWith(`${DASHBOARD_PREFIX}/`)) return true;
  return /^\/(calls|chats|keys|apps|join)\/[^/]+$/.test(path);
}

/** Same-origin pages keep talking to the emulator; frames, other sites' scripts and inline code are refused. */
const PAGE_HEADERS = {
  'Cache-Control': 'no-store',
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy':
    "default-src 'none'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};
const FORM_LIMIT = 64 * 1024;
/** The actions whose form shows a failure of the whole form inside its dialog. */
const FORMS_WITH_THEIR_ERROR = new Set([CREATE, REGISTER]);

type Ctx = Context<EmulatorEnv>;

/** The list pages, by path. */
const LIST_PAGES: [string, (v: View) => Html][] = [
  ['/', overviewPage],
  ['/keys', keysPage],
  ['/apps', appsPage],
  ['/calls', callsPage],
  ['/chats', chatsPage],
  ['/events', eventsPage],
  ['/requests', requestsPage],
  ['/controls', controlsPage],
];

/** What every dashboard route shares: the state (with its signing secret), a page's view and its drawing. */
function dashboardOf(state: State, requests: RequestLog) {
  const cookieName = () => `svc_dashboard_${state.address?.port ?? 0}`;
  const tokenFor = (session: string) => createHmac('sha256', state.sessionSecret).update(session).digest('base64url');
  /** A notice in a redirect's URL is signed: a link from elsewhere cannot put its own words in the success banner. */
  const noticeSignature = (notice: string) => createHmac('sha256', state.sessionSecret).update(`notice:${notice}`).digest('base64url');
  const signedNotice = (c: Ctx) => {
    const notice = c.req.query('notice');
    const given = c.req.query('sig');
    if (!notice || !given) return undefined;
    const expected = Buffer.from(noticeSignature(notice));
    return given.length === expected.length && timingSafeEqual(Buffer.from(given), expected) ? notice : undefined;
  };

  /** This browser's session (a cookie made on its first page) and its CSRF token. */
  const sessionToken = (c: Ctx): string => {
    let session = getCookie(c, cookieName());
    if (!session || !/^[\w-]{20,64}$/.test(session)) {
      session = randomToken(24);
      setCookie(c, cookieName(), session, { httpOnly: true, sameSite: 'Strict', path: '/', secure: state.address?.url.startsWith('https:') ?? false });
    }
    return tokenFor(session);
  };

  const view = (c: Ctx, mode: Mode, extra: Partial<View> = {}): View => {
    const url = new URL(c.req.url);
    url.searchParams.delete('notice');
    url.searchParams.delete('error');
    url.searchParams.delete('sig');
    url.searchParams.set('mode', mode);
    return {
      state,
      requests,
      mode,
      csrf: sessionToken(c),
      here: `${url.pathname}?${url.searchParams.toString()}`,
      query: (name) => c.req.query(name),
      notice: signedNotice(c),
      ...extra,
    };
  };

  const page = (c: Ctx, body: Html, status: ContentfulStatusCode = 200) => c.html(body, status, PAGE_HEADERS);
  return { state, requests, cookieName, tokenFor, noticeSignature, view, page };
}
type Dashboard = ReturnType<typeof dashboardOf>;

export function dashboardRoutes(app: Hono<EmulatorEnv>, state: State, requests: RequestLog): void {
  const d = dashboardOf(state, requests);
  app.get(`${DASHBOARD_PREFIX}/app.css`, (c) => c.body(STYLESHEET, 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'no-cache' }));
  app.get(`${DASHBOARD_PREFIX}/app.js`, (c) =>
    c.body(SCRIPT, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' }),
  );
  pageRoutes(app, d);
  // A call link's URL: a page a person can read (the emulator has no audio), not a JSON 404.
  app.get('/join/:id', (c) => {
    const link = state.links.get(c.req.param('id'))?.obj;
    if (!link) return c.html(noSuchLinkPage(c.req.param('id')), 404, PAGE_HEADERS);
    return c.html(joinPage(link, Date.parse(link.expires_at) < state.clock.now()), 200, PAGE_HEADERS);
  });
  app.get(`${DASHBOARD_PREFIX}/find`, (c) => find(c, d));
  app.get(`${DASHBOARD_PREFIX}/stream`, (c) => changeStream(c, requests));
  app.get(`${DASHBOARD_PREFIX}/export`, (c) => exportState(c, d));
  // Actions: POST only, same origin only, with this session's token.
  app.use(`${DASHBOARD_PREFIX}/*`, async (c, next) => {
    if (c.req.method !== 'POST') return next();
    let passed = false;
    try {
      return await sameSiteGuard(() => state.address)(c, () => ((passed = true), next()));
    } catch (error) {
      // Another site's post: refused with a page (nothing of its form is drawn again).
      if (passed || !(error instanceof HttpError)) throw error;
      const v = d.view(c, 'test');
      return d.page(c, notFoundPage(v, '/', 'This form was sent from another site, so nothing was done.', 'Refused'), error.status as ContentfulStatusCode);
    }
  });
  for (const action of ACTIONS) actionRoute(app, d, action);
}

/** The list pages, and each object's own page. */
function pageRoutes(app: Hono<EmulatorEnv>, d: Dashboard): void {
  for (const [path, render] of LIST_PAGES) app.get(path, (c) => d.page(c, render(d.view(c, modeOf(c.req.query('mode'))))));
  for (const [kind, render] of [
    ['calls', callPage],
    ['chats', chatPage],
    ['keys', keyPage],
    ['apps', appPage],
  ] as const) {
    app.get(`/${kind}/:id`, (c) => {
      const v = d.view(c, modeOf(c.req.query('mode')));
      const id = c.req.param('id');
      // Apps are the same in both modes.
      const what = kind === 'apps' ? 'app' : `${v.mode} ${kind.slice(0, -1)}`;
      const shown = render(v, id);
      return d.page(c, shown ?? notFoundPage(v, `/${kind}`, `There is no ${what} ${id}.`), shown ? 200 : 404);
    });
  }
}

/** Find by id: the object's own page, or the events that name it. */
function find(c: Ctx, d: Dashboard) {
  const { state } = d;
  const id = (c.req.query('id') ?? '').trim();
  const mode = modeOf(c.req.query('mode'));
  const modeOfObject = (livemode: boolean): Mode => (livemode ? 'live' : 'test');
  const call = state.calls.get(id)?.obj;
  if (call) return c.redirect(withMode(`/calls/${id}`, modeOfObject(call.livemode)), 303);
  const chat = state.chats.get(id)?.obj;
  if (chat) return c.redirect(withMode(`/chats/${id}`, modeOfObject(chat.livemode)), 303);
  const key = state.keys.get(id);
  if (key) return c.redirect(`${withMode('/keys', key.mode)}#key-${id}`, 303);
  if (state.apps.has(id)) return c.redirect(withMode(`/apps/${id}`, mode), 303);
  const other = state.links.get(id)?.obj ?? state.lines.get(id)?.obj ?? state.participants.get(id)?.obj ?? state.messages.get(id)?.obj;
  if (other || id.startsWith('evt_')) return c.redirect(withMode('/events', other ? modeOfObject(other.livemode) : mode, { object: id }), 303);
  return d.page(c, notFoundPage(d.view(c, mode), '/', id ? `Nothing on this emulator has the id ${id}.` : 'Type an id to find.'), 404);
}

/** The whole world (keys' hashes, admins) is a download for this dashboard only, as the control plane's is. */
function exportState(c: Ctx, d: Dashboard) {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    return d.page(c, notFoundPage(d.view(c, 'test'), '/controls', 'The state is exported only to this dashboard, not to another site.', 'Refused'), 403);
  }
  return c.body(JSON.stringify(exportDocument(d.state), null, 2), 200, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Disposition': 'attachment; filename="svc-emulator-state.json"',
    'Cache-Control': 'no-store',
  });
}

/**
 * A failed action: the page it was sent from drawn again with the form as sent, its dialog open
 * and the error next to its field (forms.tsx): never a JSON body, never lost input.
 */
function failedPage(c: Ctx, d: Dashboard, back: string, mode: Mode, form: Form, error: InvalidField) {
  const values: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(form)) {
    if (name !== 'csrf') values[name] = [value].flat().filter((item): item is string => typeof item === 'string');
  }
  const [path = '/'] = back.split('?');
  const render = LIST_PAGES.find(([listPath]) => listPath === path)?.[1] ?? overviewPage;
  // A form whose dialog says what failed (FormError) says it there alone: the page says it once.
  const saidInForm = error.field === null && FORMS_WITH_THEIR_ERROR.has(c.req.path);
  const v = d.view(c, mode, {
    here: withMode(path, mode),
    error: saidInForm ? undefined : error.message,
    failed: { action: c.req.path, values, message: error.message, field: error.field },
  });
  return d.page(c, render(v), error.status as ContentfulStatusCode);
}

/** Whether the form carries this session's CSRF token. */
function tokenMatches(c: Ctx, d: Dashboard, form: Form): boolean {
  const session = getCookie(c, d.cookieName());
  const given = typeof form.csrf === 'string' ? Buffer.from(form.csrf) : Buffer.alloc(0);
  const expected = session ? Buffer.from(d.tokenFor(session)) : null;
  return expected !== null && given.length === expected.length && timingSafeEqual(given, expected);
}

/** One dashboard action: a same-origin form post with this session's token, then the pure operation. */
function actionRoute(app: Hono<EmulatorEnv>, d: Dashboard, { path, back, handle, limit = FORM_LIMIT }: Action): void {
  app.post(
    `${DASHBOARD_PREFIX}${path}`,
    bodyLimit({ maxSize: limit, onError: (c) => failedPage(c, d, back, 'test', {}, new InvalidField(null, `The form is larger than ${limit} bytes.`, 413)) }),
    async (c) => {
      const type = c.req.header('content-type') ?? '';
      if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type)) {
        return failedPage(c, d, back, 'test', {}, new InvalidField(null, 'Dashboard actions are form posts.', 415));
      }
      const form = (await c.req.parseBody({ all: true })) as Form;
      const mode = modeOf(form.mode);
      if (!tokenMatches(c, d, form)) {
        // Same origin (sameSiteGuard passed), but a token this emulator did not give: a page from
        // before a restart, or no session cookie. The form comes back with a fresh token.
        const stale = new InvalidField(
          null,
          'This page was loaded before the emulator restarted (or its session ended): check the form and send it again.',
          403,
        );
        return failedPage(c, d, back, mode, form, stale);
      }
      let outcome: Outcome;
      try {
        outcome = await handle({ state: d.state, requests: d.requests, form, mode, param: (name) => c.req.param(name) ?? '' });
      } catch (error) {
        const invalid = asInvalidField(error);
        if (!invalid) throw error;
        return failedPage(c, d, back, mode, form, invalid);
      }
      // Other open dashboards refresh too (a dashboard action is not on the Requests page).
      d.requests.touch();
      if ('page' in outcome) return d.page(c, outcome.page(d.view(c, mode)));
      return c.redirect(withMode(outcome.back ?? back, mode, { notice: outcome.notice, sig: d.noticeSignature(outcome.notice) }), 303);
    },
  );
}

/** An operation's refusal as a form error (the field from a validation item's `loc`), or null for any other error. */
function asInvalidField(error: unknown): InvalidField | null {
  if (error instanceof InvalidField) return error;
  if (error instanceof InvalidDocumentError) return new InvalidField('document', error.message);
  if (!(error instanceof HttpError)) return null;
  if (typeof error.detail === 'string') return new InvalidField(null, error.detail, error.status);
  const [first] = error.detail;
  const field = typeof first?.loc[1] === 'string' ? first.loc[1] : null;
  return new InvalidField(field, error.detail.map((item) => `${item.loc.slice(1).join('.')}: ${item.msg}`).join('; '), error.status);
}
