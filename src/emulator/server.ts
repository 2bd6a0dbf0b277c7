// The emulator's HTTP application: shared middleware (stats, faults, credential, rate
// limit), one route file per resource, and ONE error handler writing the spec's bodies.
import { Hono } from 'hono';
import { authenticate, presentedSecret } from './auth.js';
import { HttpError, OAuthError } from './errors.js';
import { drawMinutes } from './calls.js';
import { takeFault } from './faults.js';
import { hostGuard, sameSiteGuard } from './guards.js';
import { idempotentCreates } from './idempotency.js';
import type { EmulatorEnv } from './http.js';
import { takeRequest } from './ratelimit.js';
import { accountRoutes } from './routes/account.js';
import { dashboardRoutes, isDashboardPath } from './dashboard/index.js';
import { RequestLog, requestLogger } from './dashboard/requests.js';
import { authorizeRoutes } from './routes/authorize.js';
import { callRoutes } from './routes/calls.js';
import { chatRoutes } from './routes/chats.js';
import { controlRoutes } from './routes/control.js';
import { eventRoutes } from './routes/events.js';
import { oauthRoutes } from './routes/oauth.js';
import { translateRoutes } from './routes/translate.js';
import type { State } from './state.js';

export const CONTROL_PREFIX = '/_emulator';

export function createApp(state: State, requests = new RequestLog()): Hono<EmulatorEnv> {
  const app = new Hono<EmulatorEnv>();

  app.use('*', async (c, next) => {
    state.stats.requests++;
    await next();
    // A body refused past its cap is left unread on the connection, which Node then closes: said
    // in the answer (RFC 9112 §9.6), so a client never sends its next request on that socket.
    if (c.res.status === 413) c.header('Connection', 'close');
  });
  // The dashboard's Requests page: every request but the dashboard's own, refused ones included.
  app.use('*', requestLogger(requests, state, isDashboardPath));
  app.use(
    '*',
    hostGuard(() => state.address),
  );
  app.use(
    `${CONTROL_PREFIX}/*`,
    sameSiteGuard(() => state.address),
  );
  // --state FILE: a request's changes are on disk before its answer leaves (persistence/journal.ts).
  app.use('*', async (c, next) => {
    if (!state.journal) return next();
    await state.journal.request(c.req.method !== 'GET' && c.req.method !== 'HEAD', next);
  });
  // A live call's minutes begun since the last request are drawn before this one is answered (calls.ts).
  app.use('*', async (_c, next) => {
    drawMinutes(state);
    await next();
  });
  app.use('*', async (c, next) => {
    // The control plane and the dashboard never fail on purpose: tests must always be able to arrange.
    if (!c.req.path.startsWith(CONTROL_PREFIX) && !isDashboardPath(c.req.path)) {
      const fault = takeFault(state, c.req.method, c.req.path);
      if (fault instanceof Error) throw fault;
      if (fault) {
        // Handled first, then its answer held: the service acted, and the client has not heard.
        await next();
        await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
        return;
      }
    }
    await next();
  });

  app.use('/v1/*', async (c, next) => {
    const credential = authenticate(state, presentedSecret({ authorization: c.req.header('authorization'), apiKey: c.req.header('x-api-key') }));
    // Set before the rate limit, so that the dashboard's Requests page names the key of a 429 too.
    c.set('credential', credential);
    const decision = takeRequest(state, credential.rate_key);
    if (!decision.allowed) {
      state.stats.rate_limited++;
      throw new HttpError(429, 'too many requests: 600 per minute per API key or connected app', decision.headers);
    }
    for (const [name, value] of Object.entries(decision.headers)) c.header(name, value);
    await next();
  });
  app.use('/v1/*', idempotentCreates(state));

  accountRoutes(app, state);
  callRoutes(app, state);
  chatRoutes(app, state);
  translateRoutes(app, state);
  eventRoutes(app, state);
  oauthRoutes(app, state);
  authorizeRoutes(app, state);
  controlRoutes(app, state);
  dashboardRoutes(app, state, requests);

  app.notFound((c) => c.json({ detail: `no such path: ${c.req.method} ${c.req.path}` }, 404));

  app.onError((error, c) => {
    if (error instanceof HttpError) {
      return c.json({ detail: error.detail }, error.status as 400, error.headers);
    }
    if (error instanceof OAuthError) {
      const headers: Record<string, string> = { 'Cache-Control': 'no-store' };
      if (error.status === 401) headers['WWW-Authenticate'] = 'Basic realm="svc"';
      const body = error.description ? { error: error.error, error_description: error.description } : { error: error.error };
      return c.json(body, error.status, headers);
    }
    return c.json({ detail: `internal error in the emulator: ${(error as Error).message}` }, 500);
  });

  return app;
}
