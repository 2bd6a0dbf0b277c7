// The pure parse() of every resource command: valid input becomes options, invalid
// input is a UsageError (exit 2) that says what a valid value looks like — all before
// any request is made.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import * as callsList from '../../src/commands/calls/list.js';
import * as callsGet from '../../src/commands/calls/get.js';
import * as callsStart from '../../src/commands/calls/start.js';
import * as callsEnd from '../../src/commands/calls/end.js';
import * as callsDial from '../../src/commands/calls/dial.js';
import * as linksList from '../../src/commands/calls/links-list.js';
import * as linksCreate from '../../src/commands/calls/links-create.js';
import * as linesAdd from '../../src/commands/calls/lines-add.js';
import * as linesRelease from '../../src/commands/calls/lines-release.js';
import * as chatsList from '../../src/commands/chats/list.js';
import * as chatsStart from '../../src/commands/chats/start.js';
import * as chatsClose from '../../src/commands/chats/close.js';
import * as chatsMessages from '../../src/commands/chats/messages.js';
import * as chatsSend from '../../src/commands/chats/send.js';
import * as chatsVoice from '../../src/commands/chats/voice.js';
import * as chatsStream from '../../src/commands/chats/stream.js';
import * as translate from '../../src/commands/translate.js';

function usageMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    return (error as Error).message;
  }
  throw new Error('expected a usage error');
}

describe('calls', () => {
  it('list: status, limit and all', () => {
    expect(callsList.parse([], {})).toEqual({ all: false });
    expect(callsList.parse([], { status: 'ended', limit: '5' })).toEqual({ all: false, status: 'ended', limit: 5 });
    expect(callsList.parse([], { all: true })).toEqual({ all: true });
    // @ts-expect-error commander refuses this before parse runs; parse refuses it too
    expect(usageMessage(() => callsList.parse([], { status: 'open' }))).toContain('active, ended');
    expect(usageMessage(() => callsList.parse([], { limit: '500' }))).toContain('1 to 100');
    expect(usageMessage(() => callsList.parse([], { limit: '5', all: true }))).toContain('not both');
  });

  it('get/end: ids by prefix', () => {
    expect(callsGet.parse(['call_abc'], {})).toEqual({ id: 'call_abc' });
    // @ts-expect-error commander refuses this before parse runs; parse refuses it too
    expect(usageMessage(() => callsGet.parse([], {}))).toContain('missing call ID');
    expect(usageMessage(() => callsEnd.parse(['chat_abc'], {}))).toContain('that is a chat id');
  });

  it('start: exactly two valid languages', () => {
    expect(callsStart.parse([], { languages: 'en,ES-mx', title: 'Intake' })).toEqual({ languages: ['en', 'es-MX'], title: 'Intake' });
    // @ts-expect-error commander refuses this before parse runs; parse refuses it too
    expect(usageMessage(() => callsStart.parse([], {}))).toContain('--languages en,es');
    expect(usageMessage(() => callsStart.parse([], { languages: 'en' }))).toContain('exactly two');
    expect(usageMessage(() => callsStart.parse([], { languages: 'en,es,fr' }))).toContain('exactly two');
    expect(usageMessage(() => callsStart.parse([], { languages: 'en,xx_YY' }))).toContain('BCP 47');
  });

  it('dial: E.164 number, line id and language', () => {
    expect(callsDial.parse(['call_1'], { to: '+1 415 555 0100', line: 'line_9', language: 'es' })).toEqual({
      callId: 'call_1',
      to: '+14155550100',
      lineId: 'line_9',
      language: 'es',
    });
    // @ts-expect-error commander refuses this before parse runs; parse refuses it too
    expect(usageMessage(() => callsDial.parse(['call_1'], {}))).toContain('missing --to');
    expect(usageMessage(() => callsDial.parse(['call_1'], { to: '555-0100' }))).toContain('+14155550100');
    expect(usageMessage(() => callsDial.parse(['call_1'], { to: '+14155550100', line: 'call_2' }))).toContain('phone line id');
  });

  it('links and lines', () => {
    expect(linksList.parse([], { limit: '3' })).toEqual({ all: false, limit: 3 });
    expect(linksCreate.parse([], { call: 'call_1', language: 'fr', expiresIn: '1h30m' })).toEqual({
      callId: 'call_1',
      language: 'fr',
      expiresInSeconds: 5400,
    });
    expect(usageMessage(() => linksCreate.parse([], { expiresIn: '60' }))).toContain('90s, 15m, 1h');
    expect(linesAdd.parse([], { country: 'us', areaCode: '415' })).toEqual({ country: 'US', areaCode: '415' });
    // @ts-expect-error commander refuses this before parse runs; parse refuses it too
    expect(usageMessage(() => linesAdd.parse([], {}))).toContain('--country US');
    expect(usageMessage(() => linesRelease.parse(['call_1'], {}))).toContain('line_8f2a1c');
  });
});

describe('chats', () => {
  it('list, start, close, messages', () => {
    expect(chatsList.parse([], { status: 'closed' })).toEqual({ all: false, status: 'closed' });
    // @ts-expect-error commander refuses this before parse runs; parse refuses it too
    expect(usageMessage(() => chatsList.parse([], { status: 'ended' }))).toContain('open, closed');
    expect(chatsStart.parse([], { language: 'fr', subject: 'Order 42' })).toEqual({ language: 'fr', subject: 'Order 42' });
    // @ts-expect-error commander refuses this before parse runs; parse refuses it too
    expect(usageMessage(() => chatsStart.parse([], {}))).toContain('--language fr');
    expect(usageMessage(() => chatsClose.parse(['call_1'], {}))).toContain('not a chat id');
    expect(chatsMessages.parse(['chat_1'], { all: true })).toEqual({ id: 'chat_1', all: true });
  });

  it('send: text from the arguments or, without them, stdin', () => {
    expect(chatsSend.parse(['chat_1', 'Hello', 'there'], {})).toEqual({ id: 'chat_1', text: 'Hello there' });
    expect(chatsSend.parse(['chat_1'], {})).toEqual({ id: 'chat_1' });
    expect(usageMessage(() => chatsSend.parse(['chat_1', '  '], {}))).toContain('empty');
  });

  it('voice: any file name, or - for stdin (the content type comes from the bytes, when it runs)', () => {
    expect(chatsVoice.parse(['chat_1', 'note.OGG'], {})).toEqual({ id: 'chat_1', file: 'note.OGG' });
    expect(chatsVoice.parse(['chat_1', 'recording.bin'], {})).toEqual({ id: 'chat_1', file: 'recording.bin' });
    expect(chatsVoice.parse(['chat_1', '-'], {})).toEqual({ id: 'chat_1', file: '-' });
    // @ts-expect-error commander refuses this before parse runs; parse refuses it too
    expect(usageMessage(() => chatsVoice.parse(['chat_1'], {}))).toContain('missing audio FILE');
  });

  it('stream: a chat id', () => {
    expect(chatsStream.parse(['chat_1'], {})).toEqual({ id: 'chat_1' });
  });
});

describe('translate', () => {
  it('text from arguments, languages checked', () => {
    expect(translate.parse(['Good', 'morning'], { to: 'ES', from: 'en' })).toEqual({ to: 'es', from: 'en', text: 'Good morning', lines: false });
    expect(translate.parse([['Good morning']] as unknown as string[], { to: 'de' }).text).toBe('Good morning');
    expect(translate.parse([], { to: 'de', lines: true })).toEqual({ to: 'de', lines: true });
  });

  it('refuses a missing or bad --to, over-long text, and --lines with arguments', () => {
    // @ts-expect-error commander refuses this before parse runs; parse refuses it too
    expect(usageMessage(() => translate.parse(['hi'], {}))).toContain('--to es');
    expect(usageMessage(() => translate.parse(['hi'], { to: 'spanish' }))).toContain('BCP 47');
    expect(usageMessage(() => translate.parse(['x'.repeat(5001)], { to: 'es' }))).toContain('5,000');
    expect(usageMessage(() => translate.parse(['hi'], { to: 'es', lines: true }))).toContain('stdin');
  });
});
