// Every status of the spec's error table, through real HTTP against the emulator: the
// message names cause and next step, the exit code is docs/design.md's, retries happen
// where they should (429 any method; 502/network only idempotent) and nowhere else.
import { describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { runCli } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';

/** The file's emulator, the seed again before each test. */
const emu = useTestEmulator({ resetEach: true });

const withKey = (key: string) => ({ env: { SVC_API_KEY: key, SVC_BASE_URL: emu().url } });
/** Requests the emulator saw, minus the stats request itself (which it counts too). */
const requestCount = async () => (await emu().plane.stats()).requests;
const requestsSince = async (before: number) => (await requestCount()) - before - 1;

describe('error statuses and exit codes', () => {
  it('400 (dialling in test mode) → exit 1 with the reason', async () => {
    const call = JSON.parse((await runCli(['api', 'POST', '/v1/calls', '-F', 'languages[]=en', '-F', 'languages[]=es'], withKey(emu().seed.keys.test))).stdout);
    const r = await runCli(['api', 'POST', `/v1/calls/${call.id}/dial`, '-F', 'to=+14155550100'], withKey(emu().seed.keys.test));
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^error: the service refused POST/m);
    expect(r.stderr).toContain('test mode');
  });

  it('401 (revoked key) → exit 3, naming what to do', async () => {
    const { id, key } = await emu().makeKey('test');
    await emu().plane.revokeKey(emu().seed.org_id, id);
    const r = await runCli(['account'], withKey(key));
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('not authenticated');
    expect(r.stderr).toContain('SVC_API_KEY');
    expect(r.stderr).not.toContain(key);
  });

  it('402 (live, balance empty) → exit 8 suggesting the balance or --test', async () => {
    await emu().plane.setBalance(emu().seed.org_id, 0);
    const r = await runCli(['api', 'POST', '/v1/translate', '-F', 'text=hello', '-F', 'to=es'], withKey(emu().seed.keys.live));
    expect(r.exitCode).toBe(8);
    expect(r.stderr).toContain('balance has run out');
    expect(r.stderr).toContain('--test');
    // Test mode is never billed.
    expect((await runCli(['api', 'POST', '/v1/translate', '-F', 'text=hello', '-F', 'to=es'], withKey(emu().seed.keys.test))).exitCode).toBe(0);
  });

  it('403 (scope missing) → exit 4 naming the scope and how to get it', async () => {
    const { key } = await emu().makeKey('test', ['calls:read']);
    const r = await runCli(['account', 'balance'], withKey(key));
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('lacks the account:read scope');
    // The key is in SVC_API_KEY: the fix is a key with the scope there, not svc keys add.
    expect(r.stderr).toContain('set SVC_API_KEY to it');
  });

  it('404 → exit 5, mentioning the other mode', async () => {
    const call = JSON.parse((await runCli(['api', 'POST', '/v1/calls', '-F', 'languages[]=en', '-F', 'languages[]=es'], withKey(emu().seed.keys.test))).stdout);
    const r = await runCli(['api', 'GET', `/v1/calls/${call.id}`], withKey(emu().seed.keys.live));
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toContain('live mode');
  });

  it('409 (ending an ended call) → exit 6', async () => {
    const call = JSON.parse((await runCli(['api', 'POST', '/v1/calls', '-F', 'languages[]=en', '-F', 'languages[]=es'], withKey(emu().seed.keys.test))).stdout);
    expect((await runCli(['api', 'POST', `/v1/calls/${call.id}/end`], withKey(emu().seed.keys.test))).exitCode).toBe(0);
    const r = await runCli(['api', 'POST', `/v1/calls/${call.id}/end`], withKey(emu().seed.keys.test));
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toContain('conflict');
  });

  it('422 → exit 2 listing each field and its problem', async () => {
    const r = await runCli(['api', 'POST', '/v1/calls', '-F', 'languages=en', '-F', 'title=5'], withKey(emu().seed.keys.test));
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/invalid request: languages: /);
  });

  it('429 once → waits Retry-After, retries, succeeds (and says so on a TTY)', async () => {
    await emu().plane.fault('/v1/account', 429, 1);
    const r = await runCli(['account', '--json'], { ...withKey(emu().seed.keys.test), tty: true });
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('rate limited: waiting 1 s');
    expect(JSON.parse(r.stdout).id).toBe(emu().seed.org_id);
  });

  it('429 also retries a POST (the service did not process it); silent without a TTY', async () => {
    await emu().plane.fault('/v1/calls', 429, 1);
    const r = await runCli(['api', 'POST', '/v1/calls', '-F', 'languages[]=en', '-F', 'languages[]=es'], withKey(emu().seed.keys.test));
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toBe('');
    const list = JSON.parse((await runCli(['api', 'GET', '/v1/calls'], withKey(emu().seed.keys.test))).stdout);
    expect(list.data).toHaveLength(1);
  });

  it('429 past the retry bound → exit 7 with the figure', async () => {
    await emu().plane.fault('/v1/balance', 429, 10);
    const before = await requestCount();
    const r = await runCli(['account', 'balance'], withKey(emu().seed.keys.test));
    expect(r.exitCode).toBe(7);
    expect(r.stderr).toContain('wait 1 s');
    expect(r.stderr).toContain('after 3 attempts');
    expect(await requestsSince(before)).toBe(3);
  });

  it('502 on a GET is retried with backoff; on a POST it is not (exit 9, may be retried), unless the POST is a create with its Idempotency-Key', async () => {
    await emu().plane.fault('/v1/prices', 502, 2);
    const ok = await runCli(['account', 'prices', '--json'], withKey(emu().seed.keys.test));
    expect(ok.exitCode).toBe(0);
    expect(JSON.parse(ok.stdout).length).toBeGreaterThan(0); // an array, like every list's --json

    await emu().plane.fault('/v1/calls', 502, 1);
    const before = await requestCount();
    const post = await runCli(['api', 'POST', '/v1/calls/call_nothere1/end'], withKey(emu().seed.keys.test));
    expect(post.exitCode).toBe(9);
    expect(post.stderr).toContain('may be retried');
    expect(await requestsSince(before)).toBe(1);

    // A create carries its key, the same on the second try: the service makes one call.
    await emu().plane.fault('/v1/calls', 502, 1);
    const created = await runCli(['api', 'POST', '/v1/calls', '-F', 'languages[]=en', '-F', 'languages[]=es'], withKey(emu().seed.keys.test));
    expect(created.exitCode, created.stderr).toBe(0);
    const listed = JSON.parse((await runCli(['calls', 'list', '--json'], withKey(emu().seed.keys.test))).stdout);
    expect(listed.map((c: { id: string }) => c.id)).toEqual([JSON.parse(created.stdout).id]);

    await emu().plane.fault('/v1/balance', 502, 5);
    const gone = await runCli(['account', 'balance'], withKey(emu().seed.keys.test));
    expect(gone.exitCode).toBe(9);
    expect(gone.stderr).toContain('after 3 attempts');
  });

  it('Ctrl-C while waiting out a 429 stops at once with exit 130', async () => {
    await emu().plane.fault('/v1/balance', 429, 1);
    const controller = new AbortController();
    // Ctrl-C arrives once the CLI is waiting out the 429; the wait ends only by that abort.
    const waits: number[] = [];
    const clock = {
      now: () => Date.now(),
      sleep: (ms: number, signal?: AbortSignal) =>
        new Promise<void>((_, reject) => {
          waits.push(ms);
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
          controller.abort();
        }),
    };
    const r = await runCli(['account', 'balance'], { ...withKey(emu().seed.keys.test), signal: controller.signal, clock });
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThan(0);
    expect(r.exitCode).toBe(130);
    expect(r.stdout).toBe('');
  });

  it('a network failure → exit 9 naming the address', async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const r = await runCli(['account'], { env: { SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: `http://127.0.0.1:${port}` } });
    expect(r.exitCode).toBe(9);
    expect(r.stderr).toContain(`cannot reach http://127.0.0.1:${port}`);
    expect(r.stderr).toContain('nothing answered there (connection refused)');
    expect(r.stderr).not.toContain('ECONNREFUSED');
  });

  it('--debug shows requests and responses with every credential redacted', async () => {
    const key = emu().seed.keys.test;
    const r = await runCli(['account', '--debug'], withKey(key));
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toContain('> GET ' + emu().url + '/v1/account');
    expect(r.stderr).toContain(`authorization: Bearer svc_test_…${key.slice(-4)}`);
    expect(r.stderr).toMatch(/< 200/);
    expect(r.stderr).toMatch(/user-agent: svc\/\d+\.\d+\.\d+ node\/\S+ \w+/);
    expect(r.stderr + r.stdout).not.toContain(key);
  });
});
