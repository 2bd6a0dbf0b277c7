// MCP's stdio framing (one JSON-RPC message a line) over the context's streams rather than
// the process's own: the SDK's StdioServerTransport reads process.stdin and writes
// process.stdout, which nothing below the process edge touches (docs/design.md). Messages are
// parsed and checked by the SDK's own deserializeMessage; stdout carries nothing else.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Io } from '../../io/io.js';

/** A message longer than this is refused unread (an assistant's largest honest call is a 5,000-character text). */
export const MAX_MESSAGE_CHARS = 1024 * 1024;

export async function contextTransport(io: Pick<Io, 'stdin' | 'stdout'>, signal: AbortSignal): Promise<Transport> {
  const { deserializeMessage, serializeMessage } = await import('@modelcontextprotocol/sdk/shared/stdio.js');
  const reading = new AbortController();
  const stop = () => reading.abort();
  signal.addEventListener('abort', stop, { once: true });
  let closed = false;
  const transport: Transport = {
    async start() {
      void (async () => {
        try {
          for await (const line of io.stdin.lines(reading.signal)) {
            if (line.trim() === '') continue;
            if (line.length > MAX_MESSAGE_CHARS) {
              // Answered unread, so the client is not left waiting: a request's id is a top-level key at its start or end.
              const idPattern = /"id"\s*:\s*(\d{1,15}|"[^"\\]{0,100}")/;
              const id = (/^\s*\{\s*"id"/.test(line) ? idPattern.exec(line.slice(0, 200)) : idPattern.exec(line.slice(-200)))?.[1];
              const message = `the message is ${line.length} characters long; svc mcp reads at most ${MAX_MESSAGE_CHARS}`;
              if (id !== undefined) await transport.send({ jsonrpc: '2.0', id: JSON.parse(id) as string | number, error: { code: -32600, message } });
              transport.onerror?.(new Error(message));
              continue;
            }
            let message: JSONRPCMessage;
            try {
              message = deserializeMessage(line);
            } catch (error) {
              transport.onerror?.(error as Error);
              continue;
            }
            transport.onmessage?.(message);
          }
        } catch (error) {
          if (!reading.signal.aborted) transport.onerror?.(error as Error);
        }
        await transport.close();
      })();
    },
    async send(message) {
      if (!closed) io.stdout.write(serializeMessage(message));
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
