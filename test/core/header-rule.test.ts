// One RFC 9110 rule for a header's name and value (src/api/http.ts), asked by `svc api -H` and
// `events tail --forward-header` too (issue 42: their copies let a control character through).
import { describe, expect, it } from 'vitest';
import { parseHeader } from '../../src/commands/api.js';
import { parseForwardHeader } from '../../src/events/routes.js';

describe('a header typed on the command line', () => {
  it.each([
    ['svc api -H', parseHeader],
    ['--forward-header', parseForwardHeader],
  ] as const)('%s: the name is an RFC 9110 token, the value has no control character, line break or text past Latin-1', (_flag, parse) => {
    expect(parse('X-Trace: abc 123')).toEqual(['x-trace', 'abc 123']);
    expect(() => parse('X Trace: abc')).toThrow(/Name: value/);
    expect(() => parse('X-Trace: a\u0001b')).toThrow(/has a control character/);
    expect(() => parse('X-Trace: a\u007fb')).toThrow(/has a control character/);
    expect(() => parse('X-Trace: a\rb')).toThrow(/has a line break/);
    expect(() => parse('X-Trace: a\u0000b')).toThrow(/has a control character/);
    expect(() => parse('X-Trace: 日本')).toThrow(/beyond Latin-1/);
    expect(() => parse(`X-Trace: ${'a'.repeat(70_000)}`)).toThrow(/more than the .* a server reads/);
  });
});
