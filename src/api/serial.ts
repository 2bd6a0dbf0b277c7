// One keep-alive HTTP/1.1 connection to one origin over plain http, one request at a time:
// - `post`: `--forward-to` deliveries, which must arrive in order: a POST written as one
//   buffer, the answer's status read and its body dropped;
// - `request`: any short request of the transport's (src/api/http.ts), answered with its
//   status, headers and a body stream as soon as the head is in.
//
// Why not node:http: its per-request machinery (ClientRequest, the agent's pool, streams,
// listeners, AbortSignal.any) costs about as much as the loopback round trip itself. On a
// 2-core machine a sequential keep-alive loop through node:http (or undici's Client) tops
// out near 3,900 requests/s, the same loop on a socket near 7,000; and loading node:http
// and running its first request is about a fifth of a short command's start-up on Node 26.
// Used only where node:http would have gone straight to the address (plain http, no proxy
// variable); https, proxies and event streams keep the general path.
import type { Socket } from 'node:net';
import { UsageError } from '../errors.js';
import { lazyRequire } from '../node-require.js';
import { DeadlineError } from './limits.js';

export interface SerialConnection {
  /**
   * POSTs `body` with `headers` (plus host, user-agent, content-length and connection) and
   * resolves with the answer's status once its body has been read and dropped. A network
   * failure rejects as the general transport's does (a TypeError whose `cause` is the
   * socket's error); an abort of `signal` rejects with an AbortError whose `cause` is the
   * signal's reason. One request at a time.
   */
  post(body: string, headers: Readonly<Record<string, string>>, signal: AbortSignal): Promise<number>;
  /**
   * Sends `method target` (a path and query) with `headers` (plus host, content-length and
   * connection) and resolves with the answer once its head is in; the body follows on
   * `body`, which ends when the answer does. Before the head, a network failure rejects with
   * the socket's error as node:http would (the caller shapes it), an abort with an
   * AbortError; after it, either destroys the body with that error. Destroying the body
   * drops the connection. One request at a time (`busy` says so).
   */
  request(
    method: string,
    target: string,
    headers: Readonly<Record<string, string>>,
    body: string | Uint8Array | undefined,
    signal?: AbortSignal,
  ): Promise<SerialAnswer>;
  /** A request is under way, its answer not yet read to its end. */
  readonly busy: boolean;
  /** Closes the connection (a request under way fails); a later request connects again. */
  close(): void;
}

/** An answer to `request`, as node:http's IncomingMessage offers it. */
export interface SerialAnswer {
  status: number;
  /** The reason phrase the server sent, printable ASCII only. */
  statusText: string;
  /** Lower-case names; a repeated header's values joined with ", ", set-cookie's kept apart. */
  headers: Record<string, string | string[]>;
  body: AnswerBody;
}

export interface SerialOptions {
  userAgent: string;
  /** The whole exchange, connecting to the body's last byte (SVC_HTTP_TIMEOUT). */
  deadlineMs: number;
  connectTimeoutMs: number;
  /** Silence while an answer is awaited (undici's headers timeout), and while it is read unless `bodyIdleTimeoutMs` is given. */
  idleTimeoutMs: number;
  /** Silence between the body's bytes (undici's body timeout). */
  bodyIdleTimeoutMs?: number;
}

/** Bytes of an answer's body read (and dropped) to keep the connection; past it the connection is closed instead. */
export const ANSWER_READ_LIMIT = 64 * 1024;
/** A status line and headers longer than this are not an HTTP answer svc reads. */
const MAX_HEAD_BYTES = 64 * 1024;

/** What Node's http accepts in a header value (RFC 9110 §5.5 field-value, plus obs-text). */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Set by the connection itself. */
const OWN_HEADERS = new Set(['host', 'content-length', 'connection', 'transfer-encoding']);

/** A monotonic clock in ms. (The global `performance` loads node:perf_hooks on first use, ~1 ms of a short command.) */
const monotonicMs = (): number => process.uptime() * 1000;

/** Methods node:http sends without a Content-Length when there is no body. */
const BODILESS_METHODS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE']);

const CRLFCRLF = Buffer.from('\r\n\r\n', 'latin1');

function codedError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

function abortError(reason: unknown): Error {
  return Object.assign(new Error('The operation was aborted', { cause: reason }), { name: 'AbortError', code: 'ABORT_ERR' });
}

/** The request in flight: where its answer is in the reading, and how it settles. */
interface Pending {
  /** post: settled with the status once the body is dropped; a failure rejects it as a TypeError. */
  resolve(status: number): void;
  reject(error: unknown): void;
  /** request: the answer handed out at its head, its body fed as it is read. */
  answer?: { resolve(answer: SerialAnswer): void; headOnly: boolean; body?: AnswerBody };
  signal: AbortSignal | undefined;
  /** monotonicMs() when it was sent, and when a byte of it last went out or of its answer came in. */
  startedAt: number;
  activeAt: number;
  /** 0 until the status line of the final (non-1xx) answer is read. */
  status: number;
  keepAlive: boolean;
  /** 'length': `remaining` bytes left; 'chunked': see `chunk`; 'close': until the server closes. */
  body: 'length' | 'chunked' | 'close';
  remaining: number;
  /** Chunked bodies: reading a size line, a chunk's data, the CRLF after it, or the trailer. */
  chunk: 'size' | 'data' | 'crlf' | 'trailer';
  bodyRead: number;
}

/** Where reads land; what is kept past a read (a split head) is copied out. */
const READ_BUFFER_BYTES = 64 * 1024;

/** Bytes of an answer's body held for its reader; past this the socket pauses until the reader catches up. */
const BODY_HIGH_WATER_BYTES = 64 * 1024;

type BodyEvent = 'error' | 'end' | 'close';

/**
 * The body of an answer to `request`, as it arrives: what the transport's callers used of
 * node:stream's Readable (async iteration, `destroy`, the 'error', 'end' and 'close'
 * events) without its machinery, a millisecond of a short command's start-up. 'end' and
 * 'close' come when the last byte is in; a destroyed body's reader gets the error it was
 * destroyed with.
 */
export class AnswerBody implements AsyncIterable<Uint8Array> {
  private readonly chunks: Buffer[] = [];
  private buffered = 0;
  /** A push said the source should pause; the reader catching up says it may go on. */
  private paused = false;
  private state: 'open' | 'ended' | 'destroyed' = 'open';
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private readonly listeners: Array<{ event: BodyEvent; listener: (error?: Error) => void; once: boolean }> = [];

  constructor(
    /** The reader has caught up: the source may go on. */
    private readonly onDrained: () => void,
    /** Destroyed before its end: the source stops. */
    private readonly onAbandoned: () => void,
  ) {}

  /** Adds bytes; false when the reader is behind and the source should pause. */
  push(chunk: Buffer): boolean {
    if (this.state !== 'open') return true;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    this.notify();
    if (this.buffered < BODY_HIGH_WATER_BYTES) return true;
    this.paused = true;
    return false;
  }

  /** The last byte is in. */
  end(): void {
    if (this.state !== 'open') return;
    this.state = 'ended';
    this.notify();
    this.emit('end');
    this.emit('close');
  }

  destroy(error?: Error): this {
    if (this.state === 'destroyed') return this;
    const abandoned = this.state === 'open';
    this.state = 'destroyed';
    this.chunks.length = 0;
    this.buffered = 0;
    this.failure = error ?? codedError('Premature close', 'ERR_STREAM_PREMATURE_CLOSE');
    this.notify();
    if (abandoned) this.onAbandoned();
    if (error) this.emit('error', error);
    if (abandoned) this.emit('close'); // (an ended body has had its 'close')
    return this;
  }

  on(event: BodyEvent, listener: (error?: Error) => void): this {
    this.listeners.push({ event, listener, once: false });
    return this;
  }

  once(event: BodyEvent, listener: (error?: Error) => void): this {
    this.listeners.push({ event, listener, once: true });
    return this;
  }

  private emit(event: BodyEvent, error?: Error): void {
    for (const entry of [...this.listeners]) {
      if (entry.event !== event) continue;
      if (entry.once) this.listeners.splice(this.listeners.indexOf(entry), 1);
      entry.listener(error);
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return {
      next: async (): Promise<IteratorResult<Uint8Array>> => {
        for (;;) {
          const chunk = this.chunks.shift();
          if (chunk) {
            this.buffered -= chunk.length;
            if (this.paused && this.buffered < BODY_HIGH_WATER_BYTES) {
              this.paused = false;
              if (this.state === 'open') this.onDrained();
            }
            return { value: chunk, done: false };
          }
          if (this.state === 'destroyed') throw this.failure;
          if (this.state === 'ended') return { value: undefined, done: true };
          await new Promise<void>((resolve) => (this.wake = resolve));
        }
      },
      // A reader that stops early (break, throw) is done with it, as with a Readable.
      return: async (): Promise<IteratorResult<Uint8Array>> => {
        this.destroy();
        return { value: undefined, done: true };
      },
    };
  }
}

export function openSerialConnection(url: URL, options: SerialOptions): SerialConnection {
  if (url.protocol !== 'http:') throw new Error(`a serial connection is plain http only (got ${url.protocol})`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || 80);
  const hostLine = `host: ${url.host}\r\n`;
  const bodyIdleTimeoutMs = options.bodyIdleTimeoutMs ?? options.idleTimeoutMs;

  let socket: Socket | null = null;
  let readBuffer: Buffer | undefined;
  let pending: Pending | null = null;
  /** Bytes of the answer not yet consumed (a head or a chunk line split across reads), copied. */
  let held: Buffer | null = null;
  /** The signals this connection listens to (a caller passes the same one request after request). */
  const listening = new WeakSet<AbortSignal>();

  // One timer for the deadline and the silence limit, armed at most once at a time and
  // re-armed for what is left when it fires early: no timer work per request.
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (ms: number) => {
    timer = setTimeout(check, Math.max(1, Math.ceil(ms)));
    timer.unref();
  };
  const idleLimit = (p: Pending) => (p.status ? bodyIdleTimeoutMs : options.idleTimeoutMs);
  const check = () => {
    timer = undefined;
    const p = pending;
    if (!p) return;
    const now = monotonicMs();
    const deadlineLeft = p.startedAt + options.deadlineMs - now;
    const idleLeft = p.activeAt + idleLimit(p) - now;
    if (deadlineLeft <= 0) return expire(p, new DeadlineError(url.origin, options.deadlineMs));
    if (idleLeft <= 0) {
      if (!p.status) return fail(codedError(`no answer within ${options.idleTimeoutMs / 1000} s`, 'UND_ERR_HEADERS_TIMEOUT'));
      return fail(p.answer ? codedError('the answer stalled', 'UND_ERR_BODY_TIMEOUT') : undefined);
    }
    arm(Math.min(deadlineLeft, idleLeft));
  };

  const connect = (): Socket => {
    readBuffer ??= Buffer.allocUnsafe(READ_BUFFER_BYTES);
    const s: Socket = lazyRequire('node:net').connect({
      host,
      port,
      noDelay: true,
      keepAlive: true,
      keepAliveInitialDelay: 1000,
      // Reads go straight to this callback: no stream machinery per answer.
      onread: {
        buffer: readBuffer,
        callback: (bytes: number, buffer: Uint8Array) => {
          if (s === socket) onData(buffer as Buffer, bytes);
          return true; // keep reading (a body its reader has not caught up with pauses the socket)
        },
      },
    });
    const connectTimer = setTimeout(
      () => s.destroy(codedError(`could not connect within ${options.connectTimeoutMs / 1000} s`, 'UND_ERR_CONNECT_TIMEOUT')),
      options.connectTimeoutMs,
    );
    s.once('connect', () => clearTimeout(connectTimer));
    s.on('error', (error) => {
      clearTimeout(connectTimer);
      if (s === socket) fail(error);
    });
    // The server closed (or half-closed: nothing more will be read) the connection.
    const onGone = () => {
      clearTimeout(connectTimer);
      if (s !== socket) return;
      const p = pending;
      if (p && p.status && p.body === 'close') return done(false);
      fail(codedError('socket hang up', 'ECONNRESET'));
    };
    s.on('end', onGone);
    s.on('close', onGone);
    return s;
  };

  /** Forgets the socket (the next request opens another). */
  const drop = () => {
    const s = socket;
    socket = null;
    held = null;
    s?.destroy();
  };

  const settle = (): Pending => {
    const p = pending!;
    pending = null;
    return p;
  };

  /** The answer is complete: its status counts; the socket stays for the next request when it may. */
  const done = (keep: boolean) => {
    const p = settle();
    if (keep && held === null) {
      // Reading again if a body its reader had not caught up with paused it: the next
      // answer on this connection, or the server closing it, must be seen.
      socket?.resume();
      socket?.unref();
    } else drop();
    if (p.answer) p.answer.body!.end();
    else p.resolve(p.status);
  };

  /**
   * The exchange broke (`error`, or undefined: a silence after the status of a dropped body).
   * post: once a status is in, the rest of the body does not matter (as the general path
   * drops a body that fails): the status stands; before that, the request failed.
   * request: the body fails with the error once the head is in; before, the request does.
   */
  const fail = (error: unknown) => {
    drop();
    if (!pending) return;
    const p = settle();
    if (p.answer) {
      if (p.answer.body) p.answer.body.destroy(error instanceof Error ? error : codedError('aborted', 'ECONNRESET'));
      else p.reject(error);
    } else if (p.status) p.resolve(p.status);
    else p.reject(new TypeError('request failed', { cause: error }));
  };

  /** The deadline passed, or the caller aborted: the request ends with `error` (a post's status, once in, stands). */
  const expire = (p: Pending, error: Error) => {
    drop();
    if (pending !== p) return;
    settle();
    if (p.answer?.body) p.answer.body.destroy(error);
    else if (p.status && !p.answer && error.name !== 'AbortError') p.resolve(p.status);
    else p.reject(error);
  };

  const onAbort = (event: Event) => {
    const signal = event.target as AbortSignal;
    const p = pending;
    if (p && p.signal === signal) expire(p, abortError(signal.reason));
  };

  /** Body bytes: a post's are counted and dropped, a request's copied to its body (the read buffer is reused). */
  const deliver = (p: Pending, data: Buffer, at: number, take: number) => {
    p.bodyRead += take;
    const body = p.answer?.body;
    if (body && take > 0 && !body.push(Buffer.from(data.subarray(at, at + take)))) socket?.pause();
  };

  const onData = (chunk: Buffer, bytes: number) => {
    const p = pending;
    if (!p) {
      // Nothing was asked: a server that talks out of turn is not one to reuse.
      drop();
      return;
    }
    p.activeAt = monotonicMs();
    const data = held ? Buffer.concat([held, chunk.subarray(0, bytes)]) : chunk;
    const length = held ? data.length : bytes;
    held = null;
    let at = 0;
    while (at < length || (p.status && p.body === 'length' && p.remaining === 0)) {
      if (!p.status) {
        const end = data.indexOf(CRLFCRLF, at);
        if (end < 0 || end + 4 > length) {
          if (length - at > MAX_HEAD_BYTES) return fail(codedError('the answer has no end to its headers', 'HPE_HEADER_OVERFLOW'));
          held = Buffer.from(data.subarray(at, length));
          return;
        }
        const error = readHead(p, data.toString('latin1', at, end));
        if (error) return fail(error);
        at = end + 4;
        if (pending !== p) return; // the answer's reader gave up at once
        continue;
      }
      if (p.body === 'length') {
        const take = Math.min(p.remaining, length - at);
        p.remaining -= take;
        deliver(p, data, at, take);
        at += take;
        if (p.remaining === 0) {
          // Anything after the answer was not asked for.
          return done(p.keepAlive && at === length);
        }
      } else if (p.body === 'close') {
        deliver(p, data, at, length - at);
        at = length;
      } else if (p.chunk === 'data') {
        const take = Math.min(p.remaining, length - at);
        p.remaining -= take;
        deliver(p, data, at, take);
        at += take;
        if (p.remaining === 0) {
          p.chunk = 'crlf';
          p.remaining = 2;
        }
      } else if (p.chunk === 'crlf') {
        const take = Math.min(p.remaining, length - at);
        p.remaining -= take;
        at += take;
        if (p.remaining === 0) p.chunk = 'size';
      } else {
        // A size line, or a trailer line: whole lines only.
        const eol = data.indexOf('\r\n', at, 'latin1');
        if (eol < 0 || eol + 2 > length) {
          if (length - at > 8192) return fail(codedError('a chunk line too long', 'HPE_CHUNK_SIZE'));
          held = Buffer.from(data.subarray(at, length));
          break;
        }
        const line = data.toString('latin1', at, eol);
        at = eol + 2;
        if (p.chunk === 'trailer') {
          if (line === '') return done(p.keepAlive && at === length);
        } else {
          const size = /^[0-9a-fA-F]{1,12}/.exec(line);
          if (!size) return fail(codedError('Parse Error: Invalid character in chunk size', 'HPE_INVALID_CHUNK_SIZE'));
          p.remaining = parseInt(size[0], 16);
          p.chunk = p.remaining === 0 ? 'trailer' : 'data';
        }
      }
      if (pending !== p) return; // the answer's reader gave up (its body destroyed)
      if (!p.answer && p.bodyRead > ANSWER_READ_LIMIT) {
        // Too long to drain: the status is what counts; the connection goes.
        return done(false);
      }
    }
  };

  /** Reads a status line and headers; a 1xx is skipped (the final answer follows). A request's answer is handed out here. */
  const readHead = (p: Pending, head: string): Error | undefined => {
    const lines = head.split('\r\n');
    const statusLine = /^HTTP\/1\.([01]) (\d{3})(?: (.*)|$)/.exec(lines[0]!);
    if (!statusLine) return codedError('Parse Error: Expected HTTP/', 'HPE_INVALID_CONSTANT');
    const status = Number(statusLine[2]);
    if (status < 200 && status !== 101) return undefined;
    let length: number | undefined;
    let chunked = false;
    let connection = '';
    const headers: Record<string, string | string[]> = {};
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(':');
      if (colon <= 0) return codedError('Parse Error: Invalid header token', 'HPE_INVALID_HEADER_TOKEN');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') {
        if (!/^\d+$/.test(value) || (length !== undefined && length !== Number(value)))
          return codedError('Parse Error: Invalid Content-Length', 'HPE_INVALID_CONTENT_LENGTH');
        length = Number(value);
      } else if (name === 'transfer-encoding') chunked = /(?:^|,)\s*chunked\s*$/i.test(value);
      else if (name === 'connection') connection += `,${value.toLowerCase()}`;
      if (p.answer) {
        const before = headers[name];
        if (name === 'set-cookie') headers[name] = [...((before as string[] | undefined) ?? []), value];
        else if (name !== 'content-length' || before === undefined) headers[name] = before === undefined ? value : `${before as string}, ${value}`;
      }
    }
    p.status = status;
    p.keepAlive = statusLine[1] === '1' ? !/(?:^|,)\s*close\s*(?:,|$)/.test(connection) : /(?:^|,)\s*keep-alive\s*(?:,|$)/.test(connection);
    if (status === 101 || status === 204 || status === 304 || p.answer?.headOnly) {
      p.body = 'length';
      p.remaining = 0;
      if (status === 101) p.keepAlive = false;
    } else if (chunked) {
      p.body = 'chunked';
      p.chunk = 'size';
    } else if (length !== undefined) {
      p.body = 'length';
      p.remaining = length;
    } else {
      p.body = 'close';
      p.keepAlive = false;
    }
    if (p.answer) {
      const body = answerBody(p);
      p.answer.body = body;
      p.answer.resolve({ status, statusText: (statusLine[3] ?? '').replace(/[^\x20-\x7e]/g, ''), headers, body });
    }
    return undefined;
  };

  /** The body of a request's answer: its reader catching up resumes a paused socket; destroying it drops the connection. */
  const answerBody = (p: Pending): AnswerBody =>
    new AnswerBody(
      () => {
        if (pending === p) socket?.resume();
      },
      () => {
        if (pending === p) {
          settle();
          drop();
        }
      },
    );

  /** Writes one request: its head in Latin-1 (what Node's http sends), the body in UTF-8 or as given, in one buffer. */
  const send = (
    method: string,
    head: string,
    headers: Readonly<Record<string, string>>,
    body: string | Uint8Array | undefined,
    signal: AbortSignal | undefined,
    settlers: Pick<Pending, 'resolve' | 'reject' | 'answer'>,
  ): Error | undefined => {
    let userAgent = true;
    for (const name in headers) {
      const value = headers[name]!;
      const lower = name.toLowerCase();
      // Checked here, where it is a local mistake (exit 2), as the general path does.
      if (!HEADER_VALUE.test(value)) {
        return new UsageError(`the ${lower} header cannot be sent: its value holds a line break, a control character or a character beyond Latin-1`);
      }
      if (!HEADER_NAME.test(name)) return codedError(`Header name must be a valid HTTP token ["${name}"]`, 'ERR_INVALID_HTTP_TOKEN');
      if (OWN_HEADERS.has(lower)) continue;
      if (lower === 'user-agent') userAgent = false;
      head += `${lower}: ${value}\r\n`;
    }
    const bodyBytes = body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    if (userAgent) head += `user-agent: ${options.userAgent}\r\n`;
    // As node:http: a length for a body, and for a method that may carry one even when it has none.
    if (body !== undefined || !BODILESS_METHODS.has(method)) head += `content-length: ${bodyBytes}\r\n`;
    head += 'connection: keep-alive\r\n\r\n';
    const message = Buffer.allocUnsafe(head.length + bodyBytes);
    message.write(head, 0, 'latin1');
    if (typeof body === 'string') message.write(body, head.length, 'utf8');
    else if (body) message.set(body, head.length);

    if (signal && !listening.has(signal)) {
      listening.add(signal);
      signal.addEventListener('abort', onAbort, { once: true });
    }
    const now = monotonicMs();
    pending = {
      ...settlers,
      signal,
      startedAt: now,
      activeAt: now,
      status: 0,
      keepAlive: true,
      body: 'length',
      remaining: 0,
      chunk: 'size',
      bodyRead: 0,
    };
    if (!timer) arm(Math.min(options.deadlineMs, options.idleTimeoutMs));
    if (!socket || socket.destroyed) socket = connect();
    else socket.ref();
    socket.write(message);
    return undefined;
  };

  const postLine = `POST ${url.pathname}${url.search} HTTP/1.1\r\n${hostLine}`;
  return {
    post(body, headers, signal) {
      if (pending) return Promise.reject(new Error('a serial connection takes one request at a time'));
      if (signal.aborted) return Promise.reject(abortError(signal.reason));
      return new Promise<number>((resolve, reject) => {
        const refused = send('POST', postLine, headers, body, signal, { resolve, reject });
        if (refused) reject(refused instanceof UsageError ? refused : new TypeError('request failed', { cause: refused }));
      });
    },
    request(method, target, headers, body, signal) {
      if (pending) return Promise.reject(new Error('a serial connection takes one request at a time'));
      if (signal?.aborted) return Promise.reject(abortError(signal.reason));
      return new Promise<SerialAnswer>((resolve, reject) => {
        const answer = { resolve, headOnly: method === 'HEAD' };
        const refused = send(method, `${method} ${target} HTTP/1.1\r\n${hostLine}`, headers, body, signal, { resolve: () => {}, reject, answer });
        if (refused) reject(refused);
      });
    },
    get busy() {
      return pending !== null;
    },
    close() {
      fail(codedError('the connection was closed', 'ECONNRESET'));
    },
  };
}
