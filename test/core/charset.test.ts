// The ASCII stand-ins of a terminal whose locale is not UTF-8 (src/io/charset.ts): named
// locales only, terminals only, and never inside a JSON document.
import { describe, expect, it } from 'vitest';
import { asciiLocale, asciiWhereNeeded } from '../../src/io/charset.js';

function terminal(isTTY = true) {
  const written: string[] = [];
  return { written, output: { write: (chunk: string) => void written.push(chunk), isTTY, columns: 80 } };
}

describe('ASCII stand-ins', () => {
  it('only a named locale that is not UTF-8 asks for them', () => {
    expect(asciiLocale({ LANG: 'C' }, 'linux')).toBe(true);
    expect(asciiLocale({ LANG: 'en_US.ISO-8859-1' }, 'linux')).toBe(true);
    expect(asciiLocale({ LANG: 'C', LC_ALL: 'C.UTF-8' }, 'linux')).toBe(false);
    expect(asciiLocale({ LANG: 'en_US.utf8' }, 'linux')).toBe(false);
    expect(asciiLocale({}, 'linux')).toBe(false);
    expect(asciiLocale({ LANG: 'C' }, 'win32')).toBe(false);
  });

  it("at a terminal svc's words are ASCII, a JSON document stays as the API sent it; piped, nothing changes", () => {
    const tty = terminal();
    const out = asciiWhereNeeded(tty.output, { LANG: 'C' });
    out.write('Added test key "test" (svc_test_…abcd) → ok ✔\n');
    out.write('{\n  "redacted": "svc_test_…abcd"\n}\n');
    expect(tty.written).toEqual(['Added test key "test" (svc_test_...abcd) -> ok v\n', '{\n  "redacted": "svc_test_…abcd"\n}\n']);
    const piped = terminal(false);
    asciiWhereNeeded(piped.output, { LANG: 'C' }).write('svc_test_…abcd\n');
    expect(piped.written).toEqual(['svc_test_…abcd\n']);
  });
});
