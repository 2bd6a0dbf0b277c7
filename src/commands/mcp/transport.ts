// MCP's stdio framing (one JSON-RPC message a line) over the context's streams rather than
// the process's own: the SDK's StdioServerTransport reads process.stdin and writes
// process.stdout, which nothing below the process edge touches (design.md). What JSON-RPC 2.0
// says a server answers is answered here: a line that is not JSON (-32700), a batch or an
// object that is no message (-32600), a known request's malformed params (-32602, in a line,
// not a schema dump), a line past MAX_MESSAGE_CHARS (-32600, with its id wherever it is; the
// line is never held whole). When stdin ends, the requests in flight are answered before the
// transport closes.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Io } from '../../io/io.js';

/** A message longer than this is refused unread (an assistant's largest honest call is a 5,000-character text). */
export const MAX_MESSAGE_CHARS = 1024 * 1024;

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
async function* boundedLines(chunks: AsyncIterable<string>, max: number): AsyncGenerator<string | Oversized> {
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

/** A line as a message for the SDK, or null once it has been answered as JSON-RPC says. */
async function readMessage(line: string, answer: Answer, check: (message: JSONRPCMessage) => string | null): Promise<JSONRPCMessage | null> {
  const { JSONRPCMessageSchema } = await import('@modelcontextprotocol/sdk/types.js');
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
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (!parsed.success) {
    const id = (value as { id?: unknown } | null)?.id;
    await answer(typeof id === 'string' || typeof id === 'number' ? id : null, -32600, 'invalid request: not a JSON-RPC 2.0 request, notification or response');
    return null;
  }
  const problem = check(parsed.data);
  if (problem !== null) {
    await answer((parsed.data as { id: string | number }).id, -32602, `invalid params: ${problem}`);
    return null;
  }
  return parsed.data;
}

/** The requests svc mcp answers whose params the SDK would refuse with a schema dump: what is wrong with them, in a line. */
async function paramsChecker(): Promise<(message: JSONRPCMessage) => string | null> {
  const { CallToolRequestSchema, InitializeRequestSchema, ListToolsRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const schemas = new Map<string, { safeParse(v: unknown): { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } } }>([
    ['tools/call', CallToolRequestSchema],
    ['tools/list', ListToolsRequestSchema],
    ['initialize', InitializeRequestSchema],
  ]);
  return (message) => {
    if (!('method' in message) || !('id' in message)) return null;
    const schema = schemas.get(message.method);
    const checked = schema?.safeParse(message);
    if (!checked || checked.success) return null;
    const issue = checked.error?.issues[0];
    return issue ? `${issue.path.map(String).join('.') || 'params'}: ${issue.message}` : 'params do not match the method';
  };
}

export async function contextTransport(io: Pick<Io, 'stdin' | 'stdout'>, signal: AbortSignal): Promise<Transport> {
  const { serializeMessage } = await import('@modelcontextprotocol/sdk/shared/stdio.js');
  const check = await paramsChecker();
  const reading = new AbortController();
  const stop = () => void transport.close();
  signal.addEventListener('abort', stop, { once: true });
  let closed = false;
  let inputEnded = false;
  /** Requests received and not yet answered: stdin's end waits for them. */
  const inFlight = new Set<string | number>();
  const answer: Answer = (id, code, message) => transport.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage);
  const closeWhenDone = () => {
    if (inputEnded && inFlight.size === 0) void transport.close();
  };
  const lines = io.stdin.chunks ? boundedLines(io.stdin.chunks(reading.signal), MAX_MESSAGE_CHARS) : io.stdin.lines(reading.signal);
  const transport: Transport = {
    async start() {
      void (async () => {
        try {
          for await (const line of lines) {
            if (typeof line !== 'string') {
              await answer(line.id, -32600, `the message is ${line.oversized} characters long; svc mcp reads at most ${MAX_MESSAGE_CHARS}`);
              continue;
            }
            if (line.trim() === '') continue;
            const message = await readMessage(line, answer, check);
            if (!message) continue;
            if ('method' in message && 'id' in message) inFlight.add(message.id);
            if ('method' in message && message.method === 'notifications/cancelled') {
              // A cancelled request is not answered (the SDK drops its result): nothing to wait for.
              inFlight.delete((message.params as { requestId?: string | number } | undefined)?.requestId ?? '');
            }
            transport.onmessage?.(message);
          }
        } catch (error) {
          if (!reading.signal.aborted) transport.onerror?.(error as Error);
        }
        inputEnded = true;
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
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      signal.removeEventListener('abort', stop);
      reading.abort();
      transport.onclose?.();
    },
  };
  return transport;
}
