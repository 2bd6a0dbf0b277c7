// Routes are registered from the contract's endpoint table (src/contract/endpoints.ts):
// method and path come from the row, and a /v1 row's scope is checked before its handler
// runs, so a scope cannot be forgotten or disagree with what the CLI expects.
import type { Context, Hono } from 'hono';
import { ENDPOINTS } from '../../contract/index.js';
import type { EndpointName } from '../../contract/index.js';
import { requireScope } from '../auth.js';
import type { Credential } from '../auth.js';
import { credentialOf } from '../http.js';
import type { EmulatorEnv } from '../http.js';

/** A route's context; `c.req.param('id')` is the `{id}` of rows that have one. */
export type RouteContext = Context<EmulatorEnv, '/:id'>;

type Row = (typeof ENDPOINTS)[EndpointName];
type ApiName = { [N in EndpointName]: (typeof ENDPOINTS)[N]['scope'] extends null ? never : N }[EndpointName];
type OAuthName = Exclude<EndpointName, ApiName>;

const honoPath = (row: Row) => row.path.replace(/\{(\w+)\}/g, ':$1');

/** A /v1 endpoint: authenticated by the /v1 middleware, then the row's scope, then the handler. */
export function route(app: Hono<EmulatorEnv>, name: ApiName, handler: (c: RouteContext, credential: Credential) => Response | Promise<Response>): void {
  const row = ENDPOINTS[name];
  app.on(row.method, honoPath(row), (c) => {
    const credential = credentialOf(c);
    requireScope(credential, row.scope);
    return handler(c, credential);
  });
}

/** An authorization-server endpoint (no bearer credential): method and path from its row. */
export function oauthRoute(app: Hono<EmulatorEnv>, name: OAuthName, handler: (c: RouteContext) => Response | Promise<Response>): void {
  const row = ENDPOINTS[name];
  app.on(row.method, honoPath(row), handler);
}
