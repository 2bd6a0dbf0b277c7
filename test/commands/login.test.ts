// `svc login`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../helpers/parse.js';

const { ok, refused } = parsing('login');

describe('svc login: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('login')).toEqual({ browser: true, timeoutSeconds: 300 });
    expect(await ok('login', '--no-browser', '--scopes', 'calls:read,calls:read', '--port', '8123', '--timeout', '90s', '--client-id', 'svc_app_acme')).toEqual(
      {
        browser: false,
        scopes: ['calls:read'],
        port: 8123,
        timeoutSeconds: 90,
        clientId: 'svc_app_acme',
      },
    );
    expect(await refused('login', '--scopes', 'calls:fly')).toContain('unknown scope "calls:fly"');
    expect(await refused('login', '--port', '70000')).toContain('--port "70000" must be a whole number from 1 to 65535');
    expect(await refused('login', '--timeout', 'soon')).toContain('--timeout');
    expect(await refused('login', '--browser')).toContain("unknown option '--browser'");
  });
});
