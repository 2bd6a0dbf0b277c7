// MCP's stdio framing (one JSON-RPC message a line) over the context's streams rather than
// the process's own: the SDK's StdioServerTransport reads process.stdin and writes
// process.stdout, which nothing below the process edge touches (docs/design.md). What JSON-RPC 2.0
// says a server answers is answered here: a line that is not JSON (-32700), a batch or an
// object that is no message (-32600), a known request's malformed params (-32602, in a line,
// not a schema dump), a line past MAX_MESSAGE_CHARS (-32600, with its id wherever it is; the
// line is never held whole), a request past MAX_IN_FLIGHT unanswered ones (-32000). When stdin ends, the server is told at
// once (oninputend: it ends its live calls first), and the requests in flight are answered before the transport closes.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Io } from '../io/io.js';

/** A message longer than this is refused unread (an assistant's largest honest call is a 5,000-character text). */
export const MAX_MESSAGE_CHARS = 1024 * 1024;
/**
 * Requests past this many unanswered are refused at once (-32000), so a flood holds no more
 * memory or audit lines than they do; lines are still read, so answers to svc's own questions
 * (elicitation) and cancellations get through.
 */
export const MAX_IN_FLIGHT = 128;

/** A line too long to read: its length, and the top-level id found as it went past. */
interface Oversized {
  oversized: number;
  id: string | number | null;
}

/**
 * Finds a JSON object's top-level `"id"` value as its text streams past, holding nothing but
 * the value itself: depth, string and escape state, the last key.
 */
class TopLevelId {
  private depth = 0;
  private inString = false;
  private escaped = false;
  private text = '';
  private key: string | null = null;
  private capturing: string | null = null;
  id: string | number | null = null;

  feed(chunk: string): void {
    for (const ch of chunk) {
      if (this.capturing !== null) {
        if (!this.inString && (ch === ',' || ch === '}') && this.depth === 1) this.finishCapture();
        else if (this.capturing.length < 200) this.capturing += ch;
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (ch === '\\') this.escaped = true;
        else if (ch === '"') this.inString = false;
        else if (this.depth === 1 && this.text.length < 8) this.text += ch;
        continue;
      }
      if (ch === '"') {
        this.inString = true;
        this.text = '';
      } else if (ch === '{' || ch === '[') this.depth += 1;
      else if (ch === '}' || ch === ']') this.depth -= 1;
      else if (ch === ':' && this.depth === 1) {
        this.key = this.text;
        if (this.key === 'id') this.capturing = '';
      }
    }
  }

  private finishCapture(): void {
    try {
      const value = JSON.parse(this.capturing!) as unknown;
      if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) this.id = value;
    } catch {
      // Not an id JSON-RPC allows: the answer's id is null.
    }
    this.capturing = null;
  }
}

/** stdin's lines, none held past `max` characters: a longer one is an Oversized. */
export async function* boundedLines(chunks: AsyncIterable<string>, max: number): AsyncGenerator<string | Oversized> {
  let line = '';
  let over: { length: number; scan: TopLevelId } | null = null;
  for await (const chunk of chunks) {
    let rest = chunk;
    for (;;) {
      const newline = rest.indexOf('\n');
      const piece = newline === -1 ? rest : rest.slice(0, newline);
      if (over) {
        over.length += piece.length;
        over.scan.feed(piece);
      } else if (line.length + piece.length > max) {
        over = { length: line.length + piece.length, scan: new TopLevelId() };
        over.scan.feed(line);
        over.scan.feed(piece);
        line = '';
      } else line += piece;
      if (newline === -1) break;
      yield over ? { oversized: over.length, id: over.scan.id } : line;
      line = '';
      over = null;
      rest = rest.slice(newline + 1);
    }
  }
  if (over) yield { oversized: over.length, id: over.scan.id };
  else if (line) yield line;
}

type Answer = (id: string | number | null, code: number, message: string) => Promise<void>;
type Id = string | number;

const isId = (value: unknown): value is Id => typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** A JSON-RPC 2.0 request, notification or response, by its shape (the SDK checks each method's own after). */
function isMessage(value: Record<string, unknown>): boolean {
  if (value.jsonrpc !== '2.0') return false;
  if (typeof value.method === 'string') return (value.id === undefined || isId(value.id)) && (value.params === undefined || isObject(value.params));
  return isId(value.id) && ('result' in value || isObject(value.error));
}

/**
 * What is wrong with a request's params, in a line, for the methods whose params the SDK would
 * otherwise refuse with a schema dump as an internal error; null when nothing is.
 */
function paramsProblem(value: Record<string, unknown>): string | null {
  const params = value.params;
  switch (value.method) {
    case 'tools/call':
      if (!isObject(params) || typeof params.name !== 'string') return "params.name: the tool's name, a string";
      if (params.arguments !== undefined && !isObject(params.arguments)) return "params.arguments: an object of the tool's inputs";
      return null;
    case 'tools/list':
      return isObject(params) && params.cursor !== undefined && typeof params.cursor !== 'string' ? 'params.cursor: a string' : null;
    case 'initialize':
      if (!isObject(params) || typeof params.protocolVersion !== 'string') return 'params.protocolVersion: a string';
      if (!isObject(params.capabilities)) return 'params.capabilities: an object';
      if (!isObject(params.clientInfo) || typeof params.clientInfo.name !== 'string' || typeof params.clientInfo.version !== 'string')
        return 'params.clientInfo: an object with a name and a version';
      return null;
    default:
      return null;
  }
}

/** A line as a message for the SDK, or null once it has been answered as JSON-RPC says. */
async function readMessage(line: string, answer: Answer): Promise<JSONRPCMessage | null> {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    await answer(null, -32700, 'parse error: the line is not JSON');
    return null;
  }
  if (Array.isArray(value)) {
    await answer(null, -32600, 'invalid request: svc mcp takes one message a line, not a batch');
    return null;
  }
  if (!isObject(value) || !isMessage(value)) {
    const id = isObject(value) && isId(value.id) ? value.id : null;
    await answer(id, -32600, 'invalid request: not a JSON-RPC 2.0 request, notification or response');
    return null;
  }
  const problem = value.id !== undefined ? paramsProblem(value) : null;
  if (problem !== null) {
    await answer(value.id as Id, -32602, `invalid params: ${problem}`);
    return null;
  }
  return value as unknown as JSONRPCMessage;
}

/**
 * `prepare` readies the session (its prices read, its tools described) once `initialize` has
 * been answered, so the handshake never waits for it; every message after initialize is held
 * until it is done and then delivered in order.
 */
/** The transport, and its one event beyond the SDK's: stdin ended (the requests in flight are still answered). */
export type ContextTransport = Transport & {
  oninputend?: () => void;
  /** Resolves once every request received has been answered (or cancelled by its client). */
  allAnswered(): Promise<void>;
};

export async function contextTransport(
  io: Pick<Io, 'stdin' | 'stdout'>,
  signal: AbortSignal,
  prepare: () => Promise<void> = async () => {},
): Promise<ContextTransport> {
  const { serializeMessage } = await import('@modelcontextprotocol/sdk/shared/stdio.js');
  let prepared: Promise<void> | undefined;
  const sessionReady = () => (prepared ??= prepare());
  let initializeId: Id | undefined;
  const reading = new AbortController();
  const stop = () => void transport.close();
  signal.addEventListener('abort', stop, { once: true });
  let closed = false;
  let inputEnded = false;
  /** Requests received and not yet answered: stdin's end waits for them. */
  const inFlight = new Set<string | number>();
  const answer: Answer = (id, code, message) => transport.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage);
  let onAnswered: Array<() => void> = [];
  const closeWhenDone = () => {
    if (inFlight.size === 0) {
      for (const resolve of onAnswered) resolve();
      onAnswered = [];
    }
    if (inputEnded && inFlight.size === 0) void transport.close();
  };
  const lines = io.stdin.chunks ? boundedLines(io.stdin.chunks(reading.signal), MAX_MESSAGE_CHARS) : io.stdin.lines(reading.signal);
  const transport: ContextTransport = {
    allAnswered: () => (inFlight.size === 0 || closed ? Promise.resolve() : new Promise<void>((resolve) => onAnswered.push(resolve))),
    async start() {
      void (async () => {
        try {
          for await (const line of lines) {
            if (typeof line !== 'string') {
              await answer(line.id, -32600, `the message is ${line.oversized} characters long; svc mcp reads at most ${MAX_MESSAGE_CHARS}`);
              continue;
            }
            if (line.trim() === '') continue;
            const message = await readMessage(line, answer);
            if (!message) continue;
            if ('method' in message && 'id' in message) {
              if (inFlight.size >= MAX_IN_FLIGHT) {
                await answer(message.id, -32000, `svc mcp is busy: ${MAX_IN_FLIGHT} requests are unanswered; send it again once one is answered`);
                continue;
              }
              inFlight.add(message.id);
            }
            if ('method' in message && message.method === 'notifications/cancelled') {
              // A cancelled request is not answered (the SDK drops its result): nothing to wait for.
              inFlight.delete((message.params as { requestId?: string | number } | undefined)?.requestId ?? '');
            }
            if ('method' in message && message.method === 'initialize' && 'id' in message) initializeId = message.id;
            else await sessionReady();
            transport.onmessage?.(message);
          }
        } catch (error) {
          if (!reading.signal.aborted) transport.onerror?.(error as Error);
        }
        inputEnded = true;
        transport.oninputend?.();
        closeWhenDone();
      })();
    },
    async send(message) {
      if (closed) return;
      io.stdout.write(serializeMessage(message));
      const id = 'id' in message && !('method' in message) ? message.id : undefined;
      if (id !== undefined && id !== null) {
        inFlight.delete(id);
        closeWhenDone();
        // Initialize answered: the session gets ready while the client reads the answer, and
        // from now on a client that stops reading cannot block svc in a write (it must still end).
        if (id === initializeId) {
          io.stdout.queueWhenFull?.();
          void sessionReady();
        }
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const resolve of onAnswered) resolve();
      onAnswered = [];
      signal.removeEventListener('abort', stop);
      reading.abort();
      transport.onclose?.();
    },
  };
  return transport;
}
