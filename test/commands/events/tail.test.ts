// `svc events tail`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok, refused } = parsing('events tail');

describe('svc events tail: parse', () => {
  it('parses its flags and arguments', async () => {
    const opts = (await ok(
      'events',
      'tail',
      '--type',
      'call.',
      '--type',
      'chat.closed',
      '--since',
      'evt_1',
      '--max-events',
      '10',
      '--forward-to',
      'http://localhost:3000/h',
      '--timeout',
      '30s',
    )) as Record<string, unknown>;
    expect(opts).toMatchObject({ since: 'evt_1', maxEvents: 10, routes: [{ url: 'http://localhost:3000/h' }], deadlineMs: 30_000 });
    expect(opts.types).toHaveLength(2);
    expect(await refused('events', 'tail', '--max-events', '0')).toContain('--max-events');
    expect(await refused('events', 'tail', '--forward-to', 'ftp://x')).toContain('http or https');
    expect(await refused('events', 'tail', '--type', 'nonsense')).toContain('not an event type');
    expect(
      await ok(
        'events',
        'tail',
        '--forward-to',
        'call.*=http://localhost:3000/calls',
        '--forward-header',
        'X-Env: test',
        '--dead-letter',
        'dead.ndjson',
        '--record',
        'all.ndjson',
        '--checkpoint',
        'tail.ckpt',
        '--fail-on-gap',
      ),
    ).toMatchObject({ deadLetter: 'dead.ndjson', record: 'all.ndjson', checkpoint: 'tail.ckpt', failOnGap: true, forwardHeaders: { 'x-env': 'test' } });
    expect(await ok('events', 'tail', '--print-secret')).toMatchObject({ printSecret: true });
  });
});
