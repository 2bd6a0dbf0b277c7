// A certified OpenID/OAuth server (panva's oidc-provider) configured as the service's would
// be: the public client svc_app_cli with loopback redirects, PKCE, rotating refresh tokens,
// revocation and the contract's scopes, with one addition, `org_id` in the token response.
// It runs in the test's process on 127.0.0.1. The admin's side of the browser is played by
// `browse`: it follows the redirects with a cookie jar and answers the server's login and
// consent interactions through the provider's own interaction API (interactionFinished).
import { generateKeyPairSync } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { SCOPES } from '../../src/contract/constants.js';

export const ACCOUNT = 'admin@world.example';
export const ORG_ID = 'org_world';
export const ORG_NAME = 'World Org';
/** The resource server of the JWT variant (RFC 8707). */
export const API_RESOURCE = 'https://api.world.example';

export interface CertifiedOptions {
  /** The issuer's path ('/tenant'): its metadata also answers at RFC 8414 §3.1's address. */
  path?: string;
  /** Access tokens as JWTs for a resource server (RFC 8707 resource indicators). */
  jwtAccessTokens?: boolean;
  /** The scopes the client may ask for (its registered `scope`); default: all of the contract's. */
  clientScopes?: readonly string[];
}

/** Misbehaviour after the server did its work, switched on by a test. */
export interface Faults {
  /** Leave `org_id` out of token responses (a stock server). */
  noOrgId: boolean;
  /** Issue the next token response, then drop the connection instead of answering. */
  dropNextTokenAnswer: boolean;
  /** Issue the next token response, then answer 502 in its place (a gateway losing it). */
  badGatewayNextTokenAnswer: boolean;
  /** Issue the next token response, call `held`, and answer only once `release` settles (a slow token endpoint). */
  holdNextTokenAnswer?: { held: () => void; release: Promise<void> };
}

export interface SeenRequest {
  method: string;
  path: string;
}

export interface CertifiedServer {
  issuer: string;
  origin: string;
  provider: Provider;
  seen: SeenRequest[];
  /** The admin's answer on the consent: approve (default) or deny. */
  decision: 'approve' | 'deny';
  faults: Faults;
  /** From now on, every authorization code this server issued is past its expiry (an injected clock for codes). */
  expireCodes(): void;
  /** Whether the grant behind a token (or any token of a grant) still stands. */
  grantActive(grantId: string): Promise<boolean>;
  /** Grant ids of the tokens issued so far, in order. */
  grants: string[];
  close(): Promise<void>;
}

/** oidc-provider's storage contract, in memory, with codes that can be made to expire. */
function memoryAdapter(state: { codesExpired: boolean }) {
  const store = new Map<string, Record<string, unknown>>();
  const key = (model: string, id: string) => `${model}:${id}`;
  return class MemoryAdapter {
    constructor(readonly model: string) {}
    async upsert(id: string, payload: Record<string, unknown>) {
      store.set(key(this.model, id), { ...payload });
    }
    async find(id: string) {
      const found = store.get(key(this.model, id));
      if (!found) return undefined;
      if (this.model === 'AuthorizationCode' && state.codesExpired) return { ...found, exp: 1 };
      return found;
    }
    async findByUid(uid: string) {
      for (const [k, v] of store) if (k.startsWith(`${this.model}:`) && v.uid === uid) return v;
      return undefined;
    }
    async findByUserCode() {
      return undefined;
    }
    async consume(id: string) {
      const found = store.get(key(this.model, id));
      if (found) found.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string) {
      store.delete(key(this.model, id));
    }
    async revokeByGrantId(grantId: string) {
      for (const [k, v] of store) if (v.grantId === grantId) store.delete(k);
    }
  };
}

export async function startCertifiedServer(options: CertifiedOptions = {}): Promise<CertifiedServer> {
  const path = options.path ?? '';
  const seen: SeenRequest[] = [];
  const state = { codesExpired: false };
  const grants: string[] = [];
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.writeHead(503).end();
  const server: Server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = origin + path;

  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = { ...privateKey.export({ format: 'jwk' }), alg: 'ES256', use: 'sig', kid: 'test' };
  const scopes = [...SCOPES];

  const provider = new Provider(issuer, {
    adapter: memoryAdapter(state) as never,
    jwks: { keys: [jwk as never] },
    cookies: { keys: ['certified-server-test-key'] },
    clients: [
      {
        client_id: 'svc_app_cli',
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        id_token_signed_response_alg: 'ES256',
        redirect_uris: ['http://127.0.0.1/callback'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        scope: (options.clientScopes ?? scopes).join(' '),
      },
    ],
    scopes,
    pkce: { required: () => true },
    ttl: { AuthorizationCode: 60, AccessToken: 3600, RefreshToken: 30 * 24 * 3600, Grant: 30 * 24 * 3600, Interaction: 600, Session: 3600 },
    // Every client here may refresh (no offline_access needed), and each refresh rotates the token.
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `${path}/interaction/${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      ...(options.jwtAccessTokens
        ? {
            resourceIndicators: {
              enabled: true,
              defaultResource: async () => API_RESOURCE,
              useGrantedResource: async () => true,
              getResourceServerInfo: async () => ({
                scope: scopes.join(' '),
                audience: API_RESOURCE,
                accessTokenFormat: 'jwt',
                jwt: { sign: { alg: 'ES256' } },
              }),
            },
          }
        : {}),
    },
    // The JWT's own claims: the organization, as the API would read it.
    extraTokenClaims: async () => ({ org_id: ORG_ID }),
  });

  // The one addition to a stock server: the organization the app now acts for, in the token response.
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.oidc?.route === 'token' && ctx.status === 200 && ctx.body && typeof ctx.body === 'object') {
      const { faults } = certified;
      if (!faults.noOrgId) (ctx.body as Record<string, unknown>).org_id = ORG_ID;
      const grantId = (ctx.oidc.entities as { Grant?: { jti: string } }).Grant?.jti;
      if (grantId && !grants.includes(grantId)) grants.push(grantId);
      const hold = faults.holdNextTokenAnswer;
      if (hold) {
        delete faults.holdNextTokenAnswer;
        hold.held();
        await hold.release;
      }
      if (faults.dropNextTokenAnswer) {
        faults.dropNextTokenAnswer = false;
        ctx.respond = false;
        ctx.req.socket.destroy();
      } else if (faults.badGatewayNextTokenAnswer) {
        faults.badGatewayNextTokenAnswer = false;
        ctx.status = 502;
        ctx.body = 'Bad Gateway';
      }
    }
  });

  const callback = provider.callback();
  const certified: CertifiedServer = {
    issuer,
    origin,
    provider,
    seen,
    decision: 'approve',
    faults: { noOrgId: false, dropNextTokenAnswer: false, badGatewayNextTokenAnswer: false },
    grants,
    expireCodes: () => void (state.codesExpired = true),
    async grantActive(grantId) {
      return (await provider.Grant.find(grantId)) !== undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  handler = (req, res) => {
    const url = new URL(req.url ?? '/', origin);
    seen.push({ method: req.method ?? 'GET', path: url.pathname });
    void route(req, res, url).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  };

  async function route(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    // RFC 8414 §3.1: the metadata of an issuer with a path, at the host's well-known place.
    if (path && url.pathname === `/.well-known/oauth-authorization-server${path}`) url.pathname = `${path}/.well-known/oauth-authorization-server`;
    if (url.pathname === `${path}/v1/account`) return account(req, res);
    const interaction = new RegExp(`^${path}/interaction/[^/]+$`).test(url.pathname);
    if (!url.pathname.startsWith(path || '/')) return void res.writeHead(404).end();
    // Mounted under the path, as Express or Koa would mount it (originalUrl keeps the whole).
    Object.assign(req, { originalUrl: url.pathname + url.search, url: url.pathname.slice(path.length) + url.search || '/' });
    if (interaction) return interact(req, res);
    return callback(req, res);
  }

  /** The admin at the server's login and consent: answered at once, as `decision` says. */
  async function interact(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(req, res);
    if (certified.decision === 'deny') {
      await provider.interactionFinished(req, res, { error: 'access_denied', error_description: 'the admin refused' }, { mergeWithLastSubmission: false });
      return;
    }
    if (details.prompt.name === 'login') {
      await provider.interactionFinished(req, res, { login: { accountId: ACCOUNT } }, { mergeWithLastSubmission: false });
      return;
    }
    const accountId = details.session!.accountId;
    const grant = details.grantId
      ? (await provider.Grant.find(details.grantId))!
      : new provider.Grant({ accountId, clientId: details.params.client_id as string });
    const missing = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    for (const [indicator, wanted] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(indicator, wanted.join(' '));
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  }

  /** The API's GET /v1/account, for the organization's name: an opaque token looked up, a JWT's claims read. */
  async function account(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const token = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
    let known = false;
    if (token && token.split('.').length === 3) known = true;
    else if (token) known = (await provider.AccessToken.find(token)) !== undefined;
    if (!known) return void res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'unknown token' }));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'account', id: ORG_ID, name: ORG_NAME, livemode: true, credential: { type: 'oauth', scopes } }));
  }

  return certified;
}

/** A cookie-keeping browser: follows redirects from `url` until one leaves for `stopAt`'s origin, and returns that address. */
export async function browse(url: string, stopAt: (next: URL) => boolean): Promise<{ stoppedAt?: URL; status: number; page: string }> {
  const jar = new Map<string, string>();
  let at = new URL(url);
  for (let hop = 0; hop < 20; hop++) {
    if (stopAt(at)) return { stoppedAt: at, status: 0, page: '' };
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const response = await fetch(at, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
    const location = response.headers.get('location');
    if (!location) return { status: response.status, page: await response.text() };
    at = new URL(location, at);
  }
  throw new Error('too many redirects');
}
