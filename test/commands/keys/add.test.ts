// `svc keys add`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok, refused } = parsing('keys add');

describe('svc keys add: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('keys', 'add')).toEqual({ stdin: false, replace: false });
    expect(await ok('keys', 'add', '--name', 'ci', '--stdin')).toEqual({ name: 'ci', stdin: true, replace: false });
    expect(await ok('keys', 'add', '--org', 'org_acme')).toEqual({ stdin: false, org: 'org_acme', replace: false });
    expect(await ok('keys', 'add', '--replace')).toEqual({ stdin: false, replace: true });
    expect(await refused('keys', 'add', '--org', 'acme')).toContain('--org must be an organization id');
    expect(await refused('keys', 'add', '--name', 'bad name')).toContain('--name must be');
  });
});
