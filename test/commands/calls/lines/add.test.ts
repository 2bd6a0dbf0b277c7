// `svc calls lines add`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../../helpers/parse.js';

const { ok, refused } = parsing('calls lines add');

describe('svc calls lines add: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('calls', 'lines', 'add', '--country', 'us', '--area-code', '415')).toEqual({ country: 'US', areaCode: '415' });
    expect(await refused('calls', 'lines', 'add')).toContain("required option '--country <cc>' not specified");
    expect(await ok('calls', 'lines', 'add', '--country', 'US', '--dry-run')).toMatchObject({ country: 'US', dryRun: true });
  });
});
