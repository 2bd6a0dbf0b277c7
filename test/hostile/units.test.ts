// The pure pieces of the bounds: terminal sanitising, exact-but-inert JSON, the deadline
// variable, and the event-stream line/event bound over bytes split anywhere.
import { describe, expect, it } from 'vitest';
import { displayJson, escapeJsonControls, sanitizeLine, sanitizeText, snippet } from '../../src/io/sanitize.js';
import { DEFAULT_DEADLINE_MS, deadlineFromEnv } from '../../src/api/limits.js';
import { readSse } from '../../src/api/sse.js';
import { createHttp } from '../../src/api/http.js';
import { UsageError } from '../../src/errors.js';
import { parseCli } from '../helpers/parse.js';

describe('sanitizeText / sanitizeLine', () => {
  it('turns C0, DEL and C1 into caret notation; keeps tab and newline in messages only', () => {
    expect(sanitizeText('a\u001b[31mb\u0007c\u009b2Jd\u007fe\tf\ng\rh')).toBe('a^[[31mb^Gc^[2Jd^?e\tf\ng^Mh');
    expect(sanitizeLine('a\tb\nc\u001b')).toBe('a^Ib^Jc^[');
  });

  it('leaves ordinary text, accents and emoji alone (and returns the same string)', () => {
    const text = 'Grüße — 你好 👋 [es] hola';
    expect(sanitizeText(text)).toBe(text);
    expect(sanitizeLine(text)).toBe(text);
  });

  it('displayJson: a JSON value on one line with the same carets, in keys, strings and arrays alike', () => {
    expect(displayJson({ 'a\u001b': ['x\u009by', 1, null, { n: 'l1\nl2' }], t: true })).toBe('{"a^[":["x^[y",1,null,{"n":"l1^Jl2"}],"t":true}');
    expect(displayJson(undefined)).toBe('null');
  });

  it('snippet: one line, sanitised, shortened', () => {
    expect(snippet('<html>\n  <title>\u001b]0;x\u0007</title>' + 'y'.repeat(500), 30)).toBe('<html> <title>^[]0;x^G</title>yy…');
    expect(snippet('x'.repeat(300)).length).toBe(121);
  });
});

describe('escapeJsonControls', () => {
  it('JSON.stringify escapes C0 but not DEL or C1; after escaping, the same value and nothing raw', () => {
    const value = { s: 'a\u001bb\u007fc\u009bd\u0085e' };
    const plain = JSON.stringify(value);
    expect(plain).toMatch(/[\u007f\u009b\u0085]/); // the gap this closes
    expect(plain).not.toContain('\u001b');
    const escaped = escapeJsonControls(plain);
    expect(escaped).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(JSON.parse(escaped)).toEqual(value);
  });
});

describe('SVC_HTTP_TIMEOUT', () => {
  it('defaults to 60 s; takes seconds, decimals and durations', () => {
    expect(deadlineFromEnv({})).toBe(DEFAULT_DEADLINE_MS);
    expect(DEFAULT_DEADLINE_MS).toBe(60_000);
    expect(deadlineFromEnv({ SVC_HTTP_TIMEOUT: '120' })).toBe(120_000);
    expect(deadlineFromEnv({ SVC_HTTP_TIMEOUT: '0.5' })).toBe(500);
    expect(deadlineFromEnv({ SVC_HTTP_TIMEOUT: '90s' })).toBe(90_000);
    expect(deadlineFromEnv({ SVC_HTTP_TIMEOUT: '2m' })).toBe(120_000);
    expect(deadlineFromEnv({ SVC_HTTP_TIMEOUT: '250ms' })).toBe(250);
    // The flags' grammar (issue 52: 1m30s was refused here).
    expect(deadlineFromEnv({ SVC_HTTP_TIMEOUT: '1m30s' })).toBe(90_000);
    expect(deadlineFromEnv({ SVC_HTTP_TIMEOUT: '1h' })).toBe(3_600_000);
  });

  it('flags read durations by the same grammar (a bare number aside, ambiguous there): --timeout 1m30s and 1h30m', async () => {
    expect((await parseCli(['login', '--timeout', '1m30s'])).opts).toMatchObject({ timeoutSeconds: 90 });
    expect((await parseCli(['login', '--timeout', '250ms'])).opts).toMatchObject({ timeoutSeconds: 0.25 });
    expect((await parseCli(['login', '--timeout', '1h30m'])).opts).toMatchObject({ timeoutSeconds: 5400 });
  });

  it('refuses zero, negatives, words and more than a day', () => {
    for (const bad of ['0', '-1', 'soon', '2d', '100000', '1m1m']) expect(() => deadlineFromEnv({ SVC_HTTP_TIMEOUT: bad })).toThrow(UsageError);
  });
});

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield new TextEncoder().encode(part);
}

async function collect(body: AsyncIterable<Uint8Array>, max: number) {
  const out: string[] = [];
  for await (const message of readSse(body, { maxEventBytes: max })) out.push(message.data);
  return out;
}

describe('readSse bound', () => {
  it('many events each under the bound pass, however the bytes are split (CRLF across chunks too)', async () => {
    const event = `data: ${'x'.repeat(60)}\r\n\r\n`;
    const text = event.repeat(50);
    const parts: string[] = [];
    for (let i = 0; i < text.length; i += 7) parts.push(text.slice(i, i + 7));
    expect(await collect(chunks(...parts), 100)).toHaveLength(50);
  });

  it('a line past the bound throws, naming the limit, even split over many chunks', async () => {
    await expect(collect(chunks('data: ', ...Array(20).fill('y'.repeat(10))), 100)).rejects.toThrow(/larger than 100 bytes/);
  });

  it('an event of many short lines past the bound throws; comments do not count', async () => {
    await expect(collect(chunks(...Array(20).fill('data: 0123456789\n')), 100)).rejects.toThrow(/a line or event of the event stream/);
    const keepalives = Array(200).fill(': keepalive\n').join('');
    expect(await collect(chunks(keepalives, 'data: ok\n\n'), 100)).toEqual(['ok']);
  });

  it('a lone CR ends a line as the standard says, and a CRLF is one line end, not two', async () => {
    expect(await collect(chunks('data: a\r', '\n', '\r\n', 'data: b\r\r', ': end\n'), 100)).toEqual(['a', 'b']);
  });
});

describe('createHttp', () => {
  it('refuses a header value Node would reject, as a usage error, before any connection', async () => {
    const http = createHttp({ env: {}, userAgent: 'svc/test' });
    await expect(http.fetch('http://127.0.0.1:9/', { headers: { authorization: 'Bearer a\r\nb' } })).rejects.toThrow(UsageError);
    await expect(http.fetch('http://127.0.0.1:9/', { headers: { authorization: 'Bearer a\r\nb' } })).rejects.toThrow(/authorization header cannot be sent/);
  });
});
