// The pure pieces of the request pipe (issue 33): the one mapping of what a transport's library
// threw to svc's own error (src/api/network.ts), and the one retry loop, whose facts come back
// as a value (src/api/retry.ts).
import { describe, expect, it } from 'vitest';
import { ConnectionError, connectionError } from '../../src/api/network.js';
import { CertificateRefusedError, HeadersTooLargeError } from '../../src/api/limits.js';
import { withRetries, type Outcome } from '../../src/api/retry.js';
import { runCli } from '../helpers/cli.js';

const https = new URL('https://api.example.test:8443/v1/account');
const http = new URL('http://127.0.0.1:4010/v1/account');
const withCode = (code: string, message = `${code} from the library`) => Object.assign(new Error(message), { code });
const noTls = async () => false;

describe('connectionError: one mapping for both transports', () => {
  it("Node's and undici's codes become the same failure, worded without them", async () => {
    const cases: Array<[unknown, URL, boolean, string]> = [
      [withCode('ECONNREFUSED'), http, false, 'nothing answered there (connection refused); nothing was sent'],
      // Happy eyeballs: every address refused.
      [new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')]), http, false, 'nothing answered there (connection refused); nothing was sent'],
      [withCode('ENOTFOUND'), https, false, 'no such host (api.example.test does not resolve); nothing was sent'],
      [withCode('UND_ERR_CONNECT_TIMEOUT'), https, false, 'no connection; nothing was sent'],
      [withCode('UND_ERR_HEADERS_TIMEOUT'), https, true, 'no answer'],
      [withCode('UND_ERR_SOCKET', 'other side closed'), https, true, 'the connection ended before the answer'],
      [
        withCode('EPROTO', 'write EPROTO 00:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/ssl3_record.c:354:'),
        https,
        true,
        'the server there does not speak https (it answered in plain http); nothing was sent',
      ],
      [withCode('ERR_SSL_WRONG_VERSION_NUMBER'), https, true, 'the server there does not speak https (it answered in plain http); nothing was sent'],
    ];
    for (const [raw, url, reached, words] of cases) {
      const mapped = await connectionError(raw, { url, reached }, noTls);
      expect(mapped).toBeInstanceOf(ConnectionError);
      expect(mapped.message).toBe(`cannot reach ${url.origin}: ${words}`);
      expect(mapped.exitCode).toBe(9);
      expect(mapped.message + (mapped.hint ?? '')).not.toMatch(/UND_ERR|EPROTO|ECONN|ENOTFOUND|ssl3|openssl/i);
    }
  });

  it('an http:// connection closed unanswered is asked whether it speaks TLS, and told to use https', async () => {
    let asked: URL | undefined;
    const mapped = await connectionError(withCode('ECONNRESET', 'socket hang up'), { url: http, reached: true }, async (url) => {
      asked = url;
      return true;
    });
    expect(asked?.host).toBe('127.0.0.1:4010');
    expect(mapped.message).toBe('cannot reach http://127.0.0.1:4010: the server there speaks https, not plain http; nothing was sent');
    expect(mapped.hint).toContain('use https://127.0.0.1:4010');
    expect((mapped as ConnectionError).retryable).toBe(false);
    // A server that is not TLS: a dropped connection, which may be tried again.
    const dropped = await connectionError(withCode('ECONNRESET', 'socket hang up'), { url: http, reached: true }, noTls);
    expect(dropped.message).toBe('cannot reach http://127.0.0.1:4010: the connection ended before the answer');
    expect((dropped as ConnectionError).retryable).toBe(true);
  });

  it('behind a proxy, the proxy is named and is what to check when nothing answered', async () => {
    const mapped = await connectionError(withCode('ECONNREFUSED'), { url: https, reached: false, proxy: 'http://proxy.test:3128/' }, noTls);
    expect(mapped.message).toBe(
      'cannot reach https://api.example.test:8443 through the proxy http://proxy.test:3128/: nothing answered there (connection refused); nothing was sent',
    );
    expect(mapped.hint).toContain('is the proxy running?');
  });

  it('a refused certificate and oversized headers keep their own errors', async () => {
    expect(await connectionError(withCode('DEPTH_ZERO_SELF_SIGNED_CERT'), { url: https, reached: false }, noTls)).toBeInstanceOf(CertificateRefusedError);
    expect(await connectionError(withCode('UND_ERR_HEADERS_OVERFLOW'), { url: https, reached: true }, noTls)).toBeInstanceOf(HeadersTooLargeError);
  });

  it('after its tries: the attempts, and "may have been processed" only for a request that reached the service and was not repeated', () => {
    const reached = new ConnectionError({ failure: 'dropped', origin: http.origin, reached: true });
    expect(reached.after({ attempts: 3 }).message).toBe('cannot reach http://127.0.0.1:4010: the connection ended before the answer; 3 attempts');
    const post = reached.after({ attempts: 1, notRepeated: true });
    expect(post.message).toBe('cannot reach http://127.0.0.1:4010: the connection ended before the answer; not repeated: the request may have been processed');
    expect(post.hint).toContain('check whether it took effect');
    const handshake = new ConnectionError({ failure: 'no-answer', origin: https.origin, reached: false, waitedMs: 30_000 });
    expect(handshake.after({ attempts: 3 }).message).toBe(
      'cannot reach https://api.example.test:8443: the connection was made but the TLS handshake did not finish within 30 s; 3 attempts, nothing was sent',
    );
  });
});

describe('withRetries: one loop, its facts a value', () => {
  /** A clock that only moves when slept on, recording the waits. */
  function loop(outcomes: Array<Outcome | undefined>, method = 'GET', deadlineAt?: number) {
    const waits: number[] = [];
    let now = 0;
    let tries = 0;
    const run = withRetries(
      method,
      async (attempt) => {
        tries = attempt;
        const outcome = outcomes[attempt - 1];
        return outcome ? { value: `try ${attempt}`, outcome } : { value: `try ${attempt}` };
      },
      {
        clock: {
          now: () => now,
          sleep: async (ms: number) => {
            waits.push(ms);
            now += ms;
          },
        },
        random: { bytes: (n: number) => new Uint8Array(n) },
        signal: new AbortController().signal,
        ...(deadlineAt !== undefined ? { deadlineAt } : {}),
      },
    );
    return { run, waits, tries: () => tries };
  }

  it('a 502 then an answer: the answer, after one backoff', async () => {
    const { run, waits } = loop([{ status: 502 }, undefined]);
    expect(await run).toEqual({ value: 'try 2', retry: { attempts: 2 } });
    expect(waits).toEqual([125]);
  });

  it('502 every time: the last answer, with how many tries and why it stopped', async () => {
    const { run, waits } = loop([{ status: 502 }, { status: 502 }, { status: 502 }]);
    expect(await run).toEqual({ value: 'try 3', retry: { attempts: 3, stopped: 'attempts' } });
    expect(waits).toEqual([125, 250]);
  });

  it('a POST that may have been processed is not repeated; one never sent is', async () => {
    expect(await loop([{ status: 502 }], 'POST').run).toEqual({ value: 'try 1', retry: { attempts: 1, stopped: 'not-idempotent' } });
    expect(await loop([{ networkError: true, reached: false }, undefined], 'POST').run).toEqual({ value: 'try 2', retry: { attempts: 2 } });
  });

  it('a Retry-After longer than svc waits: at once, with the figure', async () => {
    const { run, waits } = loop([{ status: 429, retryAfter: '120' }]);
    expect(await run).toEqual({ value: 'try 1', retry: { attempts: 1, stopped: 'retry-after-too-long', retryAfterMs: 120_000 } });
    expect(waits).toEqual([]);
  });

  it('a wait that would pass the overall deadline is not waited', async () => {
    const { run, waits } = loop([{ status: 429, retryAfter: '5' }], 'GET', 3000);
    expect(await run).toEqual({ value: 'try 1', retry: { attempts: 1, stopped: 'deadline', retryAfterMs: 5000 } });
    expect(waits).toEqual([]);
  });
});

describe('behind a proxy (undici)', () => {
  it("a proxy that does not answer is named, in every command's words", async () => {
    const r = await runCli(['account'], {
      env: { SVC_API_KEY: 'svc_test_proxied0000000000000000', SVC_BASE_URL: 'http://127.0.0.1:9', HTTP_PROXY: 'http://127.0.0.1:1' },
    });
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toContain('cannot reach http://127.0.0.1:9 through the proxy http://127.0.0.1:1/: nothing answered there (connection refused)');
    expect(r.stderr).toContain('is the proxy running?');
    expect(r.stderr).not.toMatch(/UND_ERR|ECONNREFUSED/);
  });
});

describe('isRetryableFailure: a stream reconnects for what another try can change', () => {
  it('the network and the transient statuses (429, 502–504) yes; a scheme, a certificate, a 404, a 500, svc refusing no', async () => {
    const { isRetryableFailure } = await import('../../src/api/retry.js');
    const { ApiError, UsageError } = await import('../../src/errors.js');
    expect(isRetryableFailure(new ConnectionError({ failure: 'dropped', origin: http.origin, reached: true }))).toBe(true);
    expect(isRetryableFailure(new ConnectionError({ failure: 'speaks-https', origin: http.origin, reached: false }))).toBe(false);
    expect(isRetryableFailure(new CertificateRefusedError(https.origin, 'DEPTH_ZERO_SELF_SIGNED_CERT'))).toBe(false);
    expect(isRetryableFailure(new ApiError('x', 503, 9, undefined))).toBe(true);
    expect(isRetryableFailure(new ApiError('x', 429, 7, undefined))).toBe(true);
    // The one set of transient statuses (issue 52): a 500 is final for a request, so for a stream's reconnect too.
    expect(isRetryableFailure(new ApiError('x', 500, 1, undefined))).toBe(false);
    expect(isRetryableFailure(new ApiError('x', 501, 1, undefined))).toBe(false);
    expect(isRetryableFailure(new ApiError('x', 404, 5, undefined))).toBe(false);
    expect(isRetryableFailure(new UsageError('x'))).toBe(false);
  });
});

describe('one retry loop per kind of request', () => {
  it("a request retries a 502; a stream is tried once, its reconnects being follow()'s alone", async () => {
    const { createApiClient } = await import('../../src/api/client.js');
    const { createHttp } = await import('../../src/api/http.js');
    const { recordingServer } = await import('../helpers/http-servers.js');
    const closers: Array<() => void> = [];
    const server = await recordingServer(
      (res) => res.writeHead(502, { 'content-type': 'application/json' }).end('{"detail":"upstream"}'),
      (close) => closers.push(close),
    );
    const transport = createHttp({ env: {}, userAgent: 'svc/test' });
    const client = createApiClient(
      {
        http: transport,
        clock: { now: () => Date.now(), sleep: async () => {} },
        random: { bytes: (n) => new Uint8Array(n) },
        env: {},
        signal: new AbortController().signal,
        io: { progress: () => {} },
        accessToken: async () => 'unused',
      },
      {
        kind: 'api_key',
        source: 'env',
        mode: 'test',
        profileName: 'default',
        profile: undefined,
        baseUrl: server.origin,
        apiKey: 'svc_test_loops000000000000000000',
      },
    );
    try {
      const request = await client.request({ endpoint: 'account.get' }).catch((e: unknown) => e);
      expect((request as Error).message).toContain('(after 3 attempts)');
      expect(server.requests).toHaveLength(3);
      server.requests.length = 0;
      const stream = await client.stream({ endpoint: 'events.stream' }).catch((e: unknown) => e);
      expect((stream as { status?: number }).status).toBe(502);
      expect(server.requests).toHaveLength(1);
    } finally {
      await transport.close();
      closers.forEach((close) => close());
    }
  });
});

describe('answers that are not what a person can act on as they stand', () => {
  it('a 431 says the headers are too large and which to check, not "failed with 431"', async () => {
    const { apiErrorFrom } = await import('../../src/api/errors.js');
    const error = apiErrorFrom(431, undefined, { method: 'GET', path: '/v1/account', origin: 'http://127.0.0.1:4010' });
    expect(error.message).toBe('http://127.0.0.1:4010 refused GET /v1/account: its headers are larger than it accepts (431)');
    expect(error.hint).toContain('SVC_API_KEY');
    expect(error.exitCode).toBe(1);
  });
});
