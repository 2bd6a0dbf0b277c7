// `svc translate`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../helpers/parse.js';

const { ok, refused } = parsing('translate');

describe('svc translate: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('translate', 'Good', 'morning', '--to', 'ES', '--from', 'en')).toEqual({ to: 'es', from: 'en', text: 'Good morning', lines: false });
    expect(await ok('translate', '--to', 'de', '--lines')).toEqual({ to: 'de', lines: true });
    expect(await refused('translate', 'hi')).toContain("required option '--to <lang>' not specified");
    expect(await ok('translate', 'hi', '--to', 'es', '--dry-run')).toMatchObject({ to: 'es', dryRun: true });
    expect(await refused('translate', 'hi', '--to', 'es', '--lines')).toContain('stdin');
  });
});
