// `svc events list`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok, refused } = parsing('events list');

describe('svc events list: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('events', 'list', '--type', 'call.*', '--limit', '5')).toMatchObject({ limit: 5, all: false });
    expect(await refused('events', 'list', 'extra')).toContain('too many arguments');
  });
});
