import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import {
  parseAreaCode,
  parseCountryCode,
  parseDurationMs,
  parseE164,
  parseId,
  parseLanguageList,
  parseLanguageTag,
  readKind,
  parseText,
} from '../../src/validate/index.js';

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected the validator to refuse the value');
}

describe('language tags (BCP 47)', () => {
  it.each([
    ['en', 'en'],
    ['EN-us', 'en-US'],
    ['zh-hant-tw', 'zh-Hant-TW'],
    ['es-419', 'es-419'],
    [' pt-BR ', 'pt-BR'],
  ])('accepts %s as %s', (input, canonical) => {
    expect(parseLanguageTag(input)).toBe(canonical);
  });

  it.each(['', 'x', 'english', '123', 'en--US', 'e1'])('refuses %j with an example of a valid tag', (input) => {
    expect(messageOf(() => parseLanguageTag(input))).toMatch(/BCP 47 language tag such as en, es/);
  });

  it('suggests a hyphen for an underscore', () => {
    expect(messageOf(() => parseLanguageTag('en_US'))).toContain('did you mean en-US?');
  });

  it('reads a comma-separated list and refuses duplicates', () => {
    expect(parseLanguageList('en, es-mx')).toEqual(['en', 'es-MX']);
    expect(messageOf(() => parseLanguageList('en,EN'))).toContain('twice');
    expect(messageOf(() => parseLanguageList('en,spanish'))).toContain('"spanish"');
  });
});

describe('E.164 numbers, countries, area codes', () => {
  it('accepts numbers and strips the punctuation people paste', () => {
    expect(parseE164('+14155550100')).toBe('+14155550100');
    expect(parseE164('+1 (415) 555-0100')).toBe('+14155550100');
    expect(parseE164('+44.20.7946.0958')).toBe('+442079460958');
  });

  it.each(['14155550100', '+0123456', '+1', '+12', '+123456', '+1234567890123456', '+1415abc0100', ''])('refuses %j', (input) => {
    expect(messageOf(() => parseE164(input))).toContain('e.g. +14155550100');
  });

  it("takes 7 to 15 digits, country code included (the contract's limits), and says so when the count is off", () => {
    expect(parseE164('+683 4002')).toBe('+6834002'); // Niue: a real 7-digit number
    expect(parseE164('+12345678')).toBe('+12345678');
    expect(parseE164('+123456789012345')).toBe('+123456789012345');
    expect(messageOf(() => parseE164('+12'))).toContain('it has 2 digits; E.164 numbers have 7 to 15');
    expect(messageOf(() => parseE164('+1 234 56'))).toContain('it has 6 digits');
    expect(messageOf(() => parseE164('+1234567890123456'))).toContain('it has 16 digits');
  });

  it('explains a missing plus sign', () => {
    expect(messageOf(() => parseE164('4155550100'))).toContain('must start with +');
  });

  it('upper-cases countries and checks area codes', () => {
    expect(parseCountryCode('us')).toBe('US');
    expect(messageOf(() => parseCountryCode('USA'))).toContain('two-letter');
    expect(parseAreaCode('415')).toBe('415');
    expect(messageOf(() => parseAreaCode('4a5'))).toContain('2 to 5 digits');
  });
});

describe('durations', () => {
  it.each([
    ['90s', 90_000],
    ['15m', 900_000],
    ['1h', 3_600_000],
    ['2d', 172_800_000],
    ['1h30m', 5_400_000],
    ['1H', 3_600_000],
  ])('%s is %i ms', (input, ms) => {
    expect(parseDurationMs(input)).toBe(ms);
  });

  it.each(['60', '1w', 'h', '-1h', '1.5h', '', '1h1h'])('refuses %j with examples', (input) => {
    expect(messageOf(() => parseDurationMs(input))).toMatch(/90s|repeats/);
  });

  it('refuses zero', () => {
    expect(messageOf(() => parseDurationMs('0s'))).toContain('longer than zero');
  });
});

describe('ids by prefix', () => {
  it('accepts ids of the right kind', () => {
    expect(parseId('call_Q3vX8kTz1mLp9RbW2cYd', 'call')).toBe('call_Q3vX8kTz1mLp9RbW2cYd');
    expect(parseId(' chat_AbC-9 ', 'chat')).toBe('chat_AbC-9');
  });

  it('names the kind an id of the wrong kind belongs to', () => {
    const message = messageOf(() => parseId('chat_123', 'call'));
    expect(message).toContain('not a call id');
    expect(message).toContain('that is a chat id');
    expect(message).toContain('call_Q3vX8kTz1mLp9RbW2cYd');
  });

  it('says "an" before event and organization', () => {
    const event = messageOf(() => parseId('call_1', 'event'));
    expect(event).toContain('is not an event id');
    expect(event).toContain('that is a call id');
    expect(messageOf(() => parseId('evt_1', 'call'))).toContain('that is an event id');
    expect(messageOf(() => parseId('x', 'org'))).toContain('is not an organization id');
    expect(messageOf(() => parseId('x', 'line'))).toContain('is not a phone line id');
  });

  it.each(['', 'call_', '123', 'line_12 3', 'call_../x'])('refuses %j', (input) => {
    expect(messageOf(() => parseId(input, 'line'))).toContain('line_Q3vX8kTz1mLp9RbW2cYd');
  });
});

describe('kinds: what a declared flag or argument reads to', () => {
  const limit = { type: 'integer', min: 1, max: 100 } as const;
  it('an integer within its bounds', () => {
    expect(readKind(limit, '1', '--limit')).toBe(1);
    expect(readKind(limit, '100', '--limit')).toBe(100);
  });

  it.each(['0', '101', '-5', '2.5', 'ten', ''])('refuses --limit %j, naming the bounds', (input) => {
    expect(messageOf(() => readKind(limit, input, '--limit'))).toBe(`--limit "${input}" must be a whole number from 1 to 100`);
  });

  it('a duration in milliseconds, within its bounds', () => {
    expect(readKind({ type: 'duration' }, '1h30m', '--timeout')).toBe(5_400_000);
    expect(messageOf(() => readKind({ type: 'duration', max: '1h' }, '2h', '--timeout'))).toContain('longer than 1h');
    expect(messageOf(() => readKind({ type: 'duration', min: '10s' }, '5s', '--timeout'))).toContain('shorter than 10s');
  });

  it('money in exact cents', () => {
    expect(readKind({ type: 'money' }, '0.29', '--max-spend')).toBe(29); // 0.29 * 100 is 28.999999999999996
    expect(readKind({ type: 'money' }, '$5', '--max-spend')).toBe(500);
    expect(readKind({ type: 'money' }, '0.015', '--max-spend')).toBe(1.5);
    expect(messageOf(() => readKind({ type: 'money' }, '-1', '--max-spend'))).toContain('not an amount');
  });

  it('an id by its prefix, naming the flag', () => {
    expect(readKind({ type: 'id', prefix: 'evt_' }, 'evt_1', '--since')).toBe('evt_1');
    expect(messageOf(() => readKind({ type: 'id', prefix: 'evt_' }, 'call_1', '--since'))).toContain('--since "call_1" is not an event id');
  });

  it('a language in canonical case', () => {
    expect(readKind({ type: 'language' }, 'pt-br', '--to')).toBe('pt-BR');
    expect(messageOf(() => readKind({ type: 'language' }, 'en_US', '--to'))).toContain('did you mean en-US');
  });

  it('refuses empty and over-long text', () => {
    expect(parseText('hi', 'text', 10)).toBe('hi');
    expect(messageOf(() => parseText('  ', 'text', 10))).toContain('empty');
    expect(messageOf(() => parseText('x'.repeat(11), 'text', 10))).toContain('limit is 10');
  });
});

describe('voice files', () => {
  it('maps extensions to audio types and refuses the rest', async () => {
    const { audioContentType, checkVoiceSize, MAX_VOICE_BYTES } = await import('../../src/validate/index.js');
    expect(audioContentType('a.wav')).toBe('audio/wav');
    expect(audioContentType('A.M4A')).toBe('audio/mp4');
    expect(messageOf(() => audioContentType('photo.png'))).toContain('not an audio file');
    expect(messageOf(() => checkVoiceSize('a.ogg', 0))).toContain('empty');
    expect(messageOf(() => checkVoiceSize('a.ogg', MAX_VOICE_BYTES + 1))).toContain('at most 10 MiB');
    expect(() => checkVoiceSize('a.ogg', MAX_VOICE_BYTES)).not.toThrow();
    expect(messageOf(() => checkVoiceSize('a.ogg', MAX_VOICE_BYTES + 1))).toMatch(/trim .*compress .*under 10 MiB/);
  });

  it('sniffs the first bytes: every accepted format by its signature, anything else refused', async () => {
    const { sniffAudio } = await import('../../src/validate/index.js');
    const bytes = (...values: Array<number | string>) =>
      Uint8Array.from(values.flatMap((v) => (typeof v === 'string' ? [...v].map((c) => c.charCodeAt(0)) : [v])));
    expect(sniffAudio('a', bytes('OggS', 0, 2))).toBe('Ogg');
    expect(sniffAudio('a', bytes('ID3', 4, 0))).toBe('MP3 (ID3 tag)');
    expect(sniffAudio('a', bytes(0xff, 0xfb, 0x90))).toBe('MPEG/AAC frame');
    expect(sniffAudio('a', bytes(0xff, 0xe2))).toBe('MPEG/AAC frame');
    expect(sniffAudio('a', bytes(0xff, 0xf1))).toBe('MPEG/AAC frame'); // AAC ADTS
    expect(sniffAudio('a', bytes('RIFF', 0x24, 0, 0, 0, 'WAVE'))).toBe('WAV');
    expect(sniffAudio('a', bytes('fLaC'))).toBe('FLAC');
    expect(sniffAudio('a', bytes(0, 0, 0, 0x20, 'ftypM4A '))).toBe('MP4/M4A');
    expect(sniffAudio('a', bytes(0x1a, 0x45, 0xdf, 0xa3))).toBe('WebM');
    expect(sniffAudio('a', bytes('#!AMR\n'))).toBe('AMR');

    const refused = [
      bytes('hello world, this is text'),
      bytes('RIFF', 0, 0, 0, 0, 'AVI '), // RIFF, but a video
      bytes(0xff, 0xd8, 0xff, 0xe0), // JPEG: 0xFF then 0xD8 has no sync bits
      bytes(0x89, 'PNG'),
      bytes('Ogg'), // cut short
      bytes(),
    ];
    for (const head of refused) {
      const message = messageOf(() => sniffAudio('fake.ogg', head));
      expect(message).toContain('fake.ogg does not contain audio');
      expect(message).toContain('Ogg/Opus, MP3');
    }
  });
});

describe('text length in characters', () => {
  it('counts an emoji as one character, as the service does', () => {
    const emoji = '😀'.repeat(10); // 20 UTF-16 units
    expect(parseText(emoji, 'text', 10)).toBe(emoji);
    expect(messageOf(() => parseText(emoji + '😀', 'text', 10))).toContain('11 characters long');
  });
});
