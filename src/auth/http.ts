// The small slice of `fetch` the OAuth requests need. Taking it as a parameter keeps
// these protocol steps free of any particular HTTP client (global fetch, undici, ctx.http).
import { CliError } from '../errors.js';
import { snippet } from '../io/sanitize.js';
import { connectionError } from '../api/network.js';

export interface FetchInit {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

export interface FetchResponse {
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  text(): Promise<string>;
}

export type FetchLike = (url: string, init: FetchInit) => Promise<FetchResponse>;

/** Why an OAuth step failed; each kind maps to one exit code at the command's edge. */
export type OAuthFailureKind =
  /** RFC 6749 §5.2 error answered by the token endpoint (e.g. invalid_grant). */
  | 'oauth'
  /** The server answered something that does not follow the protocol. */
  | 'invalid_response'
  /** No answer at all. (A transport's failure comes as src/api/network.ts's ConnectionError; kept for fetches of other kinds.) */
  | 'network';

export class OAuthStepError extends Error {
  override readonly name = 'OAuthStepError';
  constructor(
    readonly kind: OAuthFailureKind,
    message: string,
    readonly details: {
      status?: number;
      oauthError?: string;
      cause?: unknown;
      retryAfter?: string | null;
      /** Tokens of a 200 answer svc refused: issued at the server, to be revoked. */
      issued?: { refresh_token?: string; access_token?: string };
    } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
  }
}

/** Sends a request, turning a transport failure into OAuthStepError('network'). */
export async function send(fetchLike: FetchLike, url: string, init: FetchInit): Promise<{ status: number; body: string; headers: FetchResponse['headers'] }> {
  let response: FetchResponse;
  let body: string;
  try {
    response = await fetchLike(url, init);
    body = await response.text();
  } catch (cause) {
    if (init.signal?.aborted) throw cause; // Ctrl-C is not a network failure
    // The transport's own verdicts (a connection that failed, the deadline, a size limit, an
    // unsendable header) are already worded; anything else through the one mapping of every command.
    if (cause instanceof CliError) throw cause;
    throw await connectionError(cause, { url: new URL(url), reached: true });
  }
  if (response.status >= 300 && response.status < 400) {
    // Never followed: a form with a refresh token or a code must not go where a server points.
    const location = response.headers.get('location');
    const target = location && URL.canParse(location, url) ? new URL(location, url).origin : 'no valid Location';
    throw new OAuthStepError(
      'invalid_response',
      `${new URL(url).origin} answered with a redirect (${response.status}) to ${target}, which svc does not follow`,
      { status: response.status },
    );
  }
  return { status: response.status, body, headers: response.headers };
}

/** "answered 200 with text/html: "<!doctype html>…"": what came instead of the JSON expected. */
export function describeAnswer(status: number | undefined, contentType: string | null | undefined, body: string): string {
  const type = contentType || 'no content type';
  return `${status !== undefined ? `answered ${status} with ` : 'answered '}${type.includes('json') ? 'JSON that does not parse' : type}${body ? `: "${snippet(body)}"` : ' and an empty body'}`;
}

/** Parses a JSON object body, or throws OAuthStepError('invalid_response') naming the endpoint and what it answered instead. */
export function parseJsonObject(body: string, what: string, answer?: { status: number; headers: FetchResponse['headers'] }): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new OAuthStepError(
      'invalid_response',
      `${what} did not answer JSON: it ${describeAnswer(answer?.status, answer?.headers.get('content-type'), body)}`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new OAuthStepError('invalid_response', `${what} did not answer a JSON object`);
  }
  return value as Record<string, unknown>;
}
