import { describe, expect, it } from 'vitest';
import { matchesType, parseTypePattern, serverTypeParams, type TypePattern } from '../../src/events/filter.js';
import { formatAway, random01From, SeenIds } from '../../src/api/resume.js';
import { formatEventLine, parseEvent, summarize, type ApiEvent } from '../../src/events/format.js';

function pattern(raw: string): TypePattern {
  const p = parseTypePattern(raw);
  if ('error' in p) throw new Error(p.error);
  return p;
}

describe('--type patterns', () => {
  it('reads family prefixes and exact types', () => {
    expect(pattern('call.*')).toEqual({ kind: 'prefix', prefix: 'call.' });
    expect(pattern('chat.message.created')).toEqual({ kind: 'exact', type: 'chat.message.created' });
    expect(pattern('*')).toEqual({ kind: 'prefix', prefix: '' });
    expect(pattern('call.')).toEqual({ kind: 'prefix', prefix: 'call.' });
    expect(pattern('call')).toEqual({ kind: 'prefix', prefix: 'call.' });
    expect(pattern('chat.message.*')).toEqual({ kind: 'prefix', prefix: 'chat.message.' });
  });

  it('refuses typos and unknown families, suggesting the family form', () => {
    const typo = parseTypePattern('call.start');
    expect('error' in typo && typo.error).toMatch(/did you mean call\.\*/);
    expect('error' in parseTypePattern('nope.*')).toBe(true);
    expect('error' in parseTypePattern('')).toBe(true);
    expect('error' in parseTypePattern('calls')).toBe(true);
    expect('error' in parseTypePattern('call.*.x')).toBe(true);
  });

  it('matches by prefix or exactly, everything when no pattern is given', () => {
    const ps = [pattern('call.*'), pattern('chat.message.created')];
    expect(matchesType('call.participant.dialed', ps)).toBe(true);
    expect(matchesType('chat.message.created', ps)).toBe(true);
    expect(matchesType('chat.started', ps)).toBe(false);
    expect(matchesType('callx.started', [pattern('call.*')])).toBe(false);
    expect(matchesType('anything', [])).toBe(true);
  });

  it('sends the patterns to the server, and none for *', () => {
    expect(serverTypeParams([pattern('call.*'), pattern('chat.closed')])).toEqual(['call.*', 'chat.closed']);
    expect(serverTypeParams([pattern('call.*'), pattern('*')])).toEqual([]);
  });
});

describe('reconnect jitter', () => {
  it('turns random bytes into [0, 1)', () => {
    expect(random01From(new Uint8Array([0, 0, 0]))).toBe(0);
    const top = random01From(new Uint8Array([255, 255, 255]));
    expect(top).toBeLessThan(1);
    expect(top).toBeGreaterThan(0.99);
  });

  it('says how long a tail was away', () => {
    expect(formatAway(420)).toBe('420 ms');
    expect(formatAway(3200)).toBe('3.2 s');
    expect(formatAway(65_000)).toBe('1 min 5 s');
    expect(formatAway(120_000)).toBe('2 min');
  });
});

describe('SeenIds', () => {
  it('admits an id once and forgets the oldest beyond its capacity', () => {
    const seen = new SeenIds(3);
    expect(seen.add('a')).toBe(true);
    expect(seen.add('a')).toBe(false);
    seen.add('b');
    seen.add('c');
    seen.add('d');
    expect(seen.size).toBe(3);
    expect(seen.add('a')).toBe(true);
    expect(seen.add('d')).toBe(false);
  });

  it('stays bounded over many ids', () => {
    const seen = new SeenIds(100);
    for (let i = 0; i < 10_000; i++) expect(seen.add(`evt_${i}`)).toBe(true);
    expect(seen.size).toBe(100);
    expect(seen.add('evt_9999')).toBe(false);
    expect(seen.add('evt_0')).toBe(true);
  });
});

describe('event lines', () => {
  const call: ApiEvent = {
    object: 'event',
    id: 'evt_1',
    type: 'call.started',
    created_at: '2026-01-02T03:04:05Z',
    livemode: false,
    data: { id: 'call_1', object: 'call', title: 'Intake', languages: ['en', 'es'], status: 'active' },
  };

  it('parses only JSON that is an event', () => {
    expect(parseEvent(JSON.stringify(call))).toEqual(call);
    expect(parseEvent('{"id":1}')).toBeNull();
    expect(parseEvent('not json')).toBeNull();
    // The contract's event shape, field by field, as `events list` answers are checked.
    for (const frame of ['{}', '[]', 'null', '"evt_1"', '{"object":"event",', '', '1']) expect(parseEvent(frame), frame).toBeNull();
    for (const field of ['object', 'id', 'type', 'created_at', 'livemode', 'data'] as const) {
      const missing: Record<string, unknown> = { ...call };
      delete missing[field];
      expect(parseEvent(JSON.stringify(missing)), `without ${field}`).toBeNull();
      expect(parseEvent(JSON.stringify({ ...call, [field]: field === 'livemode' ? 'false' : 7 })), `${field} mistyped`).toBeNull();
    }
    expect(parseEvent(JSON.stringify({ ...call, object: 'list' }))).toBeNull();
    expect(parseEvent(JSON.stringify({ ...call, data: null }))).toBeNull();
    expect(parseEvent(JSON.stringify({ ...call, data: [] }))).toBeNull();
  });

  it('summarizes each family by what matters', () => {
    expect(summarize(call)).toBe('call_1 "Intake" en→es active');
    expect(summarize({ id: 'e', type: 'chat.message.created', data: { id: 'msg_1', chat_id: 'chat_1', kind: 'text', text: 'hello\nthere' } })).toBe(
      'msg_1 in chat_1 "hello there"',
    );
    expect(summarize({ id: 'e', type: 'balance.updated', data: { available: 9950, currency: 'usd' } })).toBe('$99.50 available');
    expect(summarize({ id: 'e', type: 'line.released', data: { id: 'line_1', number: '+14155550100', country: 'US', status: 'released' } })).toBe(
      'line_1 +14155550100 US released',
    );
    expect(summarize({ id: 'e', type: 'future.thing', data: { id: 'x_1' } })).toBe('x_1');
    expect(summarize({ id: 'e', type: 'call.started', data: { object: 'synthetic', n: 3, of: 10 } })).toBe('synthetic 3/10');
    const long = summarize({ id: 'e', type: 'chat.message.created', data: { id: 'm', text: 'x'.repeat(500) } });
    expect(long.length).toBeLessThan(70);
  });

  it('uses tabs when piped and aligned, coloured columns on a terminal', () => {
    const piped = formatEventLine(call, 0, { tty: false, paintType: (_t, s) => s });
    expect(piped.split('\t')).toHaveLength(4);
    expect(piped.split('\t').slice(1)).toEqual(['call.started', 'evt_1', 'call_1 "Intake" en→es active']);
    const tty = formatEventLine(call, 0, { tty: true, paintType: (_t, s) => `<${s.trim()}>` });
    expect(tty).toMatch(/^\d\d:\d\d:\d\d  <call\.started>  evt_1  call_1/);
  });
});

describe('gapWarning', () => {
  it('calls an id "the last one delivered" only when this run delivered it', async () => {
    const { gapWarning } = await import('../../src/events/gap.js');
    const gap = { last_event_id: 'evt_nosuch', resumed_from: 'evt_0000000500' };
    expect(gapWarning(gap, undefined)).toBe(
      'warning: the service no longer retains the events after evt_nosuch (where this stream was asked to resume): later events may be missing; resuming from evt_0000000500, the oldest it still retains',
    );
    expect(gapWarning(gap, 'evt_0000000007')).toContain('after evt_0000000007 (the last one delivered)');
    expect(gapWarning({ last_event_id: 'start', resumed_from: null }, undefined)).toBe(
      'warning: the service no longer retains the events from the first one: later events may be missing; it retains none older than the live ones',
    );
    expect(gapWarning({ last_event_id: 'msg_1', resumed_from: null }, undefined, 'messages')).toContain('retains the messages after msg_1');
  });
});
