// The resource commands' input, as a command line: valid input becomes the options run()
// receives (typed: a --limit is a number, an id checked by its prefix), invalid input is a
// usage error (exit 2) that says what a valid value looks like, all before any request. The
// line goes through the one parse (src/cli/run.ts reads each declared kind), not parse() alone.
import { describe, expect, it } from 'vitest';
import { parseCli } from '../helpers/parse.js';

async function ok(...argv: string[]) {
  const r = await parseCli(argv);
  expect(r.stderr, argv.join(' ')).toBe('');
  expect(r.exitCode, argv.join(' ')).toBe(0);
  return r.opts;
}

/** The usage error's text (exit 2, nothing run). */
async function usageMessage(...argv: string[]) {
  const r = await parseCli(argv);
  expect(r.exitCode, argv.join(' ')).toBe(2);
  expect(r.command, argv.join(' ')).toBeUndefined();
  return r.stderr;
}

describe('calls', () => {
  it('list: status, limit and all', async () => {
    expect(await ok('calls', 'list')).toEqual({ all: false });
    expect(await ok('calls', 'list', '--status', 'ended', '--limit', '5')).toEqual({ all: false, status: 'ended', limit: 5 });
    expect(await ok('calls', 'list', '--all')).toEqual({ all: true });
    expect(await usageMessage('calls', 'list', '--status', 'open')).toContain('active, ended');
    expect(await usageMessage('calls', 'list', '--limit', '500')).toContain('--limit "500" must be a whole number from 1 to 100');
    expect(await usageMessage('calls', 'list', '--limit', '5', '--all')).toContain('not both');
  });

  it('get/end: ids by prefix', async () => {
    expect(await ok('calls', 'get', 'call_abc')).toEqual({ id: 'call_abc' });
    expect(await usageMessage('calls', 'get')).toContain("missing required argument 'id'");
    expect(await usageMessage('calls', 'end', 'chat_abc')).toContain('that is a chat id');
  });

  it('start: exactly two valid languages', async () => {
    expect(await ok('calls', 'start', '--languages', 'en,ES-mx', '--title', 'Intake')).toEqual({ languages: ['en', 'es-MX'], title: 'Intake' });
    expect(await usageMessage('calls', 'start')).toContain('--languages');
    expect(await usageMessage('calls', 'start', '--languages', 'en')).toContain('exactly two');
    expect(await usageMessage('calls', 'start', '--languages', 'en,es,fr')).toContain('exactly two');
    expect(await usageMessage('calls', 'start', '--languages', 'en,xx_YY')).toContain('BCP 47');
  });

  it('dial: E.164 number, line id and language', async () => {
    expect(await ok('calls', 'dial', 'call_1', '--to', '+1 415 555 0100', '--line', 'line_9', '--language', 'es')).toEqual({
      callId: 'call_1',
      to: '+14155550100',
      lineId: 'line_9',
      language: 'es',
    });
    expect(await usageMessage('calls', 'dial', 'call_1')).toContain('--to');
    expect(await usageMessage('calls', 'dial', 'call_1', '--to', '555-0100')).toContain('+14155550100');
    expect(await usageMessage('calls', 'dial', 'call_1', '--to', '+14155550100', '--line', 'call_2')).toContain('--line "call_2" is not a phone line id');
  });

  it('links and lines', async () => {
    expect(await ok('calls', 'links', 'list', '--limit', '3')).toEqual({ all: false, limit: 3 });
    expect(await ok('calls', 'links', 'create', '--call', 'call_1', '--language', 'fr', '--expires-in', '1h30m')).toEqual({
      callId: 'call_1',
      language: 'fr',
      expiresInSeconds: 5400,
    });
    expect(await usageMessage('calls', 'links', 'create', '--expires-in', '60')).toContain('90s, 15m, 1h');
    expect(await ok('calls', 'lines', 'add', '--country', 'us', '--area-code', '415')).toEqual({ country: 'US', areaCode: '415' });
    expect(await usageMessage('calls', 'lines', 'add')).toContain('--country');
    expect(await usageMessage('calls', 'lines', 'release', 'call_1')).toContain('line_Q3vX8kTz1mLp9RbW2cYd');
  });
});

describe('chats', () => {
  it('list, start, close, messages', async () => {
    expect(await ok('chats', 'list', '--status', 'closed')).toEqual({ all: false, status: 'closed' });
    expect(await usageMessage('chats', 'list', '--status', 'ended')).toContain('open, closed');
    expect(await ok('chats', 'start', '--language', 'fr', '--subject', 'Order 42')).toEqual({ language: 'fr', subject: 'Order 42' });
    expect(await usageMessage('chats', 'start')).toContain('--language');
    expect(await usageMessage('chats', 'close', 'call_1')).toContain('not a chat id');
    expect(await ok('chats', 'messages', 'chat_1', '--all')).toEqual({ id: 'chat_1', all: true });
  });

  it('send: text from the arguments or, without them, stdin', async () => {
    expect(await ok('chats', 'send', 'chat_1', 'Hello', 'there')).toEqual({ id: 'chat_1', text: 'Hello there' });
    expect(await ok('chats', 'send', 'chat_1')).toEqual({ id: 'chat_1' });
    expect(await usageMessage('chats', 'send', 'chat_1', '  ')).toContain('empty');
  });

  it('voice: an existing file of any name, or - for stdin (the content type comes from the bytes, when it runs)', async () => {
    expect(await ok('chats', 'voice', 'chat_1', 'package.json')).toEqual({ id: 'chat_1', file: 'package.json' });
    expect(await ok('chats', 'voice', 'chat_1', '-')).toEqual({ id: 'chat_1', file: '-' });
    expect(await usageMessage('chats', 'voice', 'chat_1', 'missing-note.ogg')).toContain('missing-note.ogg does not exist');
    expect(await usageMessage('chats', 'voice', 'chat_1')).toContain("missing required argument 'file'");
  });

  it('stream: a chat id', async () => {
    expect(await ok('chats', 'stream', 'chat_1')).toEqual({ id: 'chat_1' });
  });
});

describe('translate', () => {
  it('text from arguments, languages checked', async () => {
    expect(await ok('translate', 'Good', 'morning', '--to', 'ES', '--from', 'en')).toEqual({ to: 'es', from: 'en', text: 'Good morning', lines: false });
    expect(await ok('translate', '--lines', '--to', 'de')).toEqual({ to: 'de', lines: true });
  });

  it('refuses a missing or bad --to, over-long text, and --lines with arguments', async () => {
    expect(await usageMessage('translate', 'hi')).toContain('--to');
    expect(await usageMessage('translate', 'hi', '--to', 'spanish')).toContain('BCP 47');
    expect(await usageMessage('translate', 'x'.repeat(5001), '--to', 'es')).toContain('5,000');
    expect(await usageMessage('translate', 'hi', '--to', 'es', '--lines')).toContain('stdin');
  });
});
