// svc mcp's line reader (src/mcp/transport.ts): no line is held past its bound, and an
// oversized one still yields its top-level id, wherever it is and whatever strings surround it.
import { describe, expect, it } from 'vitest';
import { boundedLines, contextTransport, MAX_IN_FLIGHT } from '../../src/mcp/transport.js';

async function read(chunks: string[], max: number): Promise<unknown[]> {
  async function* source() {
    yield* chunks;
  }
  const lines: unknown[] = [];
  for await (const line of boundedLines(source(), max)) lines.push(line);
  return lines;
}

describe('the bounded line reader', () => {
  it('splits lines across chunks and keeps a last line without a newline', async () => {
    expect(await read(['{"a":', '1}\n{"b"', ':2}\n', '{"c":3}'], 100)).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it('an oversized line is its length and its top-level id, not ids nested or inside strings', async () => {
    const pad = 'x'.repeat(300);
    const line = `{"params":{"id":"inner","text":"${pad} \\"id\\":7 "},"note":"\\"id\\": 5","id":"outer","method":"tools/call"}`;
    // Fed in small chunks, so the id and the strings around it are split.
    const chunks = (line + '\n{"id":2}\n').match(/[\s\S]{1,7}/g)!;
    const [oversized, next] = await read(chunks, 100);
    expect(oversized).toEqual({ oversized: line.length, id: 'outer' });
    expect(next).toBe('{"id":2}');
  });

  it('an oversized line with no id, or an id JSON-RPC does not allow, answers with id null', async () => {
    expect(await read([`{"params":"${'y'.repeat(200)}"}\n`], 100)).toEqual([{ oversized: 213, id: null }]);
    expect(await read([`{"id":{"x":1},"p":"${'y'.repeat(200)}"}\n`], 100)).toMatchObject([{ id: null }]);
  });
});

describe('the requests the transport holds', () => {
  it('lets go of each request once answered: many more calls than MAX_IN_FLIGHT, one after another, are never refused as busy', async () => {
    const calls = MAX_IN_FLIGHT * 8;
    const written: string[] = [];
    const lines = [
      JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
      ...Array.from({ length: calls }, (_, i) =>
        JSON.stringify({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'account_balance', arguments: {} } }),
      ),
    ];
    const io = {
      stdin: {
        isTTY: false,
        readAll: async () => '',
        lines: async function* () {},
        chunks: async function* () {
          yield lines.map((l) => `${l}\n`).join('');
        },
      },
      stdout: { isTTY: false, write: (chunk: string) => void written.push(chunk) },
    };
    const transport = await contextTransport(io, new AbortController().signal);
    const received: unknown[] = [];
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
    transport.onmessage = (message) => {
      received.push(message);
      if ('id' in message && message.id !== undefined) void transport.send({ jsonrpc: '2.0', id: message.id, result: {} });
    };
    await transport.start();
    await closed;
    expect(received).toHaveLength(calls + 1);
    expect(written.filter((line) => line.includes('-32000'))).toEqual([]);
    await transport.allAnswered();
  });
});
