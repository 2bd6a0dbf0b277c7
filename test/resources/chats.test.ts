// `svc chats …` in-process against the emulator: start/get/list/close, messages from
// arguments and stdin, voice uploads (and every local refusal before any upload), and
// the live message stream.
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tsvRows, useEmulator, type Mode } from './harness.js';

const h = useEmulator();
const files = mkdtempSync(join(tmpdir(), 'svc-voice-'));
afterAll(() => rmSync(files, { recursive: true, force: true }));

async function startChat(mode: Mode = 'test', language = 'fr'): Promise<{ id: string; status: string; language: string }> {
  const result = await h.svc(['chats', 'start', '--language', language, '--subject', 'Order 42', '--json'], { mode });
  expect(result.exitCode, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

describe.each(['test', 'live'] as const)('chats in %s mode', (mode) => {
  it('start, get, list by status, close; closing twice is a conflict', async () => {
    const chat = await startChat(mode);
    expect(chat).toMatchObject({ object: 'chat', status: 'open', language: 'fr', subject: 'Order 42', livemode: mode === 'live' });
    expect(JSON.parse((await h.svc(['chats', 'get', chat.id, '--json'], { mode })).stdout)).toEqual(chat);

    const open = await h.svc(['chats', 'list', '--status', 'open'], { mode });
    expect(
      tsvRows(open.stdout)
        .find((r) => r[0] === chat.id)
        ?.slice(0, 4),
    ).toEqual([chat.id, 'open', 'fr', 'Order 42']);

    const closed = await h.svc(['chats', 'close', chat.id, '--json'], { mode });
    expect(closed.exitCode, closed.stderr).toBe(0);
    expect(JSON.parse(closed.stdout).status).toBe('closed');
    const closedList = await h.svc(['chats', 'list', '--status', 'closed', '--json'], { mode });
    expect((JSON.parse(closedList.stdout) as Array<{ id: string }>).map((c) => c.id)).toContain(chat.id);

    const again = await h.svc(['chats', 'close', chat.id], { mode });
    expect(again.exitCode).toBe(6);
    expect(again.stderr).toContain('closed');
  });

  it('send with the message as several unquoted words joins them with spaces', async () => {
    const chat = await startChat(mode);
    const sent = await h.svc(['chats', 'send', chat.id, 'Where', 'is', 'my', 'order?', '--json'], { mode });
    expect(sent.exitCode, sent.stderr).toBe(0);
    expect(sent.stderr).not.toContain('too many arguments');
    expect(JSON.parse(sent.stdout)).toMatchObject({ object: 'message', chat_id: chat.id, kind: 'text', text: 'Where is my order?' });
  });

  it("send --language: a message in another language than the chat's is translated to the chat's", async () => {
    const chat = await startChat(mode, 'en');
    const sent = await h.svc(['chats', 'send', chat.id, '--language', 'fr', 'Où est ma commande ?', '--json'], { mode });
    expect(sent.exitCode, sent.stderr).toBe(0);
    expect(JSON.parse(sent.stdout)).toMatchObject({ language: 'fr', translation: { language: 'en', text: expect.any(String) } });
    const refused = await h.svc(['chats', 'send', chat.id, '--language', 'not a tag', 'x'], { mode });
    expect(refused.exitCode).toBe(2);
  });

  it('send from an argument and from stdin; messages lists them; a closed chat refuses (409)', async () => {
    const chat = await startChat(mode);
    const sent = await h.svc(['chats', 'send', chat.id, 'Where is my order?', '--json'], { mode });
    expect(sent.exitCode, sent.stderr).toBe(0);
    expect(JSON.parse(sent.stdout)).toMatchObject({ object: 'message', chat_id: chat.id, kind: 'text', text: 'Where is my order?' });

    const piped = await h.svc(['chats', 'send', chat.id, '--json'], { mode, stdin: 'Bonjour\nça va ?\n' });
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect(JSON.parse(piped.stdout).text).toBe('Bonjour\nça va ?');

    const messages = await h.svc(['chats', 'messages', chat.id, '--json'], { mode });
    const texts = (JSON.parse(messages.stdout) as Array<{ text: string }>).map((m) => m.text);
    expect(texts).toEqual(['Bonjour\nça va ?', 'Where is my order?']); // newest first

    const tsv = await h.svc(['chats', 'messages', chat.id], { mode });
    expect(tsvRows(tsv.stdout)[0]?.[3]).toBe('Bonjour ça va ?'); // a newline inside a cell never splits a row

    await h.svc(['chats', 'close', chat.id], { mode });
    const refused = await h.svc(['chats', 'send', chat.id, 'hello?'], { mode });
    expect(refused.exitCode).toBe(6);
  });

  it('voice: an audio file is uploaded with its type and gets a transcript', async () => {
    const chat = await startChat(mode);
    const file = join(files, `note-${mode}.ogg`);
    writeFileSync(file, Buffer.from('OggS fake audio bytes')); // an Ogg page starts with OggS
    const result = await h.svc(['chats', 'voice', chat.id, file, '--json'], { mode });
    expect(result.exitCode, result.stderr).toBe(0);
    const message = JSON.parse(result.stdout);
    expect(message).toMatchObject({ object: 'message', chat_id: chat.id, kind: 'voice' });
    expect(typeof message.transcript).toBe('string');
    expect(message.transcript.length).toBeGreaterThan(0);
  });
});

describe('chats voice: every accepted format by its first bytes', () => {
  const samples: Array<[string, Uint8Array]> = [
    ['memo.mp3', Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x00rest', 'latin1')],
    ['frames.mp3', Uint8Array.from([0xff, 0xfb, 0x90, 0x64, 0, 0, 0, 0])],
    ['clip.aac', Uint8Array.from([0xff, 0xf1, 0x50, 0x80, 0, 0, 0, 0])],
    ['clip.wav', Buffer.from('RIFF\x24\x00\x00\x00WAVEfmt ', 'latin1')],
    ['clip.flac', Buffer.from('fLaC\x00\x00\x00\x22', 'latin1')],
    ['clip.m4a', Buffer.from('\x00\x00\x00\x20ftypM4A \x00\x00', 'latin1')],
    ['clip.webm', Uint8Array.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81])],
    ['clip.amr', Buffer.from('#!AMR\n\x3c\x00', 'latin1')],
  ];
  it.each(samples)('%s is uploaded (201)', async (name, bytes) => {
    const chat = await startChat();
    const file = join(files, name);
    writeFileSync(file, bytes);
    const result = await h.svc(['chats', 'voice', chat.id, file, '--json']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ object: 'message', kind: 'voice' });
  });
});

describe('chats: errors', () => {
  it('unknown and other-mode chats are not found (exit 5)', async () => {
    expect((await h.svc(['chats', 'get', 'chat_nothere'])).exitCode).toBe(5);
    const live = await startChat('live');
    expect((await h.svc(['chats', 'messages', live.id])).exitCode).toBe(5);
  });

  it('a message the service refuses is exit 2 with the field (422)', async () => {
    const chat = await startChat();
    const result = await h.svc(['chats', 'send', chat.id, 'x'.repeat(5001)]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('text');
  });

  it('bad input, an empty stdin, and bad voice files are refused locally (exit 2) with no request', async () => {
    const chat = await startChat();
    const empty = join(files, 'empty.wav');
    writeFileSync(empty, '');
    const huge = join(files, 'huge.mp3');
    writeFileSync(huge, '');
    truncateSync(huge, 10 * 1024 * 1024 + 1); // sparse: 10 MiB and one byte
    const text = join(files, 'notes.txt');
    writeFileSync(text, 'not audio');
    const fake = join(files, 'fake.ogg'); // the right extension, but text inside
    writeFileSync(fake, 'this is a text file, not a recording\n');
    const tiny = join(files, 'tiny.mp3'); // one byte: shorter than any signature
    writeFileSync(tiny, 'x');
    const cases: Array<[string[], string, string?]> = [
      [['chats', 'start', '--language', 'french'], 'BCP 47'],
      [['chats', 'get', 'call_1'], 'that is a call id'],
      [['chats', 'send', chat.id], 'empty', ''],
      [['chats', 'voice', chat.id, join(files, 'missing.ogg')], 'does not exist'],
      [['chats', 'voice', chat.id, empty], 'is empty'],
      [['chats', 'voice', chat.id, huge], 'trim the recording, or compress it'],
      [['chats', 'voice', chat.id, fake], 'fake.ogg does not contain audio'],
      [['chats', 'voice', chat.id, fake], 'Ogg/Opus, MP3, AAC, WAV, FLAC, M4A/MP4, WebM or AMR'],
      [['chats', 'voice', chat.id, tiny], 'does not contain audio'],
      // Told by content, not by name (a .txt of text is refused for its bytes; test/core/script.test.ts uploads audio named .bin).
      [['chats', 'voice', chat.id, text], 'does not contain audio'],
      [['chats', 'voice', chat.id, files + '/'], 'is not a file'],
    ];
    const requests = await h.requestsDuring(async () => {
      for (const [argv, message, stdin] of cases) {
        const result = await h.svc(argv, stdin === undefined ? {} : { stdin });
        expect(result.exitCode, argv.join(' ')).toBe(2);
        expect(result.stderr, argv.join(' ')).toContain(message);
      }
    });
    expect(requests).toBe(0);
  });

  it('send with neither text nor piped stdin says how to give it instead of waiting', async () => {
    const chat = await startChat();
    const result = await h.svc(['chats', 'send', chat.id], { tty: true });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('pipe it on stdin');
  });
});

describe('chats stream', () => {
  /** Waits until the emulator has `count` open streams. */
  const streamsOpen = (count: number) => h.plane.streamsOpen(count);

  it('prints messages posted meanwhile as NDJSON, and ends when the chat is closed', async () => {
    const chat = await startChat();
    await h.direct('POST', `/v1/chats/${chat.id}/messages`, { text: 'before the stream' });
    const baseline = (await h.plane.stats()).open_streams;
    const running = h.svc(['chats', 'stream', chat.id, '--json']);
    await streamsOpen(baseline + 1);
    for (const text of ['first', 'second', 'third']) {
      expect((await h.direct('POST', `/v1/chats/${chat.id}/messages`, { text })).status).toBe(201);
    }
    // Another chat's messages must not appear.
    const other = await startChat();
    await h.direct('POST', `/v1/chats/${other.id}/messages`, { text: 'elsewhere' });
    await h.direct('POST', `/v1/chats/${chat.id}/close`);

    const result = await running;
    expect(result.exitCode, result.stderr).toBe(0);
    const lines = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((m) => m.text)).toEqual(['first', 'second', 'third']);
    expect(lines.every((m) => m.object === 'message' && m.chat_id === chat.id)).toBe(true);
    expect(result.stderr).toContain('closed');
  });

  it("in live mode: the live chat's messages, none of a test chat, and a test key cannot stream the live chat", async () => {
    const chat = await startChat('live');
    const testChat = await startChat('test');
    const baseline = (await h.plane.stats()).open_streams;
    const running = h.svc(['chats', 'stream', chat.id, '--json'], { mode: 'live' });
    await streamsOpen(baseline + 1);
    for (const text of ['live one', 'live two']) {
      expect((await h.direct('POST', `/v1/chats/${chat.id}/messages`, { text }, 'live')).status).toBe(201);
    }
    await h.direct('POST', `/v1/chats/${testChat.id}/messages`, { text: 'test mode' }, 'test');
    await h.direct('POST', `/v1/chats/${chat.id}/close`, undefined, 'live');
    const result = await running;
    expect(result.exitCode, result.stderr).toBe(0);
    const lines = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((m) => m.text)).toEqual(['live one', 'live two']);
    expect(lines.every((m) => m.chat_id === chat.id && m.livemode === true)).toBe(true);
    expect(result.stderr).toContain('closed');
    // The other mode's key does not see the chat at all (404, exit 5).
    expect((await h.svc(['chats', 'stream', chat.id], { mode: 'test' })).exitCode).toBe(5);
  });

  it('piped without --json: one tab-separated line per message', async () => {
    const chat = await startChat();
    const baseline = (await h.plane.stats()).open_streams;
    const running = h.svc(['chats', 'stream', chat.id]);
    await streamsOpen(baseline + 1);
    const posted = await h.direct('POST', `/v1/chats/${chat.id}/messages`, { text: 'hello there', language: 'en' });
    expect(posted.status).toBe(201);
    await h.direct('POST', `/v1/chats/${chat.id}/close`);
    const result = await running;
    expect(result.exitCode, result.stderr).toBe(0);
    const rows = tsvRows(result.stdout);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.slice(0, 4)).toEqual([posted.body.id, 'text', 'en', 'hello there']);
    // Test mode's translation already reads "[fr] hello there": tagged once, not "[fr] [fr] …".
    expect(rows[0]?.[4]).toBe(posted.body.translation.text);
    expect(rows[0]?.[4]).toBe('[fr] hello there');
  });

  it('Ctrl-C (the abort signal) ends it with exit 130', async () => {
    const chat = await startChat();
    const baseline = (await h.plane.stats()).open_streams;
    const controller = new AbortController();
    const running = h.svc(['chats', 'stream', chat.id], { extra: { signal: controller.signal } });
    await streamsOpen(baseline + 1);
    controller.abort();
    const result = await running;
    expect(result.exitCode).toBe(130);
    expect(result.stdout).toBe('');
  });

  it('a dropped connection reconnects and catches up: every message once, in order', async () => {
    const chat = await startChat();
    const baseline = (await h.plane.stats()).open_streams;
    const running = h.svc(['chats', 'stream', chat.id, '--json']);
    await streamsOpen(baseline + 1);
    await h.direct('POST', `/v1/chats/${chat.id}/messages`, { text: 'a' });
    await h.plane.dropStreams();
    // Posted while the client is (most likely) away: the stream will not replay it, the catch-up must.
    await h.direct('POST', `/v1/chats/${chat.id}/messages`, { text: 'b' });
    await streamsOpen(baseline + 1);
    await h.direct('POST', `/v1/chats/${chat.id}/messages`, { text: 'c' });
    await h.direct('POST', `/v1/chats/${chat.id}/close`);
    const result = await running;
    expect(result.exitCode, result.stderr).toBe(0);
    expect(
      result.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line).text),
    ).toEqual(['a', 'b', 'c']);
    expect(result.stderr).toContain('reconnecting');
  });

  it('an unknown chat is exit 5; a closed chat ends at once (exit 0) instead of waiting forever', async () => {
    expect((await h.svc(['chats', 'stream', 'chat_nothere'])).exitCode).toBe(5);
    const chat = await startChat();
    await h.direct('POST', `/v1/chats/${chat.id}/close`);
    const result = await h.svc(['chats', 'stream', chat.id]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain('is closed');
  });

  it('on a terminal: the local time, the text and its translation', async () => {
    const chat = await startChat();
    const baseline = (await h.plane.stats()).open_streams;
    const running = h.svc(['chats', 'stream', chat.id], { tty: true });
    await streamsOpen(baseline + 1);
    await h.direct('POST', `/v1/chats/${chat.id}/messages`, { text: 'Where is it?', language: 'en' });
    await h.direct('POST', `/v1/chats/${chat.id}/close`);
    const result = await running;
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toContain(`waiting for new messages in ${chat.id}`);
    expect(result.stdout).toMatch(/^\d{1,2}:\d\d:\d\d.* {2}Where is it\? {2}→ \[fr\] Where is it\?\n$/);
  });
});
