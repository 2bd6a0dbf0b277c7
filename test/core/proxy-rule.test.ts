// One rule for which requests go through a proxy: src/api/proxy.ts decides as
// undici's EnvHttpProxyAgent does, since that agent sends the requests. Each row is asked of
// both: undici's own choice (its agents swapped for labels) and proxyFor's.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { EnvHttpProxyAgent } from 'undici';
import { proxyFor, proxySettings, proxyVariableError } from '../../src/api/proxy.js';
import { tempConfigDir } from '../helpers/cli.js';
import { spawnCollect, svcCommand } from '../helpers/spawn.js';

const require = createRequire(import.meta.url);
const symbols = require('undici/lib/core/symbols') as Record<string, symbol>;

/** Which agent undici's EnvHttpProxyAgent picks for `url`: 'none', 'http' or 'https'. */
function undiciChoice(env: Record<string, string>, url: string): string {
  const { httpProxy, httpsProxy, noProxy } = proxySettings(env);
  const agent = new EnvHttpProxyAgent({ httpProxy, httpsProxy, noProxy }) as unknown as Record<symbol, unknown>;
  const label = (name: string) => ({ dispatch: () => name });
  agent[symbols.kNoProxyAgent!] = label('none');
  if (httpProxy) agent[symbols.kHttpProxyAgent!] = label('http');
  else agent[symbols.kHttpProxyAgent!] = agent[symbols.kNoProxyAgent!];
  agent[symbols.kHttpsProxyAgent!] = httpsProxy ? label('https') : agent[symbols.kHttpProxyAgent!];
  const dispatch = agent[symbols.kDispatch!] as (opts: { origin: string }, handler: object) => string;
  return dispatch.call(agent, { origin: new URL(url).origin }, {});
}

function ourChoice(env: Record<string, string>, url: string): string {
  const choice = proxyFor(proxySettings(env), new URL(url));
  if (!choice.proxy) return 'none';
  const s = proxySettings(env);
  return new URL(url).protocol === 'https:' && s.httpsProxy ? 'https' : 'http';
}

const P = 'http://proxy.example:3128';
const ROWS: [Record<string, string>, string][] = [
  [{ HTTP_PROXY: P }, 'http://127.0.0.1:9999/'],
  [{ HTTP_PROXY: P, NO_PROXY: '127.0.0.1:9999' }, 'http://127.0.0.1:9999/'],
  [{ HTTP_PROXY: P, NO_PROXY: '127.0.0.1:9999' }, 'http://127.0.0.1:8888/'],
  [{ HTTP_PROXY: P, NO_PROXY: '127.0.0.1' }, 'http://127.0.0.1:8888/'],
  [{ HTTP_PROXY: P, NO_PROXY: 'example.com:80' }, 'http://api.example.com/'],
  [{ HTTP_PROXY: P, NO_PROXY: 'example.com:443' }, 'http://api.example.com/'],
  [{ HTTPS_PROXY: P, NO_PROXY: 'example.com:443' }, 'https://api.example.com/'],
  [{ HTTP_PROXY: P, NO_PROXY: '.example.com' }, 'http://api.example.com/'],
  [{ HTTP_PROXY: P, NO_PROXY: '*.example.com' }, 'http://example.com/'],
  [{ HTTP_PROXY: P, NO_PROXY: 'EXAMPLE.com' }, 'http://Api.Example.COM/'],
  [{ HTTP_PROXY: P, NO_PROXY: 'ample.com' }, 'http://example.com/'],
  [{ HTTP_PROXY: P, NO_PROXY: '*' }, 'http://example.com/'],
  [{ HTTP_PROXY: P, NO_PROXY: 'a.com,*' }, 'http://example.com/'],
  [{ HTTP_PROXY: P, NO_PROXY: 'a.com example.com' }, 'http://example.com/'],
  [{ HTTP_PROXY: P, NO_PROXY: '::1' }, 'http://[::1]:8080/'],
  [{ HTTP_PROXY: P, NO_PROXY: '[::1]' }, 'http://[::1]:8080/'],
  [{ HTTP_PROXY: P, NO_PROXY: '[::1]:8080' }, 'http://[::1]:8080/'],
  [{ HTTP_PROXY: P }, 'https://example.com/'],
  [{ HTTPS_PROXY: P }, 'http://example.com/'],
  [{ HTTPS_PROXY: P }, 'https://example.com/'],
  [{ http_proxy: P }, 'http://example.com/'],
  [{ HTTP_PROXY: '', http_proxy: P }, 'http://example.com/'],
  [{ HTTP_PROXY: P, no_proxy: 'example.com' }, 'http://example.com/'],
  [{ HTTP_PROXY: P, NO_PROXY: '', no_proxy: 'example.com' }, 'http://example.com/'],
];

describe('proxyFor decides as undici does', () => {
  it.each(ROWS)('%j → %s', (env, url) => {
    expect(ourChoice(env, url)).toBe(undiciChoice(env, url));
  });

  it('the port in NO_PROXY counts (it was stripped: doctor said "bypasses the proxy" for a request that went through it)', () => {
    expect(proxyFor(proxySettings({ HTTP_PROXY: P, NO_PROXY: '127.0.0.1:9999' }), new URL('http://127.0.0.1:8888/'))).toEqual({ proxy: `${P}/` });
    expect(proxyFor(proxySettings({ HTTP_PROXY: P, NO_PROXY: '127.0.0.1:9999' }), new URL('http://127.0.0.1:9999/'))).toEqual({ bypassedBy: '127.0.0.1:9999' });
  });
});

describe('a proxy variable that is no address', () => {
  it.each([
    [{ HTTP_PROXY: 'not a url' }, 'HTTP_PROXY'],
    [{ https_proxy: 'proxy:3128' }, 'https_proxy'],
    [{ HTTPS_PROXY: 'ftp://proxy' }, 'HTTPS_PROXY'],
  ])('%j: a usage error naming %s', (env, name) => {
    const error = proxyVariableError(proxySettings(env));
    expect(error?.exitCode).toBe(2);
    expect(error?.message).toMatch(new RegExp(`^${name} is not a proxy's address`));
  });

  it('an address is none', () => {
    expect(proxyVariableError(proxySettings({ HTTP_PROXY: P, HTTPS_PROXY: 'https://user:pw@proxy:8443' }))).toBeUndefined();
  });
});

describe('a bad proxy variable, on the real launcher', () => {
  it('one error on stderr naming the variable, exit 2 (closing the pool that never opened adds nothing)', async () => {
    const home = tempConfigDir();
    const [command, args] = svcCommand(['--json', 'account']);
    const r = await spawnCollect(command, args, {
      env: {
        PATH: process.env.PATH,
        HOME: home,
        SVC_CONFIG_DIR: home,
        HTTP_PROXY: 'not a url',
        SVC_API_KEY: 'svc_test_proxy000000000000000000',
        SVC_BASE_URL: 'http://127.0.0.1:9',
      },
    });
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!).error.message).toMatch(/^HTTP_PROXY is not a proxy's address/);
  });
});
