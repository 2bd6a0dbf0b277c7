// The events tail's pipeline alone (src/events/pipeline.ts): stream messages in,
// what a user sees out (stdout lines, stderr warnings, the checkpoint's position), with no
// network and no terminal.
import { describe, expect, it } from 'vitest';
import type { SseMessage } from '../../src/api/sse.js';
import { HandledTracker } from '../../src/events/checkpoint.js';
import { parseTypePattern, type TypePattern } from '../../src/events/filter.js';
import { LineWriter, TailPipeline, type TailPipelineOptions } from '../../src/events/pipeline.js';

const event = (n: number, type = 'call.started', extra = ''): SseMessage => ({
  id: `evt_${n}`,
  event: type,
  data: `{"object":"event","id":"evt_${n}","type":"${type}","created_at":"2030-01-01T00:00:00Z","livemode":false,"data":{}${extra}}`,
});

function pipelineOf(overrides: Partial<TailPipelineOptions> = {}, typeFilter: string[] = []) {
  let stdout = '';
  const stderr: string[] = [];
  const checkpointed: string[] = [];
  const tracker = new HandledTracker((id) => checkpointed.push(id));
  const out = new LineWriter(
    { write: (text) => void (stdout += text) },
    () => {},
    (seq) => tracker.printedThrough(seq),
  );
  const types = typeFilter.map((raw) => parseTypePattern(raw) as TypePattern);
  const pipeline = new TailPipeline({
    json: true,
    types,
    failOnGap: false,
    out,
    warn: (line) => stderr.push(line),
    formatLine: (e) => `${e.type} ${e.id}`,
    tracker,
    ...overrides,
  });
  const feed = (...messages: SseMessage[]) => messages.map((m) => pipeline.onMessage(m));
  const lines = () => {
    out.flush();
    return stdout.split('\n').filter(Boolean);
  };
  return { pipeline, feed, lines, stderr, checkpointed, out };
}

describe('the events tail pipeline', () => {
  it('prints each event once, in order, as the service sent it (a repeat after a resume is dropped)', () => {
    const p = pipelineOf();
    p.feed(event(1), event(2), event(1), event(3));
    expect(p.lines().map((l) => JSON.parse(l).id)).toEqual(['evt_1', 'evt_2', 'evt_3']);
    expect(p.pipeline.printed).toBe(3);
  });

  it('a --type filter hides the rest, but the checkpoint moves past them (they are handled)', () => {
    const p = pipelineOf({}, ['chat.']);
    p.feed(event(1), event(2, 'chat.closed'), event(3));
    expect(p.lines().map((l) => JSON.parse(l).id)).toEqual(['evt_2']);
    expect(p.checkpointed.at(-1)).toBe('evt_3');
  });

  it('a position moves the checkpoint before any event', () => {
    const p = pipelineOf();
    p.pipeline.onPosition('evt_0');
    expect(p.checkpointed).toEqual(['evt_0']);
  });

  it('a gap frame warns on stderr and goes on; with --fail-on-gap it stops with the error', () => {
    const gap: SseMessage = { event: 'gap', data: '{"last_event_id":"evt_1","resumed_from":"evt_5"}' };
    const p = pipelineOf();
    expect(p.feed(event(1), gap, event(5))).toEqual(['continue', 'continue', 'continue']);
    expect(p.stderr).toEqual([
      expect.stringMatching(/^warning: the service no longer retains the events after evt_1 \(the last one delivered\).*resuming from evt_5/),
    ]);
    expect(p.lines()).toHaveLength(2);

    const strict = pipelineOf({ failOnGap: true });
    expect(strict.feed(gap)).toEqual(['stop']);
    expect(strict.pipeline.gapFailure?.message).toMatch(/no longer retains/);
  });

  it('a gap naming --since stops as "unknown" on the first connection only; on a later one it is the warning', () => {
    const gap: SseMessage = { event: 'gap', data: '{"last_event_id":"evt_1","resumed_from":"evt_9"}' };
    const first = pipelineOf({ since: 'evt_1' });
    first.pipeline.onAnswered();
    expect(first.feed(gap)).toEqual(['stop']);
    expect(first.pipeline.gapFailure?.message).toMatch(/^--since evt_1: the service does not know this event/);
    expect(first.lines()).toEqual([]);

    // The first connection was answered without a gap (the id was known), then dropped with
    // nothing handed on (a --type filter); by the reconnect the id left retention.
    const later = pipelineOf({ since: 'evt_1' }, ['chat.closed']);
    later.pipeline.onAnswered();
    later.pipeline.onAnswered();
    expect(later.feed(gap, event(9, 'chat.closed'))).toEqual(['continue', 'continue']);
    expect(later.pipeline.gapFailure).toBeUndefined();
    expect(later.stderr).toEqual([
      expect.stringMatching(/^warning: the service no longer retains the events after evt_1 \(where this stream was asked to resume\)/),
    ]);
    expect(later.lines().map((l) => JSON.parse(l).id)).toEqual(['evt_9']);
  });

  it('stops after --max-events', () => {
    const p = pipelineOf({ maxEvents: 2 });
    expect(p.feed(event(1), event(2))).toEqual(['continue', 'stop']);
  });

  it('a message that is no event is skipped with a warning; a raw control character is re-serialised inert', () => {
    const p = pipelineOf();
    p.feed({ data: 'not json' }, event(1, 'call.started', ',"note":"a\u009bb"'));
    expect(p.stderr).toEqual(['warning: skipped a stream message that is not an event: not json']);
    const [line] = p.lines();
    expect(line).not.toContain('\u009b');
    expect(JSON.parse(line!).note).toBe('a\u009bb');
  });

  it('formats human lines when not --json', () => {
    const p = pipelineOf({ json: false });
    p.feed(event(7, 'chat.closed'));
    expect(p.lines()).toEqual(['chat.closed evt_7']);
  });

  it('an id that cannot be resumed from is reported once', () => {
    const p = pipelineOf();
    p.pipeline.onUnusableId('evt_\u0001', 'evt_1');
    p.pipeline.onUnusableId('evt_\u0002', 'evt_1');
    expect(p.stderr).toHaveLength(1);
    expect(p.stderr[0]).toMatch(/cannot be sent back to resume; a reconnection resumes after evt_1/);
  });
});
