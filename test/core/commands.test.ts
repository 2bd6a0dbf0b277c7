// account, account balance, account prices, auth status and api against the emulator,
// in each output form: --json (the API's JSON), TSV when piped, a table on a TTY.
import { describe, expect, it } from 'vitest';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { stripVTControlCharacters as plain } from 'node:util';
import { join } from 'node:path';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';
import { MemorySecretStore } from '../../src/credentials/store.js';

/** The file's emulator, the seed again before each test. */
const emu = useTestEmulator({ resetEach: true });

const env = (key: string) => ({ env: { SVC_API_KEY: key, SVC_BASE_URL: emu().url } });

describe('svc account', () => {
  it('shows organization, mode, credential, scopes and balance', async () => {
    const key = emu().seed.keys.live;
    const json = JSON.parse((await runCli(['account', '--json'], env(key))).stdout);
    expect(json).toMatchObject({ object: 'account', id: emu().seed.org_id, name: 'Acme', livemode: true, balance: { available: 10_000, currency: 'usd' } });

    const piped = await runCli(['account'], env(key));
    expect(piped.exitCode).toBe(0);
    const fields = Object.fromEntries(
      piped.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')),
    );
    expect(fields).toMatchObject({ organization: 'Acme', id: emu().seed.org_id, mode: 'live', balance: '$100.00' });
    expect(fields.credential).toBe(`API key svc_live_…${key.slice(-4)} from SVC_API_KEY`);
    expect(fields.scopes).toContain('account:read');
    expect(piped.stdout).not.toContain(key);

    const tty = await runCli(['account'], { ...env(key), tty: true });
    expect(plain(tty.stdout)).toMatch(/organization\s+Acme/);
  });

  it('balance follows the emulator, prices list every billable item', async () => {
    await emu().plane.setBalance(emu().seed.org_id, 1234);
    // Piped, as everywhere but --json: dollars (the API counts cents).
    expect((await runCli(['account', 'balance'], env(emu().seed.keys.live))).stdout).toBe('$12.34\n');
    expect(JSON.parse((await runCli(['account', 'balance', '--json'], env(emu().seed.keys.live))).stdout)).toMatchObject({ available: 1234, livemode: true });
    expect(plain((await runCli(['account', 'balance'], { ...env(emu().seed.keys.live), tty: true })).stdout)).toMatch(/available\s+\$12\.34/);

    const prices = await runCli(['account', 'prices'], env(emu().seed.keys.test));
    expect(prices.exitCode).toBe(0);
    const items = prices.stdout
      .trim()
      .split('\n')
      .map((l) => l.split('\t')[0]);
    expect(items.sort()).toEqual(['call_minute', 'dial_minute', 'line_month', 'translation_character']);
    // The emulator's 0.002 cents a character, exactly, not 0.002 "usd" nor 2e-5.
    expect(prices.stdout).toContain('translation_character\t$0.00002\tper translated character\n');
    expect(prices.stdout).toContain('call_minute\t$0.02\tper call minute\n');
    const pricesTty = plain((await runCli(['account', 'prices'], { ...env(emu().seed.keys.test), tty: true })).stdout);
    expect(pricesTty).toMatch(/translation_character\s+\$0\.00002\s+per translated character/);
    const json = JSON.parse((await runCli(['account', 'prices', '--json'], env(emu().seed.keys.test))).stdout);
    expect(Array.isArray(json)).toBe(true); // like every list's --json
  });
});

describe('svc auth status', () => {
  it('lists every profile with org, mode, credentials, scopes and storage; exit 0 when usable', async () => {
    const configDir = tempConfigDir();
    const secrets = new MemorySecretStore();
    await runCli(['keys', 'add', '--base-url', emu().url], { configDir, secrets, stdin: emu().seed.keys.test });
    await runCli(['keys', 'add', '--profile', 'other', '--base-url', emu().url], { configDir, secrets, stdin: emu().seed.keys.live });
    const r = await runCli(['auth', 'status'], { configDir, secrets });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`default (default): Acme (${emu().seed.org_id}) at ${emu().url}`);
    expect(r.stdout).toContain(`test key "test": svc_test_…${emu().seed.keys.test.slice(-4)}`);
    expect(r.stdout).toContain('other: Acme');
    expect(r.stdout).toContain('stored in memory');
    expect(r.stdout).toContain('Commands use: profile "default", test mode');
    expect(r.stdout).not.toContain(emu().seed.keys.test);

    const json = JSON.parse((await runCli(['auth', 'status', '--json'], { configDir, secrets })).stdout);
    expect(json.profiles.map((p: { name: string }) => p.name)).toEqual(['default', 'other']);
    expect(json.active).toMatchObject({ profile: 'default', mode: 'test', type: 'api_key' });
  });

  it('shows an OAuth sign-in with its expiry and storage', async () => {
    const configDir = tempConfigDir();
    const now = Date.now();
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({
        version: 1,
        default_profile: 'work',
        profiles: {
          work: {
            org_id: 'org_x',
            org_name: 'Initech',
            oauth: { client_id: 'svc_app_cli', scopes: ['calls:read'], expires_at: now + 30 * 60_000, storage: 'keychain' },
          },
        },
      }),
    );
    // auth status checks that the entry is there (metadata alone is not a sign-in).
    const secrets = new MemorySecretStore();
    secrets.secrets.set('work:oauth', '{"org_id":"org_x"}');
    // --offline: no service here to ask (test/core/script.test.ts checks credentials online).
    const r = await runCli(['auth', 'status', '--offline'], { configDir, secrets });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/OAuth sign-in \(live\): app svc_app_cli, scopes calls:read, access token expires in 30 min; stored in keychain/);
    expect(r.stdout).toContain('Commands use: profile "work", live mode, the OAuth sign-in');
  });

  it('exit 3 when the chosen profile has no usable credential', async () => {
    const empty = await runCli(['auth', 'status']);
    expect(empty.exitCode).toBe(3);
    expect(empty.stdout).toContain('No profiles yet');
    expect(empty.stderr).toContain('svc login');

    const configDir = tempConfigDir();
    await runCli(['keys', 'add', '--base-url', emu().url], { configDir, stdin: emu().seed.keys.test });
    const live = await runCli(['auth', 'status', '--live'], { configDir });
    expect(live.exitCode).toBe(3);
    expect(live.stderr).toContain('no live credential');
  });

  it('SVC_API_KEY is shown (redacted) as overriding the profiles', async () => {
    const r = await runCli(['auth', 'status'], env(emu().seed.keys.test));
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`SVC_API_KEY is set (svc_test_…${emu().seed.keys.test.slice(-4)})`);
    expect(r.stdout).not.toContain(emu().seed.keys.test);
    const bad = await runCli(['auth', 'status'], { env: { SVC_API_KEY: 'not-a-key' } });
    expect(bad.exitCode).toBe(2);
  });
});

describe('svc api', () => {
  it('GET with -F as query, POST with -F as a JSON body, --input from stdin or a file, --include', async () => {
    const key = emu().seed.keys.test;
    const created = await runCli(['api', 'POST', '/v1/chats', '-F', 'language=en', '-F', 'subject=Hi'], env(key));
    expect(created.exitCode).toBe(0);
    const chat = JSON.parse(created.stdout);
    expect(chat).toMatchObject({ object: 'chat', language: 'en', subject: 'Hi', status: 'open' });

    const fromStdin = await runCli(['api', 'POST', '/v1/chats', '--input', '-'], { ...env(key), stdin: JSON.stringify({ language: 'fr' }) });
    expect(JSON.parse(fromStdin.stdout).language).toBe('fr');
    const file = join(mkdtempSync(join(tmpdir(), 'svc-api-')), 'body.json');
    writeFileSync(file, JSON.stringify({ text: 'hello', to: 'es' }));
    expect(JSON.parse((await runCli(['api', 'POST', '/v1/translate', '--input', file], env(key))).stdout).text).toBe('[es] hello');

    await runCli(['api', 'POST', `/v1/chats/${chat.id}/close`], env(key));
    const open = JSON.parse((await runCli(['api', 'GET', '/v1/chats', '-F', 'status=open'], env(key))).stdout);
    expect(open.data.map((c: { id: string }) => c.id)).not.toContain(chat.id);
    const closed = JSON.parse((await runCli(['api', 'get', '/v1/chats?status=closed'], env(key))).stdout);
    expect(closed.data.map((c: { id: string }) => c.id)).toEqual([chat.id]);

    const inc = await runCli(['api', 'GET', '/v1/balance', '--include'], env(key));
    expect(inc.stdout).toMatch(/^HTTP\/1\.1 200 OK\n(.+\n)+\n\{/);
    expect(inc.stdout).toContain('content-type: application/json');
  });

  it('refuses bad input before any request: method, absolute URLs, -F without =, unreadable --input', async () => {
    const key = emu().seed.keys.test;
    for (const argv of [
      ['api', 'FETCH', '/v1/calls'],
      ['api', 'GET', 'https://evil.example/v1/calls'],
      ['api', 'GET', '//evil.example/v1/calls'],
      ['api', 'POST', '/v1/chats', '-F', 'language'],
      ['api', 'POST', '/v1/chats', '--input', '/nonexistent/body.json'],
    ]) {
      const r = await runCli(argv, env(key));
      expect(r.exitCode, argv.join(' ')).toBe(2);
    }
  });

  it('an error answer is printed (stdout) and mapped to the exit code (stderr)', async () => {
    const r = await runCli(['api', 'GET', '/v1/calls/call_missing'], env(emu().seed.keys.test));
    expect(r.exitCode).toBe(5);
    expect(JSON.parse(r.stdout)).toHaveProperty('detail');
    expect(r.stderr).toContain('not found');
  });
});

describe('global flags', () => {
  it('are accepted before and after subcommands', async () => {
    const key = emu().seed.keys.test;
    const before = await runCli(['--json', '--base-url', emu().url, 'account', 'balance'], { env: { SVC_API_KEY: key } });
    const after = await runCli(['account', 'balance', '--json', '--base-url', emu().url], { env: { SVC_API_KEY: key } });
    expect(before.exitCode).toBe(0);
    expect(JSON.parse(after.stdout)).toEqual(JSON.parse(before.stdout));
  });

  it('--test and --live conflict; unknown commands and flags are usage errors', async () => {
    expect((await runCli(['account', '--test', '--live'])).exitCode).toBe(2);
    expect((await runCli(['acount'])).exitCode).toBe(2);
    expect((await runCli(['account', '--nope'])).exitCode).toBe(2);
    // A bare group prints its help and succeeds, as gh does (test/core/script.test.ts).
    expect((await runCli(['calls'])).exitCode).toBe(0);
  });

  it('--version and --help print on stdout and exit 0', async () => {
    const v = await runCli(['--version']);
    expect(v).toMatchObject({ exitCode: 0, stderr: '' });
    expect(v.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const h = await runCli(['--help']);
    expect(h.exitCode).toBe(0);
    for (const command of ['login', 'logout', 'auth', 'keys', 'mode', 'calls', 'chats', 'translate', 'events', 'account', 'api', 'completion', 'emulator'])
      expect(h.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    expect(h.stdout).not.toContain('__complete');
    const sub = await runCli(['calls', 'list', '--help']);
    expect(sub.stdout).toContain('Examples:');
  });
});

describe('help', () => {
  it("a subcommand's help lists the global flags and how to use an organization's own OAuth app", async () => {
    const r = await runCli(['login', '--help']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('Inherited options:');
    expect(r.stdout).toMatch(/--profile <name>/);
    expect(r.stdout).toMatch(/--json/);
    expect(r.stdout).toContain('SVC_CLIENT_SECRET');
  });
});
