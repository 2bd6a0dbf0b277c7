// Shared helpers of the emulator tests: a real emulator on port 0, reached over real HTTP.
// Starting it and its control plane are test/helpers/emulator.ts's; these delegate there.
import { createHash, randomBytes } from 'node:crypto';
import type { EmulatorOptions, RunningEmulator } from '../../src/emulator/index.js';
import { createParser } from 'eventsource-parser';
import type { EventSourceMessage } from 'eventsource-parser';
import { controlPlane, useTestEmulator } from '../helpers/emulator.js';

/** Starts one emulator for the file; each test resets it through the control plane when it needs a clean world. */
export function useEmulator(opts: EmulatorOptions = {}): () => RunningEmulator {
  const running = useTestEmulator(opts);
  return () => running().emulator;
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export async function call(
  emu: RunningEmulator,
  method: string,
  path: string,
  opts: { key?: string | undefined; json?: unknown; body?: string | Uint8Array; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body = opts.body;
  if (opts.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.json);
  }
  const response = await fetch(emu.url + path, { method, headers, body: (body ?? null) as never, redirect: 'manual' });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
}

export function resetSeed(emu: RunningEmulator): Promise<RunningEmulator['seed']> {
  return controlPlane(emu).reset();
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function form(params: Record<string, string>): { body: string; headers: Record<string, string> } {
  return { body: new URLSearchParams(params).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
}

/** Logs in without a browser: a pre-arranged approval, then the authorize URL with redirects off. */
export async function authorizeViaApproval(
  emu: RunningEmulator,
  opts: { clientId?: string; redirectUri?: string; scope?: string; orgId?: string; decision?: 'approve' | 'deny' } = {},
): Promise<{ location: URL; verifier: string; redirectUri: string; state: string }> {
  const { verifier, challenge } = pkcePair();
  const state = randomBytes(8).toString('hex');
  const redirectUri = opts.redirectUri ?? 'http://127.0.0.1:53682/callback';
  await controlPlane(emu).approve({ email: 'admin@acme.test', org_id: opts.orgId ?? emu.seed.org_id, decision: opts.decision ?? 'approve' });
  const query = new URLSearchParams({
    client_id: opts.clientId ?? 'svc_app_cli',
    redirect_uri: redirectUri,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...(opts.scope !== undefined ? { scope: opts.scope } : {}),
  });
  const answer = await call(emu, 'GET', `/oauth/authorize?${query}`);
  if (answer.status !== 302) throw new Error(`authorize answered ${answer.status}: ${answer.text}`);
  return { location: new URL(answer.headers.get('location')!), verifier, redirectUri, state };
}

export async function exchange(
  emu: RunningEmulator,
  code: string,
  verifier: string,
  redirectUri: string,
  client: { id: string; secret?: string | null } = { id: 'svc_app_cli' },
): Promise<Answer> {
  const params: Record<string, string> = { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUri };
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (client.secret) headers.authorization = `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`;
  else params.client_id = client.id;
  return call(emu, 'POST', '/oauth2/token', { body: new URLSearchParams(params).toString(), headers });
}

/** A full OAuth login for the CLI's public app; answers the token response. */
export async function login(emu: RunningEmulator, scope?: string): Promise<any> {
  const auth = await authorizeViaApproval(emu, scope === undefined ? {} : { scope });
  const answer = await exchange(emu, auth.location.searchParams.get('code')!, auth.verifier, auth.redirectUri);
  if (answer.status !== 200) throw new Error(`token answered ${answer.status}: ${answer.text}`);
  return answer.body;
}

/** Opens the authorize page like a browser: its session cookie, CSRF token, request id, and a poster for its forms. */
export async function openAuthorizePage(
  emu: RunningEmulator,
  opts: { redirectUri?: string; scope?: string; state?: string } = {},
): Promise<{
  html: string;
  cookie: string;
  csrf: string;
  request: string;
  verifier: string;
  redirectUri: string;
  field(html: string, name: string): string;
  post(path: string, params: Record<string, string>, init?: { cookie?: string | null; headers?: Record<string, string>; body?: string }): Promise<Response>;
}> {
  const { verifier, challenge } = pkcePair();
  const redirectUri = opts.redirectUri ?? 'http://127.0.0.1:40500/callback';
  const query = new URLSearchParams({
    client_id: 'svc_app_cli',
    redirect_uri: redirectUri,
    state: opts.state ?? 'st',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...(opts.scope !== undefined ? { scope: opts.scope } : {}),
  });
  const answer = await fetch(`${emu.url}/oauth/authorize?${query}`);
  const html = await answer.text();
  const cookie = answer.headers.get('set-cookie')!.split(';')[0]!;
  const field = (text: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(text)?.[1] ?? '';
  const post = (path: string, params: Record<string, string>, init: { cookie?: string | null; headers?: Record<string, string>; body?: string } = {}) => {
    const sendCookie = init.cookie === undefined ? cookie : init.cookie;
    return fetch(emu.url + path, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(sendCookie ? { cookie: sendCookie } : {}), ...init.headers },
      body: init.body ?? new URLSearchParams(params).toString(),
    });
  };
  return { html, cookie, csrf: field(html, 'csrf'), request: field(html, 'request'), verifier, redirectUri, field, post };
}

/** An open SSE connection to the emulator, parsed as it arrives. */
export interface OpenStream {
  status: number;
  headers: Headers;
  messages: EventSourceMessage[];
  comments: string[];
  /** The body as text so far (frames the parser dispatches nothing for, such as the position frame, show here). */
  text(): string;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  waitFor(predicate: () => boolean, ms?: number): Promise<void>;
  close(): void;
}

export async function openStream(url: string, key: string, headers: Record<string, string> = {}): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}`, ...headers }, signal: controller.signal });
  const messages: EventSourceMessage[] = [];
  const comments: string[] = [];
  const parser = createParser({ onEvent: (m) => messages.push(m), onComment: (c) => comments.push(c.trim()) });
  let text = '';
  const ended = (async () => {
    if (!response.body) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        const decoded = decoder.decode(chunk, { stream: true });
        text += decoded;
        parser.feed(decoded);
      }
    } catch {
      // aborted by close()
    }
  })();
  return {
    status: response.status,
    headers: response.headers,
    messages,
    comments,
    text: () => text,
    ended,
    async waitFor(predicate, ms = 10_000) {
      const deadline = Date.now() + ms;
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`timed out; have ${messages.length} messages`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    close: () => controller.abort(),
  };
}
