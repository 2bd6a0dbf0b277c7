// MCP's stdio framing (one JSON-RPC message a line) over the context's streams rather than
// the process's own: the SDK's StdioServerTransport reads process.stdin and writes
// process.stdout, which nothing below the process edge touches (design.md). Messages are
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
              transport.onerror?.(new Error(`a message of ${line.length} characters was refused (at most ${MAX_MESSAGE_CHARS})`));
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
