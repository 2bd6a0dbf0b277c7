import { describe, expect, it } from 'vitest';
import { readSse, type SseMessage } from '../../src/api/sse.js';

const encoder = new TextEncoder();

async function* chunksOf(bytes: Uint8Array, sizes: number[]): AsyncGenerator<Uint8Array> {
  let offset = 0;
  let i = 0;
  while (offset < bytes.length) {
    const size = sizes[i++ % sizes.length] ?? 1;
    yield bytes.subarray(offset, offset + size);
    offset += size;
  }
}

async function collect(body: AsyncIterable<Uint8Array>, comments?: string[]): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  for await (const m of readSse(body, { onComment: (c) => comments?.push(c) })) out.push(m);
  return out;
}

const stream =
  ': keepalive\n\n' +
  'id: evt_1\nevent: call.started\ndata: {"id":"evt_1","title":"caf\u00e9 \u{1F4DE}"}\n\n' +
  'id: evt_2\r\nevent: chat.message.created\r\ndata: {"id":"evt_2"}\r\n\r\n' +
  'data: line one\ndata: line two\n\n' +
  'id: evt_3\nevent: call.ended\ndata: {"id":"evt_3"}\n\n';

const expected: SseMessage[] = [
  { id: 'evt_1', event: 'call.started', data: '{"id":"evt_1","title":"caf\u00e9 \u{1F4DE}"}' },
  { id: 'evt_2', event: 'chat.message.created', data: '{"id":"evt_2"}' },
  { data: 'line one\nline two' },
  { id: 'evt_3', event: 'call.ended', data: '{"id":"evt_3"}' },
];

describe('readSse', () => {
  it('parses a stream delivered in one chunk', async () => {
    const comments: string[] = [];
    const got = await collect(chunksOf(encoder.encode(stream), [1 << 20]), comments);
    expect(got).toEqual(expected);
    expect(comments.map((c) => c.trim())).toEqual(['keepalive']);
  });

  it('gives the same messages however the bytes are split (inside CRLF, inside UTF-8 characters)', async () => {
    const bytes = encoder.encode(stream);
    for (const sizes of [[1], [2], [3], [5, 1, 7], [13, 2], [64]]) {
      expect(await collect(chunksOf(bytes, sizes))).toEqual(expected);
    }
  });

  it('splits at every single byte position without losing or changing a message', async () => {
    const bytes = encoder.encode(stream);
    for (let cut = 1; cut < bytes.length; cut++) {
      async function* two(): AsyncGenerator<Uint8Array> {
        yield bytes.subarray(0, cut);
        yield bytes.subarray(cut);
      }
      expect(await collect(two())).toEqual(expected);
    }
  });

  it('drops an event the body ends in the middle of', async () => {
    const bytes = encoder.encode('id: evt_1\ndata: {"a":1}\n\nid: evt_2\ndata: {"b"');
    const got = await collect(chunksOf(bytes, [4]));
    expect(got).toEqual([{ id: 'evt_1', data: '{"a":1}' }]);
  });

  it('reports every chunk of bytes so a heartbeat watchdog can reset', async () => {
    const bytes = encoder.encode(': keepalive\n\n: keepalive\n\n');
    let seen = 0;
    for await (const _ of readSse(chunksOf(bytes, [5]), { onBytes: (n) => (seen += n) })) void _;
    expect(seen).toBe(bytes.length);
  });

  it('yields messages as they arrive, before the body ends', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    async function* slow(): AsyncGenerator<Uint8Array> {
      yield encoder.encode('id: evt_1\ndata: x\n\n');
      await gate;
      yield encoder.encode('id: evt_2\ndata: y\n\n');
    }
    const it = readSse(slow());
    const first = await it.next();
    expect(first.value).toEqual({ id: 'evt_1', data: 'x' });
    release();
    const second = await it.next();
    expect(second.value).toEqual({ id: 'evt_2', data: 'y' });
    expect((await it.next()).done).toBe(true);
  });

  it('yields an id-only frame (the position frame) as a position, in its place, however the bytes are split', async () => {
    const text =
      '\ufeffid: evt_0\n\n' +
      'id: evt_1\nevent: call.started\ndata: {"id":"evt_1"}\n\n' +
      ': keepalive\n\n' +
      'id:evt_1b\r\n\r\n' +
      'id: evt_2\rdata: x\r\r' +
      'id\nevent: nothing\n\n' +
      'id: start\n\n' +
      'id: evt_nul\u0000\n\n' +
      'id: evt_3\ndata\n\n';
    const want: SseMessage[] = [
      { id: 'evt_0', data: '', position: true },
      { id: 'evt_1', event: 'call.started', data: '{"id":"evt_1"}' },
      { id: 'evt_1b', data: '', position: true },
      { id: 'evt_2', data: 'x' },
      { id: '', data: '', position: true },
      { id: 'start', data: '', position: true },
      { id: 'evt_3', data: '' },
    ];
    const bytes = encoder.encode(text);
    expect(await collect(chunksOf(bytes, [1 << 20]))).toEqual(want);
    for (let cut = 1; cut < bytes.length; cut++) {
      async function* two(): AsyncGenerator<Uint8Array> {
        yield bytes.subarray(0, cut);
        yield bytes.subarray(cut);
      }
      expect(await collect(two())).toEqual(want);
    }
    expect(await collect(chunksOf(bytes, [1]))).toEqual(want);
  });

  it('a position frame the body ends in the middle of is dropped', async () => {
    expect(await collect(chunksOf(encoder.encode('id: evt_1\n'), [3]))).toEqual([]);
  });
});

// The parsing rules of WHATWG HTML §9.2.6 ("Interpreting an event stream"), each checked
// whole and with the bytes cut at every position (a field split across chunks).
describe('readSse follows the SSE parsing rules', () => {
  async function everySplit(text: string, onRetry?: (ms: number) => void, comments?: string[]): Promise<SseMessage[]> {
    const bytes = encoder.encode(text);
    const whole: SseMessage[] = [];
    for await (const m of readSse(chunksOf(bytes, [1 << 20]), { onRetry, onComment: (c) => comments?.push(c) })) whole.push(m);
    for (let cut = 1; cut < bytes.length; cut++) {
      async function* two(): AsyncGenerator<Uint8Array> {
        yield bytes.subarray(0, cut);
        yield bytes.subarray(cut);
      }
      expect(await collect(two()), `cut at byte ${cut}`).toEqual(whole);
    }
    return whole;
  }

  it('LF, CR and CRLF each end a line, mixed in one stream', async () => {
    expect(await everySplit('data: a\n\ndata: b\r\rdata: c\r\n\r\ndata: d\r\n\n')).toEqual([{ data: 'a' }, { data: 'b' }, { data: 'c' }, { data: 'd' }]);
  });

  it('comments dispatch nothing and are reported without the colon; a frame of comments only is no event', async () => {
    const comments: string[] = [];
    expect(await everySplit(':keepalive\n: with space\n\n: only\n\ndata: x\n:after\n\n', undefined, comments)).toEqual([{ data: 'x' }]);
    expect(comments).toEqual(['keepalive', 'with space', 'only', 'after']);
  });

  it('retry: with digits only sets the reconnection time; anything else is ignored', async () => {
    const retries: number[] = [];
    const got = await everySplit('retry: 2500\nretry: soon\nretry: 1.5\n\ndata: x\n\n', (ms) => retries.push(ms));
    expect(got).toEqual([{ data: 'x' }]);
    expect(retries).toEqual([2500]);
  });

  it('one leading space of a value is dropped, the rest kept; a field without a colon has an empty value; unknown fields are ignored', async () => {
    expect(await everySplit('data:no space\ndata:  two\nfoo: bar\n\nevent: only type\n\ndata\ndata\n\n')).toEqual([{ data: 'no space\n two' }, { data: '\n' }]);
  });

  it('a byte order mark is dropped at the start only, even split across chunks; a later one is part of the line', async () => {
    const bytes = encoder.encode('\ufeffdata: a\n\n\ufeffdata: b\n\ndata: c\n\n');
    expect(await collect(chunksOf(bytes, [1]))).toEqual([{ data: 'a' }, { data: 'c' }]);
    expect(await collect(chunksOf(bytes, [2]))).toEqual([{ data: 'a' }, { data: 'c' }]);
  });

  it("a data-less id frame is a position between the events around it (the contract's position frame)", async () => {
    expect(await everySplit('id: evt_9\n\nid: evt_10\nevent: call.started\ndata: {}\n\nid: evt_10\n\ndata: no id\n\n')).toEqual([
      { id: 'evt_9', data: '', position: true },
      { id: 'evt_10', event: 'call.started', data: '{}' },
      { id: 'evt_10', data: '', position: true },
      { data: 'no id' },
    ]);
  });
});
