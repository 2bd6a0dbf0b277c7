// Scripting and health (issue "Scripting as good as gh"): JSON errors with stable codes,
// commander's errors in svc's words, help and version, profiles list/remove, svc doctor,
// and auth status asking the service about every stored credential.
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { ERROR_CODES } from '../../src/error-codes.js';
import { clockCheck, nodeCheck, proxyCheck } from '../../src/commands/doctor.js';
import { proxySettings } from '../../src/api/proxy.js';
import { envFor, scriptedBrowser } from '../auth/support.js';
import { clockTime, scopeList } from '../../src/io/output.js';

/** The file's emulator, the seed again before each test. */
const emu = useTestEmulator({ resetEach: true });

const withKey = (key: string) => ({ env: { SVC_API_KEY: key, SVC_BASE_URL: emu().url } });

/** The one JSON object a --json failure prints on stderr. */
function errorOf(stderr: string): { code: string; status: number | null; message: string; hint: string | null; exit_code: number } {
  const lines = stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!).error;
}

describe('--json errors', () => {
  it('each failure is one JSON object on stderr with a stable code, the status and the exit code', async () => {
    const notFound = await runCli(['api', 'GET', '/v1/calls/call_nope', '--json'], withKey(emu().seed.keys.test));
    expect(notFound.exitCode).toBe(5);
    expect(errorOf(notFound.stderr)).toMatchObject({ code: 'not_found', status: 404, exit_code: 5 });

    const invalid = await runCli(['api', 'POST', '/v1/calls', '-F', 'languages=en', '--json'], withKey(emu().seed.keys.test));
    expect(errorOf(invalid.stderr)).toMatchObject({ code: 'invalid_input', status: 422, exit_code: 2 });

    const { key } = await emu().makeKey('test', ['calls:read']);
    const scope = await runCli(['account', '--json'], withKey(key));
    const scopeError = errorOf(scope.stderr);
    expect(scopeError).toMatchObject({ code: 'scope_missing', status: 403, exit_code: 4 });
    expect(scopeError.hint).toContain('account:read');

    await emu().plane.setBalance(emu().seed.org_id, 0);
    const empty = await runCli(['translate', 'hi', '--to', 'es', '--json'], withKey(emu().seed.keys.live));
    expect(errorOf(empty.stderr)).toMatchObject({ code: 'balance_empty', status: 402, exit_code: 8 });

    const revoked = await emu().makeKey('test');
    await emu().plane.revokeKey(emu().seed.org_id, revoked.id);
    const refused = await runCli(['account', '--json'], withKey(revoked.key));
    const refusedError = errorOf(refused.stderr);
    expect(refusedError).toMatchObject({ code: 'not_authenticated', status: 401, exit_code: 3 });
    expect(refused.stderr).not.toContain(revoked.key);

    const unreachable = await runCli(['account', '--json'], { env: { SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: 'http://127.0.0.1:9' } });
    expect(errorOf(unreachable.stderr)).toMatchObject({ code: 'network_failed', status: null, exit_code: 9 });
  });

  it("usage errors, commander's included, are JSON too (code usage, status null)", async () => {
    const flag = await runCli(['calls', 'list', '--nope', '--json']);
    expect(flag.exitCode).toBe(2);
    expect(errorOf(flag.stderr)).toMatchObject({ code: 'usage', status: null, exit_code: 2 });
    const local = await runCli(['api', 'GET', '/v1/account', '-H', 'Authorization: x', '--json'], withKey(emu().seed.keys.test));
    expect(errorOf(local.stderr)).toMatchObject({ code: 'usage', exit_code: 2 });
    const none = await runCli(['account', '--json']);
    expect(errorOf(none.stderr)).toMatchObject({ code: 'not_authenticated', status: null, exit_code: 3 });
  });

  it("every code is documented in svc help exit-codes' row of its exit code, with the statuses that mean it", async () => {
    const { readFileSync } = await import('node:fs');
    const readme = readFileSync(new URL('../../docs/topics/exit-codes.md', import.meta.url), 'utf8');
    for (const [code, { exit, statuses }] of Object.entries(ERROR_CODES)) {
      const row = readme.split('\n').find((line) => line.startsWith(`| ${exit} `));
      expect(row, `exit ${exit}`).toContain(`\`${code}\``);
      for (const status of statuses) expect(row, `${code}'s ${status}`).toContain(String(status));
    }
  });
});

describe("help, version and commander's wording", () => {
  it('bare svc and a bare group print help on stdout and exit 0; svc help CMD… is CMD --help', async () => {
    const bare = await runCli([]);
    expect(bare).toMatchObject({ exitCode: 0, stderr: '' });
    expect(bare.stdout).toContain('Usage: svc');
    const group = await runCli(['calls']);
    expect(group.exitCode).toBe(0);
    expect(group.stdout).toContain('Usage: svc calls');
    const help = await runCli(['help', 'calls', 'list']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toBe((await runCli(['calls', 'list', '--help'])).stdout);
    const unknown = await runCli(['help', 'nope']);
    expect(unknown.exitCode).toBe(2);
  });

  it('svc version prints the version (with --json also Node)', async () => {
    const v = await runCli(['version']);
    expect(v.stdout).toBe((await runCli(['--version'])).stdout);
    expect(JSON.parse((await runCli(['version', '--json'])).stdout)).toMatchObject({
      version: expect.any(String),
      node: process.versions.node,
      install: 'npm',
    });
  });

  it("rewrites commander's raw messages", async () => {
    const mode = await runCli(['mode', 'tst']);
    expect(mode.exitCode).toBe(2);
    expect(mode.stderr).not.toContain('command-argument');
    expect(mode.stderr).toContain('error: MODE must be one of test, live, not "tst"');
    const status = await runCli(['calls', 'list', '--status', 'done']);
    expect(status.stderr).toContain('--status must be one of active, ended, not "done"');
    const missing = await runCli(['calls', 'dial', 'call_1']);
    expect(missing.stderr).toContain("required option '--to <+E164>' not specified");
    const flag = await runCli(['calls', 'list', '--limt', '3']);
    expect(flag.stderr).toContain("unknown option '--limt'");
    expect(flag.stderr).toContain('(Did you mean --limit?)');
    const both = await runCli(['account', '--test', '--live']);
    expect(both.stderr).toContain("option '--test' cannot be used with option '--live'");
  });
});

describe('profiles list / remove', () => {
  it('lists every profile, removes one with its secrets; a logged-out profile can be removed', async () => {
    const configDir = tempConfigDir();
    const secrets = new MemorySecretStore();
    const run = (argv: string[], extra: { stdin?: string } = {}) => runCli(argv, { configDir, secrets, ...extra });
    expect((await run(['keys', 'add', '--base-url', emu().url, '--profile', 'ci'], { stdin: emu().seed.keys.test })).exitCode).toBe(0);
    // A profile left with nothing (its key removed): it used to stay listed forever.
    await run(['keys', 'add', '--base-url', emu().url, '--profile', 'old'], { stdin: emu().seed.keys.live });
    await run(['keys', 'remove', 'live', '--profile', 'old', '--yes']);

    const listed = JSON.parse((await run(['profiles', 'list', '--json'])).stdout) as Array<{ name: string; keys: unknown[]; mode: string }>;
    expect(listed.map((p) => p.name)).toEqual(['ci', 'old']);
    expect(listed[0]).toMatchObject({ name: 'ci', base_url: emu().url, mode: 'test', org_name: 'Acme' });
    const tsv = (await run(['profiles', 'list'])).stdout;
    expect(tsv.split('\n')[0]!.split('\t')[0]).toBe('ci');

    expect((await run(['profiles', 'remove', 'old', '--yes'])).exitCode).toBe(0);
    expect([...secrets.secrets.keys()]).toEqual(['ci:test']);
    expect((await run(['profiles', 'remove', 'ci', '--yes'])).exitCode).toBe(0);
    expect(secrets.secrets.size).toBe(0);
    expect(JSON.parse((await run(['profiles', 'list', '--json'])).stdout)).toEqual([]);
    expect((await run(['profiles', 'remove', 'ci', '--yes'])).exitCode).toBe(2);
  });

  it('--revoke revokes the OAuth connection at the service before deleting', async () => {
    const configDir = tempConfigDir();
    const secrets = new MemorySecretStore();
    const env = envFor(emu().emulator);
    const login = await runCli(['login'], { env, configDir, secrets, browser: scriptedBrowser(emu().emulator) });
    expect(login.exitCode, login.stderr).toBe(0);
    const token = (await runCli(['auth', 'token'], { env, configDir, secrets })).stdout.trim();
    const removed = await runCli(['profiles', 'remove', 'default', '--revoke', '--yes'], { env, configDir, secrets });
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(removed.stdout).toContain('revoked');
    expect(secrets.secrets.size).toBe(0);
    const after = await fetch(`${emu().url}/v1/account`, { headers: { authorization: `Bearer ${token}` } });
    expect(after.status).toBe(401);
  });
});

describe('auth status online', () => {
  it('asks the service about every credential: a revoked key exits 3; --offline skips; --profile shows one', async () => {
    const configDir = tempConfigDir();
    const secrets = new MemorySecretStore();
    const run = (argv: string[], stdin?: string) => runCli(argv, { configDir, secrets, ...(stdin ? { stdin } : {}) });
    const doomed = await emu().makeKey('test');
    await run(['keys', 'add', '--base-url', emu().url, '--profile', 'a'], doomed.key);
    await run(['keys', 'add', '--base-url', emu().url, '--profile', 'b'], emu().seed.keys.test);
    const fine = await run(['auth', 'status']);
    expect(fine.exitCode, fine.stderr).toBe(0);
    expect(fine.stdout).toMatch(/test key "test": .* — valid/);

    await emu().plane.revokeKey(emu().seed.org_id, doomed.id);
    const refused = await run(['auth', 'status']);
    expect(refused.exitCode).toBe(3);
    expect(refused.stdout).toMatch(/REFUSED/);
    expect((await run(['auth', 'status', '--offline'])).exitCode).toBe(0);

    const one = await run(['auth', 'status', '--profile', 'b', '--json']);
    const shown = JSON.parse(one.stdout).profiles as Array<{ name: string; online: Array<{ verdict: string }> }>;
    expect(shown.map((p) => p.name)).toEqual(['b']);
    expect(shown[0]!.online[0]!.verdict).toBe('valid');
    expect(one.exitCode).toBe(0);

    // The mode shown is the one `svc mode` shows (SVC_MODE, flags, then the profile's).
    await run(['keys', 'add', '--profile', 'b'], emu().seed.keys.live);
    const env = { SVC_MODE: 'live' };
    const mode = JSON.parse((await runCli(['mode', '--profile', 'b', '--json'], { configDir, secrets, env })).stdout).mode;
    const status = JSON.parse((await runCli(['auth', 'status', '--profile', 'b', '--offline', '--json'], { configDir, secrets, env })).stdout);
    expect([mode, status.profiles[0].effective_mode]).toEqual(['live', 'live']);
    expect((await runCli(['auth', 'status', '--profile', 'b', '--offline'], { configDir, secrets, env })).stdout).toContain('  mode: live');
  });
});

describe('svc doctor', () => {
  it('all ok with a valid stored key (exit 0); a revoked key or another address fail (exit 1); a 0644 credentials.json is tightened and said', async () => {
    const configDir = tempConfigDir();
    const secrets = new MemorySecretStore();
    const env = { SVC_CREDENTIAL_STORE: 'file' };
    const doomed = await emu().makeKey('test');
    await runCli(['keys', 'add', '--base-url', emu().url], { configDir, secrets, env, stdin: doomed.key });
    const ok = await runCli(['doctor', '--json'], { configDir, secrets, env });
    const report = JSON.parse(ok.stdout) as { ok: boolean; checks: Array<{ check: string; status: string; message: string; fix?: string }> };
    expect(ok.exitCode, ok.stdout).toBe(0);
    expect(report.ok).toBe(true);
    for (const check of ['config', 'profile', 'address', 'proxy', 'service', 'clock', 'keychain', 'request', 'node'])
      expect(report.checks.map((c) => c.check)).toContain(check);

    const elsewhere = await runCli(['doctor', '--base-url', 'http://127.0.0.1:9'], { configDir, secrets, env });
    expect(elsewhere.exitCode).toBe(1);
    expect(elsewhere.stdout).toMatch(
      /^failed +svc account fails \(exit 2\): profile "default" is bound to http:\/\/127\.0\.0\.1:\d+, but --base-url names http:\/\/127\.0\.0\.1:9/m,
    );

    await emu().plane.revokeKey(emu().seed.org_id, doomed.id);
    writeFileSync(join(configDir, 'credentials.json'), '{}');
    chmodSync(join(configDir, 'credentials.json'), 0o644);
    const bad = await runCli(['doctor', '--json'], { configDir, secrets, env });
    expect(bad.exitCode).toBe(1);
    const failed = (JSON.parse(bad.stdout) as typeof report).checks.filter((c) => c.status === 'failed');
    expect(failed.map((c) => c.check).sort()).toEqual(['request']);
    expect(failed.every((c) => c.fix)).toBe(true);
    const checks = (JSON.parse(bad.stdout) as typeof report).checks;
    expect(checks.find((c) => c.message.startsWith('credentials.json'))).toMatchObject({
      status: 'warning',
      message: expect.stringContaining('svc set it to 0600'),
    });
  });

  it('one format for stream times and scopes', () => {
    const at = new Date(2026, 10, 23, 9, 5, 7);
    expect(clockTime(at.toISOString())).toBe('09:05:07');
    expect(scopeList(['calls:read', 'translate'])).toBe('calls:read translate');
    expect(scopeList([])).toBe('none');
  });

  it('pure checks: Node version, clock skew, proxies', () => {
    expect(nodeCheck('18.19.0').status).toBe('failed');
    expect(nodeCheck('20.18.0').status).toBe('ok');
    const now = Date.parse('2026-11-23T12:00:00Z');
    expect(clockCheck(new Date(now - 2000).toUTCString(), now).status).toBe('ok');
    expect(clockCheck(new Date(now - 120_000).toUTCString(), now)).toMatchObject({ status: 'warning', message: expect.stringContaining('120 s ahead') });
    expect(clockCheck(new Date(now + 3600_000).toUTCString(), now).status).toBe('failed');
    const url = new URL('https://api.example.com');
    expect(proxyCheck(proxySettings({ HTTPS_PROXY: 'http://user:pw@proxy:3128' }), url).message).toBe(
      'requests to api.example.com go through the proxy http://user:***@proxy:3128/',
    );
    expect(proxyCheck(proxySettings({ HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: '.example.com' }), url).message).toContain('bypasses');
  });
});

describe('rough edges', () => {
  const key = (mode: 'test' | 'live' = 'test') => ({ SVC_API_KEY: emu().seed.keys[mode], SVC_BASE_URL: emu().url });
  const instant = { now: () => Date.now(), sleep: async () => {} };

  it('account prices --json is an array like every list; a list with more results says so on stderr when piped', async () => {
    const prices = JSON.parse((await runCli(['account', 'prices', '--json'], { env: key() })).stdout);
    expect(Array.isArray(prices)).toBe(true);
    for (let i = 0; i < 2; i++) await runCli(['chats', 'start', '--language', 'en'], { env: key() });
    const piped = await runCli(['chats', 'list', '--limit', '1'], { env: key() });
    expect(piped.stdout.trim().split('\n')).toHaveLength(1);
    expect(piped.stderr).toMatch(/there are more results \(--limit up to 100, --all for every one, or --cursor \S+ for the next page\)/);
  });

  it('chats messages read oldest first on a terminal, newest first (the API order) when piped', async () => {
    const chat = JSON.parse((await runCli(['chats', 'start', '--language', 'en', '--json'], { env: key() })).stdout);
    await runCli(['chats', 'send', chat.id, 'first'], { env: key() });
    await runCli(['chats', 'send', chat.id, 'second'], { env: key() });
    const tty = (await runCli(['chats', 'messages', chat.id], { env: key(), tty: true })).stdout;
    expect(tty.indexOf('first')).toBeLessThan(tty.indexOf('second'));
    const piped = (await runCli(['chats', 'messages', chat.id], { env: key() })).stdout;
    expect(piped.indexOf('second')).toBeLessThan(piped.indexOf('first'));
  });

  it('chats send checks the 5,000-character limit before sending; chats voice tells audio by content and reads -', async () => {
    const chat = JSON.parse((await runCli(['chats', 'start', '--language', 'en', '--json'], { env: key() })).stdout);
    const before = (await emu().plane.stats()).requests;
    const long = await runCli(['chats', 'send', chat.id, 'x'.repeat(5001)], { env: key() });
    const piped = await runCli(['chats', 'send', chat.id], { env: key(), stdin: 'y'.repeat(5001) });
    expect([long.exitCode, piped.exitCode]).toEqual([2, 2]);
    expect(long.stderr).toContain('5,001 characters long; the limit is 5,000');
    expect((await emu().plane.stats()).requests - before).toBe(1); // the stats call itself

    const dir = tempConfigDir();
    const odd = join(dir, 'recording.bin');
    writeFileSync(odd, Buffer.from('OggS\x00\x02rest of the stream', 'latin1'));
    const named = await runCli(['chats', 'voice', chat.id, odd, '--json'], { env: key() });
    expect(named.exitCode, named.stderr).toBe(0);
    expect(JSON.parse(named.stdout).kind).toBe('voice');
    const stdin = await runCli(['chats', 'voice', chat.id, '-', '--json'], { env: key(), stdin: 'ID3\x04\x00 an mp3' });
    expect(stdin.exitCode, stdin.stderr).toBe(0);
    const text = await runCli(['chats', 'voice', chat.id, '-'], { env: key(), stdin: 'just words' });
    expect(text.exitCode).toBe(2);
    expect(text.stderr).toContain('stdin does not contain audio');
  });

  it('--base-url without a scheme suggests http://, another scheme is a usage error, a proxy that fails is named', async () => {
    const bare = await runCli(['account', '--base-url', '127.0.0.1:4510'], { env: { SVC_API_KEY: emu().seed.keys.test } });
    expect(bare.exitCode).toBe(2);
    expect(bare.stderr).toContain('use http://127.0.0.1:4510');
    const ftp = await runCli(['account', '--base-url', 'ftp://files.example'], { env: { SVC_API_KEY: emu().seed.keys.test }, clock: instant });
    expect(ftp.exitCode).toBe(2);
    expect(ftp.stderr).toContain('must be an http:// or https:// address');
    const proxied = await runCli(['account'], {
      env: { SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: 'http://svc.example', HTTP_PROXY: 'http://user:secret@127.0.0.1:9' },
      clock: instant,
    });
    expect(proxied.exitCode).toBe(9);
    expect(proxied.stderr).toContain('through the proxy http://user:***@127.0.0.1:9/');
    expect(proxied.stderr).not.toContain('secret');
  });

  it('--yes says what it does; dialling never suggests test mode, which refuses it', async () => {
    expect((await runCli(['--help'])).stdout).toMatch(/--yes +answer yes to what svc asks on a terminal/);
    const call = JSON.parse((await runCli(['calls', 'start', '--languages', 'en,es', '--json'], { env: key('live') })).stdout);
    const dial = await runCli(['calls', 'dial', call.id, '--to', '+14155550100', '--yes'], { env: key('live') });
    expect(dial.exitCode, dial.stderr).toBe(0);
    expect(dial.stderr).toContain('is billed to');
    expect(dial.stderr).not.toMatch(/--test|test key|free of charge/);
    const start = await runCli(['calls', 'start', '--languages', 'en,es', '--yes'], { env: key('live') });
    expect(start.stderr).toContain('free of charge');
  });

  it('--dry-run prints the request and its unit price, sends nothing, exits 0', async () => {
    const count = async () => (JSON.parse((await runCli(['calls', 'list', '--limit', '100', '--json'], { env: key('live') })).stdout) as unknown[]).length;
    const before = await count();
    const dry = await runCli(['calls', 'start', '--languages', 'en,es', '--dry-run'], { env: key('live') });
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/^POST \/v1\/calls\n/);
    expect(dry.stdout).toMatch(/price: \$[\d.]+ per call minute, billed to/);
    expect(dry.stderr).toContain('nothing was sent');
    const json = JSON.parse((await runCli(['translate', 'hello', '--to', 'es', '--dry-run', '--json'], { env: key('live') })).stdout);
    expect(json).toMatchObject({
      dry_run: true,
      mode: 'live',
      billed: true,
      request: { method: 'POST', path: '/v1/translate', body: { text: 'hello', to: 'es' } },
      price: { item: 'translation_character' },
    });
    const free = await runCli(['calls', 'lines', 'add', '--country', 'US', '--dry-run'], { env: key('test') });
    expect(free.stdout).toContain('price: free (test mode is never billed)');
    expect(await count()).toBe(before);
  });
});

describe('least-privilege keys (no account:read)', () => {
  it('are stored with --org, or into a profile whose organization is known, marked unverified, and work', async () => {
    const narrow = await emu().makeKey('test', ['calls:read', 'calls:write']);
    const configDir = tempConfigDir();
    const secrets = new MemorySecretStore();
    const run = (argv: string[], stdin?: string) => runCli(argv, { configDir, secrets, ...(stdin ? { stdin } : {}) });

    const refused = await run(['keys', 'add', '--base-url', emu().url, '--profile', 'narrow'], narrow.key);
    expect(refused.exitCode).toBe(4);
    expect(refused.stderr).toContain('--org');

    const stored = await run(['keys', 'add', '--base-url', emu().url, '--profile', 'narrow', '--org', emu().seed.org_id, '--json'], narrow.key);
    expect(stored.exitCode, stored.stderr).toBe(0);
    expect(JSON.parse(stored.stdout)).toMatchObject({ org_id: emu().seed.org_id, key: { unverified: true, scopes: [] } });
    expect(stored.stderr).toContain('unverified');
    const listed = await run(['calls', 'list', '--profile', 'narrow', '--json']);
    expect(listed.exitCode, listed.stderr).toBe(0);

    // A profile whose organization is known (from a full key) takes a narrow key without --org.
    await run(['keys', 'add', '--base-url', emu().url, '--profile', 'full'], emu().seed.keys.live);
    const into = await run(['keys', 'add', '--profile', 'full', '--json'], narrow.key);
    expect(into.exitCode, into.stderr).toBe(0);
    expect(JSON.parse(into.stdout)).toMatchObject({ org_id: emu().seed.org_id, org_name: 'Acme', key: { unverified: true } });

    const wrongOrg = await run(['keys', 'add', '--profile', 'full', '--org', 'org_other', '--name', 'x'], narrow.key);
    expect(wrongOrg.exitCode).toBe(2);
    const mismatch = await run(['keys', 'add', '--base-url', emu().url, '--profile', 'p3', '--org', 'org_other'], emu().seed.keys.test);
    expect(mismatch.exitCode).toBe(2);
    expect(mismatch.stderr).toContain('not --org org_other');
  });
});
