// The authorize page (docs/contract.md "Authorize"): sign in, choose an organization, approve or
// deny. Problems with client_id or redirect_uri are shown here and never redirected
// (RFC 6749 §4.1.2.1); every other problem is redirected to the app with an error.
import type { Context, Hono } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { SCOPES } from '../../contract/constants.js';
import type { Scope } from '../../contract/constants.js';
import { HttpError } from '../errors.js';
import type { EmulatorEnv } from '../http.js';
import { passwordMatches, randomToken, sameSecret } from '../ids.js';
import { issueCode } from '../oauth.js';
import { consentPage, errorPage, signInPage } from '../pages/authorize.js';
import { redirectMatches } from '../redirects.js';
import { issuerOf } from './oauth.js';
import type { AuthorizeRequest, Session, State } from '../state.js';
import { readBody } from '../validate.js';

/** Named per port: cookies ignore ports, and two emulators on one host must not sign each other out. */
const sessionCookie = (state: State) => `svc_emulator_session_${state.address?.port ?? 0}`;
/** A form left open longer than this must start again; sign-in sessions last as long, so their memory is bounded. */
export const AUTHORIZE_TTL_MS = 10 * 60_000;
/** The sign-in and consent forms are a few short fields; anything bigger is refused (413) unread. */
export const FORM_BODY_LIMIT = 16 * 1024;

type Ctx = Context<EmulatorEnv>;

function redirectTo(redirectUri: string, params: Record<string, string | null>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== null) url.searchParams.set(name, value);
  return url.toString();
}

/**
 * Drops expired entries and, past `max`, the oldest ones. A Map iterates in insertion order, which
 * is creation order here, so both are taken from the front: O(1) amortized per new entry.
 */
export function keepBounded(entries: Map<string, { created_at: number }>, max: number, now: number): void {
  for (const [id, entry] of entries) {
    if (entries.size > max || now > entry.created_at + AUTHORIZE_TTL_MS) entries.delete(id);
    else break;
  }
}

/** An authorize page: never cached, never framed, no script. */
function page(c: Ctx, html: string, status: 200 | 400 | 401 | 403 | 413 | 415 = 200) {
  return c.html(html, status, {
    'Cache-Control': 'no-store',
    'X-Frame-Options': 'DENY',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  });
}

/** The browser's sign-in session (a cookie), made anew when missing or expired. */
function session(c: Ctx, state: State): Session {
  const id = getCookie(c, sessionCookie(state));
  const found = id ? state.sessions.get(id) : undefined;
  if (found && state.clock.now() <= found.created_at + AUTHORIZE_TTL_MS) return found;
  if (found && id) state.sessions.delete(id);
  const newSessionId = randomToken(24);
  const created: Session = { csrf: randomToken(24), email: null, created_at: state.clock.now() };
  keepBounded(state.sessions, state.limits.authorizeSessions - 1, state.clock.now());
  state.sessions.set(newSessionId, created);
  setCookie(c, sessionCookie(state), newSessionId, {
    httpOnly: true,
    sameSite: 'Lax',
    path: '/oauth',
    secure: state.address?.url.startsWith('https:') ?? false,
  });
  return created;
}

/** The admin's decision, as the redirect back to the app: a code, or access_denied. */
function decide(c: Ctx, state: State, request: AuthorizeRequest, decision: 'approve' | 'deny', orgId: string, status: 302 | 303) {
  if (decision === 'deny') {
    return c.redirect(redirectTo(request.redirect_uri, { error: 'access_denied', state: request.state, iss: issuerOf(state, c.req.url) }), status);
  }
  const code = issueCode(state, request, orgId);
  return c.redirect(redirectTo(request.redirect_uri, { code, state: request.state, iss: issuerOf(state, c.req.url) }), status);
}

/** The consent page: the app, the scopes asked, and the organizations the admin may choose. */
function consent(c: Ctx, state: State, s: Session, requestId: string, request: AuthorizeRequest) {
  const user = state.users.get(s.email!)!;
  const orgs = [...user.orgs].flatMap((id) => {
    const org = state.orgs.get(id);
    return org ? [{ id: org.id, name: org.name }] : [];
  });
  if (orgs.length === 0) return page(c, errorPage('No organization', 'You are not an admin of any organization.'), 403);
  const appName = state.apps.get(request.client_id)?.name ?? request.client_id;
  return page(c, consentPage({ csrf: s.csrf, request: requestId, appName, email: user.email, scopes: request.scopes, orgs }));
}

/** The pending request a form refers to, after checking the session's CSRF token. */
async function formRequest(c: Ctx, state: State) {
  const s = session(c, state);
  // Only the forms' own encoding, read with a cap and parsed without trusting it: odd input is an error page, never a 500.
  const type = c.req.header('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) {
    return { error: page(c, errorPage('Unsupported form', 'This form must be sent as application/x-www-form-urlencoded.'), 415) };
  }
  let form: URLSearchParams;
  try {
    const raw = await readBody(c, FORM_BODY_LIMIT);
    form = new URLSearchParams(new TextDecoder('utf-8', { fatal: true }).decode(raw));
  } catch (error) {
    if (error instanceof HttpError && error.status === 413) {
      return { error: page(c, errorPage('Form too large', `The form is larger than ${FORM_BODY_LIMIT} bytes.`), 413) };
    }
    return { error: page(c, errorPage('Unreadable form', 'The form could not be read. Start again from the app.'), 400) };
  }
  const field = (name: string) => form.get(name) ?? '';
  if (!field('csrf') || !sameSecret(field('csrf'), s.csrf)) {
    return { error: page(c, errorPage('Form expired', 'This form is no longer valid (CSRF check failed). Start again from the app.'), 403) };
  }
  const requestId = field('request');
  const request = state.authorizeRequests.get(requestId);
  if (!request || state.clock.now() > request.created_at + AUTHORIZE_TTL_MS) {
    return { error: page(c, errorPage('Request expired', 'This authorization request is no longer pending. Start again from the app.'), 400) };
  }
  return { s, field, requestId, request };
}

/** GET /oauth/authorize: the app and its request checked, then sign-in or consent (or a pre-arranged decision). */
function startAuthorize(c: Ctx, state: State) {
  const q = (name: string) => c.req.query(name) ?? null;
  const clientId = q('client_id');
  const client = clientId ? state.apps.get(clientId) : undefined;
  if (!client) return page(c, errorPage('Unknown app', `No app has the client id ${clientId ?? '(none)'}.`), 400);
  const redirectUri = q('redirect_uri');
  if (!redirectUri || !redirectMatches(client.redirect_uris, redirectUri)) {
    return page(c, errorPage('Invalid redirect URI', `${redirectUri ?? '(none)'} is not registered for ${client.name}.`), 400);
  }
  const appState = q('state');
  const fail = (error: string, description: string) =>
    c.redirect(redirectTo(redirectUri, { error, error_description: description, state: appState, iss: issuerOf(state, c.req.url) }), 302);

  const responseType = q('response_type');
  if (responseType !== null && responseType !== 'code') return fail('unsupported_response_type', 'only response_type=code is supported');
  const scopeParam = q('scope');
  // The scope parameter is optional: when omitted, all scopes are asked for (docs/contract.md "Authorize").
  const asked = scopeParam === null ? [...SCOPES] : scopeParam.split(' ').filter(Boolean);
  const unknown = asked.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0 || asked.length === 0) return fail('invalid_scope', `unknown scope: ${unknown.join(' ') || '(empty)'}`);
  const challenge = q('code_challenge');
  // PKCE is required, and only S256 (RFC 7636 §4.3; a missing method would mean "plain").
  if (challenge === null) return fail('invalid_request', 'code_challenge is required (PKCE)');
  if (q('code_challenge_method') !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256');
  if (!/^[A-Za-z0-9\-_]{43}$/.test(challenge)) return fail('invalid_request', 'code_challenge must be BASE64URL(SHA256(verifier))');

  const request: AuthorizeRequest = {
    client_id: client.client_id,
    redirect_uri: redirectUri,
    scopes: [...new Set(asked)] as Scope[],
    state: appState,
    code_challenge: challenge,
    created_at: state.clock.now(),
  };
  // A pre-arranged decision (POST /_emulator/approvals) answers at once, as if the admin clicked.
  const approval = state.approvals.shift();
  if (approval) return decide(c, state, request, approval.decision, approval.org_id, 302);

  const requestId = randomToken(16);
  keepBounded(state.authorizeRequests, state.limits.authorizeRequests - 1, state.clock.now());
  state.authorizeRequests.set(requestId, request);
  const s = session(c, state);
  if (s.email) return consent(c, state, s, requestId, request);
  return page(c, signInPage({ csrf: s.csrf, request: requestId, appName: client.name }));
}

export function authorizeRoutes(app: Hono<EmulatorEnv>, state: State): void {
  app.get('/oauth/authorize', (c) => startAuthorize(c, state));

  app.post('/oauth/authorize/signin', async (c) => {
    const form = await formRequest(c, state);
    if ('error' in form) return form.error;
    const { s, field, requestId, request } = form;
    const user = state.users.get(field('email'));
    if (!user || !passwordMatches(field('password'), user.password_scrypt)) {
      const appName = state.apps.get(request.client_id)?.name ?? request.client_id;
      return page(c, signInPage({ csrf: s.csrf, request: requestId, appName, email: field('email'), error: 'Wrong email or password.' }), 401);
    }
    s.email = user.email;
    return consent(c, state, s, requestId, request);
  });

  app.post('/oauth/authorize/decision', async (c) => {
    const form = await formRequest(c, state);
    if ('error' in form) return form.error;
    const { s, field, requestId, request } = form;
    if (!s.email) return page(c, errorPage('Not signed in', 'Sign in first. Start again from the app.'), 401);
    const decision = field('decision');
    if (decision !== 'approve' && decision !== 'deny') return page(c, errorPage('No decision', 'Choose Approve or Deny.'), 400);
    const orgId = field('org_id');
    if (decision === 'approve' && !state.users.get(s.email)?.orgs.has(orgId)) {
      return page(c, errorPage('Not an admin', 'You are not an admin of that organization.'), 403);
    }
    state.authorizeRequests.delete(requestId);
    // 303: the browser follows a form POST's answer with a GET.
    return decide(c, state, request, decision, orgId, 303);
  });
}
