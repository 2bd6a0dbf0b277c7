// The one-shot loopback redirect server of RFC 8252 §7.3: 127.0.0.1 (not "localhost",
// §8.3), any free port unless one is asked for, path /callback. It ends the wait only for
// the callback carrying this login's state; everything else gets a 400 page.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { CLI_REDIRECT_PATH } from '../contract/constants.js';
import { interpretCallback, type CallbackOutcome, type ExpectedIssuer } from './callback.js';

export interface LoopbackOptions {
  expectedState: string;
  /** RFC 9207: the issuer whose answer this login waits for. */
  expectedIssuer?: ExpectedIssuer;
  /** 0 (default) lets the OS choose a free port. */
  port?: number;
  host?: string;
  path?: string;
}

export interface LoopbackServer {
  /** The redirect_uri to send to the authorize endpoint. */
  readonly redirectUri: string;
  readonly port: number;
  /** Settles with the first callback that carries the expected state. */
  readonly outcome: Promise<CallbackOutcome>;
  /** Stops listening and drops every connection; safe to call more than once. */
  close(): Promise<void>;
}

export class PortInUseError extends Error {
  override readonly name = 'PortInUseError';
  constructor(
    readonly host: string,
    readonly port: number,
  ) {
    super(`port ${port} on ${host} is already in use`);
  }
}

export async function startLoopbackServer(options: LoopbackOptions): Promise<LoopbackServer> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? CLI_REDIRECT_PATH;
  const sockets = new Set<Socket>();
  let settle!: (outcome: CallbackOutcome) => void;
  const outcome = new Promise<CallbackOutcome>((resolve) => (settle = resolve));
  let settled = false;
  let closing: Promise<void> | undefined;

  const server = createServer((request, response) => {
    const result = handle(request, path, options.expectedState, options.expectedIssuer);
    // Always end the response before the server may close, so the browser shows the page.
    respond(response, result.status, result.page, () => {
      if (result.outcome && !settled) {
        settled = true;
        settle(result.outcome);
        void close();
      }
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(error.code === 'EADDRINUSE' || error.code === 'EACCES' ? new PortInUseError(host, options.port ?? 0) : error);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(options.port ?? 0, host);
  });

  const port = (server.address() as AddressInfo).port;
  const hostInUri = host.includes(':') ? `[${host}]` : host;

  function close(): Promise<void> {
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve());
      // Browsers keep idle (and speculative) connections open; they must not hold us up.
      for (const socket of sockets) socket.destroy();
      server.closeAllConnections();
    });
    return closing;
  }

  return { redirectUri: `http://${hostInUri}:${port}${path}`, port, outcome, close };
}

interface Handled {
  status: number;
  page: string;
  outcome?: CallbackOutcome;
}

function handle(request: IncomingMessage, path: string, expectedState: string, expectedIssuer?: ExpectedIssuer): Handled {
  const url = new URL(request.url ?? '/', 'http://loopback.invalid');
  if (request.method !== 'GET' || url.pathname !== path) {
    return { status: 400, page: page('Not the sign-in callback', 'This address only answers the sign-in callback of svc login.') };
  }
  const outcome = interpretCallback(url.searchParams, expectedState, expectedIssuer);
  switch (outcome.kind) {
    case 'foreign':
      return { status: 400, page: page('Not this sign-in', `This request was ignored: ${outcome.reason}. svc login is still waiting.`) };
    case 'code':
      return { status: 200, page: page('Signed in', 'svc received the authorization. You can close this tab and return to the terminal.'), outcome };
    case 'denied':
      return { status: 200, page: page('Sign-in refused', 'The admin refused the request. You can close this tab.'), outcome };
    case 'wrong_issuer':
      return {
        status: 400,
        page: page(
          'Sign-in not used',
          `This answer came from ${outcome.got ?? 'a server that did not name itself'}, not from ${outcome.expected}, where svc login started. ` +
            'svc did not use it. You can close this tab; the terminal says more.',
        ),
        outcome,
      };
    case 'error':
      return {
        status: 200,
        page: page(
          'Sign-in failed',
          `The service answered: ${outcome.error}${outcome.description ? ` (${outcome.description})` : ''}. You can close this tab.`,
        ),
        outcome,
      };
  }
}

function respond(response: ServerResponse, status: number, html: string, done: () => void): void {
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    // The page echoes nothing executable, and may not load anything either.
    'content-security-policy': "default-src 'none'",
    'referrer-policy': 'no-referrer',
    connection: 'close',
  });
  response.end(html, done);
}

/** A plain page; every text passes through escapeHtml because some of it is echoed from the request. */
function page(title: string, text: string): string {
  return (
    `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
    `<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>`
  );
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
