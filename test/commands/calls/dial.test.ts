// `svc calls dial`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok, refused } = parsing('calls dial');

describe('svc calls dial: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('calls', 'dial', 'call_1', '--to', '+1 415 555 0100', '--line', 'line_9', '--language', 'es')).toEqual({
      callId: 'call_1',
      to: '+14155550100',
      lineId: 'line_9',
      language: 'es',
    });
    expect(await refused('calls', 'dial', 'call_1')).toContain("required option '--to <+E164>' not specified");
    expect(await ok('calls', 'dial', 'call_1', '--to', '+14155550100', '--dry-run')).toMatchObject({ callId: 'call_1', dryRun: true });
    expect(await refused('calls', 'dial', 'call_1', '--to', '555')).toContain('+14155550100');
  });
});
