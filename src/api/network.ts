// What went wrong on the way to the service, in words a person can act on. Both transports (src/api/http.ts: Node's http/https, and undici behind
// a proxy) turn what their library threw into a ConnectionError here, the one mapping every
// command shares (svc login and svc doctor included), so no ECONNREFUSED, EPROTO, UND_ERR_*
// or OpenSSL string reaches the user; the raw code stays on the error for --debug.
import { NetworkError } from '../errors.js';
import { CertificateRefusedError, HeadersTooLargeError } from './limits.js';
import { lazyRequire } from '../node-require.js';

/** What happened to one try, as the user is told it. */
export type ConnectionFailure =
  /** Nothing listens at that address (ECONNREFUSED). */
  | 'refused'
  /** The host name does not resolve. */
  | 'no-host'
  /** The network has no route to it. */
  | 'unreachable'
  /** TCP did not connect in time. */
  | 'connect-timeout'
  /** An https:// address whose server answered the TLS handshake in plain http. */
  | 'not-https'
  /** An http:// address whose server speaks TLS. */
  | 'speaks-https'
  /** Another TLS handshake failure. */
  | 'tls'
  /** No answer's head in time (or, before the request could be sent, no finished handshake). */
  | 'no-answer'
  /** The connection ended before the whole answer came. */
  | 'dropped'
  /** The answer's body stopped arriving. */
  | 'stalled';

export interface FailureFacts {
  failure: ConnectionFailure;
  /** The origin asked (https://host:port). */
  origin: string;
  /**
   * The request may have reached the service: the connection (and over https its TLS
   * handshake) was made. False means nothing was sent, so any request may be repeated.
   */
  reached: boolean;
  /** The proxy the request went through, its password masked. */
  proxy?: string;
  /** The library's own code (ECONNRESET, EPROTO, UND_ERR_SOCKET…), for --debug only. */
  code?: string;
  /** For a timeout: how long was waited. */
  waitedMs?: number;
}

/** How a request ended after its tries: for the last words of the message. */
export interface TriedFacts {
  attempts: number;
  /** Not repeated because the request may have been processed (a POST that reached the service). */
  notRepeated?: boolean;
}

const SECONDS = (ms: number | undefined) => (ms === undefined ? '' : ` within ${ms % 1000 === 0 ? ms / 1000 : (ms / 1000).toFixed(1)} s`);

function hostPort(origin: string): string {
  return new URL(origin).host;
}

/** The message's clause after "cannot reach ORIGIN: ". */
function what(facts: FailureFacts): string {
  switch (facts.failure) {
    case 'refused':
      return 'nothing answered there (connection refused)';
    case 'no-host':
      return `no such host (${new URL(facts.origin).hostname} does not resolve)`;
    case 'unreachable':
      return 'the network has no route to it';
    case 'connect-timeout':
      return `no connection${SECONDS(facts.waitedMs)}`;
    case 'not-https':
      return 'the server there does not speak https (it answered in plain http)';
    case 'speaks-https':
      return 'the server there speaks https, not plain http';
    case 'tls':
      return 'the TLS handshake failed';
    case 'no-answer':
      return facts.reached ? `no answer${SECONDS(facts.waitedMs)}` : `the connection was made but the TLS handshake did not finish${SECONDS(facts.waitedMs)}`;
    case 'dropped':
      return facts.reached ? 'the connection ended before the answer' : 'the connection ended during the TLS handshake';
    case 'stalled':
      return `the answer stopped arriving (nothing more${SECONDS(facts.waitedMs)})`;
  }
}

function hint(facts: FailureFacts, tried: TriedFacts | undefined): string {
  if (tried?.notRepeated) return 'check whether it took effect (e.g. with the matching `list` command) before running it again';
  const address = 'the address (--base-url / SVC_BASE_URL)';
  switch (facts.failure) {
    case 'refused':
      return facts.proxy
        ? 'is the proxy running? check HTTPS_PROXY / HTTP_PROXY'
        : `is the service running? For the local emulator, start it with \`svc emulator\`; otherwise check ${address}`;
    case 'no-host':
    case 'unreachable':
    case 'connect-timeout':
      return `check ${address}, the network${facts.proxy ? ' and the proxy settings' : ''}`;
    case 'not-https':
      return `if it is a plain-http server (such as \`svc emulator\` without --https), use http://${hostPort(facts.origin)} as ${address}`;
    case 'speaks-https':
      return `use https://${hostPort(facts.origin)} as ${address}; for \`svc emulator --https\`, trust its CA with NODE_EXTRA_CA_CERTS=<the ca.pem its banner names>`;
    case 'tls':
      return `check ${address}, and any proxy or network that inspects TLS`;
    default:
      return `the service or the network may be down or slow: try again; check ${address}${facts.proxy ? ' and the proxy settings' : ''}`;
  }
}

/** A connection that failed, worded once for every command (exit 9). */
export class ConnectionError extends NetworkError {
  constructor(
    readonly facts: FailureFacts,
    readonly tried?: TriedFacts,
  ) {
    const through = facts.proxy ? ` through the proxy ${facts.proxy}` : '';
    const notes: string[] = [];
    if (tried && tried.attempts > 1) notes.push(`${tried.attempts} attempts`);
    if (!facts.reached) notes.push('nothing was sent');
    else if (tried?.notRepeated) notes.push('not repeated: the request may have been processed');
    super(`cannot reach ${facts.origin}${through}: ${what(facts)}${notes.length ? `; ${notes.join(', ')}` : ''}`, hint(facts, tried));
  }

  /** Another try may go better: not for a scheme that does not match the server's. */
  get retryable(): boolean {
    return this.facts.failure !== 'not-https' && this.facts.failure !== 'speaks-https' && this.facts.failure !== 'tls';
  }

  /** The same failure, with how the request's tries ended. */
  after(tried: TriedFacts): ConnectionError {
    return new ConnectionError(this.facts, tried);
  }
}

/** Codes of a connection never made: nothing reached a server. */
const NEVER_CONNECTED: Readonly<Record<string, ConnectionFailure>> = {
  ECONNREFUSED: 'refused',
  ENOTFOUND: 'no-host',
  EAI_AGAIN: 'no-host',
  EAI_NONAME: 'no-host',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  ETIMEDOUT: 'connect-timeout',
  UND_ERR_CONNECT_TIMEOUT: 'connect-timeout',
};

/** Codes of an exchange that broke after the connection was made. */
const AFTER_CONNECTING: Readonly<Record<string, ConnectionFailure>> = {
  ECONNRESET: 'dropped',
  EPIPE: 'dropped',
  ECONNABORTED: 'dropped',
  UND_ERR_SOCKET: 'dropped',
  UND_ERR_CLOSED: 'dropped',
  ERR_STREAM_PREMATURE_CLOSE: 'dropped',
  UND_ERR_HEADERS_TIMEOUT: 'no-answer',
  UND_ERR_BODY_TIMEOUT: 'stalled',
};

/** The code of a library's error: its own, its cause's, or the one all of a happy-eyeballs AggregateError's share. */
export function codeOf(error: unknown): string | undefined {
  const e = error as { code?: unknown; cause?: unknown; errors?: Array<{ code?: unknown }> } | null;
  if (typeof e?.code === 'string') return e.code;
  if (Array.isArray(e?.errors)) {
    const codes = new Set(e.errors.map((inner) => inner?.code));
    if (codes.size === 1) {
      const [only] = codes;
      if (typeof only === 'string') return only;
    }
  }
  return e?.cause ? codeOf(e.cause) : undefined;
}

function messageOf(error: unknown): string {
  const e = error as { message?: unknown; cause?: unknown } | null;
  return `${typeof e?.message === 'string' ? e.message : ''} ${e?.cause ? messageOf(e.cause) : ''}`;
}

/** OpenSSL's verdict on a TLS server that answered plain text ("wrong version number", "packet length too long"). */
const PLAIN_TEXT_ANSWER = /wrong version number|packet length too long|unknown protocol|http request/i;

export interface Where {
  url: URL;
  /** The connection (and TLS handshake) was made: the request may have reached the service. */
  reached: boolean;
  proxy?: string;
  /** How long the timed-out wait was, if it was one. */
  waitedMs?: number;
  /** The answer had begun (a body cut short): whatever answered speaks the address's scheme. */
  answered?: boolean;
}

/**
 * The svc error for what a transport's library threw. A certificate refused and headers too
 * large keep their own errors; anything unknown is a dropped connection (the code kept for
 * --debug). `speaksTls` asks, only after an http:// connection closed unanswered, whether the
 * server there speaks TLS.
 */
export async function connectionError(error: unknown, where: Where, speaksTls: (url: URL) => Promise<boolean> = probeTls): Promise<NetworkError> {
  if (error instanceof NetworkError) return error;
  const origin = where.url.origin;
  const code = codeOf(error);
  if (HeadersTooLargeError.is(error)) return new HeadersTooLargeError(origin);
  const certificate = CertificateRefusedError.codeOf(error);
  if (certificate) return new CertificateRefusedError(origin, certificate, where.proxy);
  const facts = (failure: ConnectionFailure, reached: boolean): ConnectionError =>
    new ConnectionError({
      failure,
      origin,
      reached,
      ...(where.proxy ? { proxy: where.proxy } : {}),
      ...(code ? { code } : {}),
      ...(where.waitedMs !== undefined ? { waitedMs: where.waitedMs } : {}),
    });
  const never = code ? NEVER_CONNECTED[code] : undefined;
  if (never) return facts(never, false);
  if (code === 'EPROTO' || code?.startsWith('ERR_SSL_') || code?.startsWith('ERR_TLS_')) {
    return facts(PLAIN_TEXT_ANSWER.test(messageOf(error)) || code === 'ERR_SSL_WRONG_VERSION_NUMBER' ? 'not-https' : 'tls', false);
  }
  const after = (code ? AFTER_CONNECTING[code] : undefined) ?? 'dropped';
  // A TLS server meeting plain http hangs up without a word: ask it, on this failure only.
  if (after === 'dropped' && where.url.protocol === 'http:' && !where.proxy && !where.answered && (await speaksTls(where.url)))
    return facts('speaks-https', false);
  return facts(after, where.reached);
}

/** Whether a TLS handshake succeeds at the URL's host and port (its certificate unchecked: nothing is sent over it). */
export function probeTls(url: URL, timeoutMs = 2000): Promise<boolean> {
  const { connect } = lazyRequire('node:tls');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(url.port || 80), rejectUnauthorized: false, ...(/^[\d.:]+$/.test(host) ? {} : { servername: host }) });
    const done = (speaks: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(speaks);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('secureConnect', () => done(true));
    socket.once('error', () => done(false));
  });
}
