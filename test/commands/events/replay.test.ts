// `svc events replay`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok, refused } = parsing('events replay');

describe('svc events replay: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('events', 'replay', 'package.json', '--no-wait')).toMatchObject({ file: 'package.json', speed: 0 });
    expect(await refused('events', 'replay', 'events.ndjson')).toContain('events.ndjson does not exist');
    expect(await ok('events', 'replay', 'package.json', '--speed', '10', '--type', 'call.*')).toMatchObject({ speed: 10 });
    expect(await refused('events', 'replay', 'package.json', '--speed', '10', '--no-wait')).toContain('not both');
    expect(await refused('events', 'replay')).toContain("missing required argument 'file'");
  });
});
