// `svc calls start`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok, refused } = parsing('calls start');

describe('svc calls start: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('calls', 'start', '--languages', 'en,ES-mx', '--title', 'Intake')).toEqual({ languages: ['en', 'es-MX'], title: 'Intake' });
    expect(await refused('calls', 'start')).toContain("required option '--languages <a,b>' not specified");
    // A misspelled required flag is the typo it is, with its suggestion, not a missing flag.
    const typo = await refused('calls', 'start', '--langauges', 'en,es');
    expect(typo).toContain("unknown option '--langauges' (Did you mean --languages?)");
    expect(typo).not.toContain('required option');
    expect(await ok('calls', 'start', '--languages', 'en,es', '--dry-run')).toMatchObject({ dryRun: true });
    expect(await refused('calls', 'start', '--languages', 'en')).toContain('exactly two');
    expect(await refused('calls', 'start', '--languages', 'en,es', '--title', ' ')).toContain('--title is empty');
  });
});
