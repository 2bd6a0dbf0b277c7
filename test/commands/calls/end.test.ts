// `svc calls end`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok, refused } = parsing('calls end');

describe('svc calls end: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('calls', 'end', 'call_1')).toEqual({ id: 'call_1' });
    expect(await refused('calls', 'end', 'chat_1')).toContain('that is a chat id');
  });
});
