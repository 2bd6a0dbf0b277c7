// `svc api`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../helpers/parse.js';

const { ok, refused } = parsing('api');

describe('svc api: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('api', 'post', '/v1/chats', '-F', 'language=en', '-f', 'n=3', '-i')).toEqual({
      method: 'POST',
      path: '/v1/chats',
      fields: [
        { key: 'n', path: ['n'], value: '3', kind: 'raw' },
        { key: 'language', path: ['language'], value: 'en', kind: 'typed' },
      ],
      headers: {},
      include: true,
      paginate: false,
    });
    // gh's form: the path alone, -X for the method; a missing leading / is added.
    expect(await ok('api', 'v1/calls', '--paginate', '--jq', '.[].id', '-H', 'Last-Event-ID: evt_1')).toEqual({
      method: 'GET',
      path: '/v1/calls',
      fields: [],
      headers: { 'last-event-id': 'evt_1' },
      include: false,
      paginate: true,
    });
    expect(await ok('api', '/v1/calls/call_1', '-X', 'delete')).toMatchObject({ method: 'DELETE', path: '/v1/calls/call_1' });
    expect(await refused('api', 'GET', 'https://elsewhere.example/v1')).toContain('PATH must be a path such as /v1/calls');
    expect(await refused('api', 'FETCH', '/v1/calls')).toContain('METHOD must be one of');
    expect(await refused('api', 'GET', '/v1/calls', '-X', 'GET')).toContain('give the method once');
    expect(await refused('api', '/v1/calls', '-H', 'Authorization: Bearer x')).toContain('svc sends the credential itself');
    expect(await refused('api')).toContain("missing required argument 'method-or-path'");
  });
});
