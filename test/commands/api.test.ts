// `svc api`: its behaviour against the emulator, then its parse rules (apart from running).
// `svc api` as `gh api` has it: -f strings, -F typed values (@file, @-), nested keys,
// GET fields in the query, -H headers (never Authorization), paths without their slash,
// --paginate (one array with --json), --jq with a real jq, and event streams printed as
// they arrive.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { useEmulator } from '../resources/harness.js';
import { execute } from '../../src/main.js';
import type { Runtime } from '../../src/cli/context.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { buildBody, parseField } from '../../src/kit/api/fields.js';
import { parsing } from '../helpers/parse.js';

const h = useEmulator();
const files = mkdtempSync(join(tmpdir(), 'svc-api-'));
afterAll(() => rmSync(files, { recursive: true, force: true }));

describe('svc api fields', () => {
  it('-f sends a string where -F sends a number (and the service refuses the number)', async () => {
    const typed = await h.svc(['api', 'POST', '/v1/chats', '-f', 'language=en', '-F', 'subject=123']);
    expect(typed.exitCode).toBe(2);
    expect(typed.stderr).toContain('subject');
    const raw = await h.svc(['api', 'POST', '/v1/chats', '-f', 'language=en', '-f', 'subject=123']);
    expect(raw.exitCode, raw.stderr).toBe(0);
    expect(JSON.parse(raw.stdout)).toMatchObject({ object: 'chat', subject: '123' });
  });

  it("-F key=@file sends the file's contents, @- reads stdin; a path without its slash is accepted", async () => {
    const file = join(files, 'subject.txt');
    writeFileSync(file, 'from a file');
    const fromFile = await h.svc(['api', 'POST', 'v1/chats', '-f', 'language=en', '-F', `subject=@${file}`]);
    expect(fromFile.exitCode, fromFile.stderr).toBe(0);
    expect(JSON.parse(fromFile.stdout).subject).toBe('from a file');
    const fromStdin = await h.svc(['api', 'POST', 'v1/chats', '-f', 'language=en', '-F', 'subject=@-'], { stdin: 'piped' });
    expect(JSON.parse(fromStdin.stdout).subject).toBe('piped');
    const missing = await h.svc(['api', 'POST', 'v1/chats', '-F', `subject=@${join(files, 'nope')}`]);
    expect(missing.exitCode).toBe(2);
  });

  it("gh's form: `svc api PATH` is a GET, with fields a POST, -X chooses", async () => {
    const account = await h.svc(['api', 'v1/account']);
    expect(JSON.parse(account.stdout).object).toBe('account');
    const posted = await h.svc(['api', '/v1/calls', '-F', 'languages[]=en', '-F', 'languages[]=es']);
    expect(JSON.parse(posted.stdout)).toMatchObject({ object: 'call', languages: ['en', 'es'] });
    const ended = await h.svc(['api', `/v1/calls/${JSON.parse(posted.stdout).id}/end`, '-X', 'post']);
    expect(JSON.parse(ended.stdout).status).toBe('ended');
  });

  it('GET fields go to the query string', async () => {
    const call = JSON.parse((await h.svc(['api', 'POST', '/v1/calls', '-F', 'languages[]=en', '-F', 'languages[]=fr'])).stdout);
    await h.svc(['api', 'POST', `/v1/calls/${call.id}/end`]);
    const active = JSON.parse((await h.svc(['api', 'GET', '/v1/calls', '-f', 'status=active', '-F', 'limit=100'])).stdout);
    expect(active.data.map((c: { id: string }) => c.id)).not.toContain(call.id);
    const ended = JSON.parse((await h.svc(['api', 'GET', '/v1/calls', '-f', 'status=ended', '-F', 'limit=100'])).stdout);
    expect(ended.data.map((c: { id: string }) => c.id)).toContain(call.id);
  });

  it('nested keys build arrays and objects, as gh does', () => {
    const fields = ['items[][name]=a', 'items[][size]=1', 'items[][name]=b', 'meta[source]=cli', 'meta[tags][]=x', 'tags[]=t'].map((e) => ({
      spec: parseField(e, 'raw'),
      value: e.split('=')[1],
    }));
    expect(buildBody(fields)).toEqual({ items: [{ name: 'a', size: '1' }, { name: 'b' }], meta: { source: 'cli', tags: ['x'] }, tags: ['t'] });
    expect(() => parseField('a[b=1', 'typed')).toThrow(/not valid/);
  });
});

describe('svc api headers and paths', () => {
  it("--debug shows a -H header by name, never its value; svc's own headers as they are", async () => {
    const token = 'proxy-token-abc123-wxyz';
    const run = await h.svc(['--debug', 'api', 'GET', '/v1/account', '-H', `X-Proxy-Token: ${token}`, '-H', 'Last-Event-ID: evt_1']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).not.toContain(token);
    expect(run.stderr).toContain(`> x-proxy-token: …wxyz (${token.length} characters)`);
    expect(run.stderr).toContain('> last-event-id: evt_1');
    expect(run.stderr).toMatch(/> user-agent: svc\//);
  });

  it('refuses an Authorization header (svc sends the credential) and absolute URLs', async () => {
    const sent = await h.requestsDuring(async () => {
      const auth = await h.svc(['api', 'GET', '/v1/account', '-H', 'Authorization: Bearer svc_test_other']);
      expect(auth.exitCode).toBe(2);
      expect(auth.stderr).toMatch(/Authorization is refused/);
      const url = await h.svc(['api', 'GET', 'https://elsewhere.example/v1/account']);
      expect(url.exitCode).toBe(2);
    });
    expect(sent).toBe(0);
  });

  it('-H sends the header: Last-Event-ID on the event stream, which is printed as it arrives', async () => {
    await h.plane.publishEvents({ org_id: h.emulator.seed.org_id, mode: 'test', type: 'call.started', count: 2 });
    const [newest, previous] = (JSON.parse((await h.svc(['api', 'GET', '/v1/events', '-F', 'limit=2'])).stdout).data as Array<{ id: string }>).map((e) => e.id);
    const controller = new AbortController();
    let stdout = '';
    const configDir = mkdtempSync(join(files, 'cfg-'));
    const runtime: Runtime = {
      env: { SVC_API_KEY: h.emulator.seed.keys.test, SVC_BASE_URL: h.emulator.url, SVC_CONFIG_DIR: configDir, HOME: configDir },
      stdout: {
        write(chunk) {
          stdout += chunk;
          // The replay answers the header; seeing it before the command ended proves streaming.
          if (stdout.includes(`id: ${newest}`)) controller.abort();
        },
        isTTY: false,
      },
      stderr: { write: () => {}, isTTY: false },
      stdin: { isTTY: false, readAll: async () => '', lines: async function* () {} },
      clock: { now: () => Date.now(), sleep: async () => {} },
      random: { bytes: (n) => new Uint8Array(randomBytes(n)) },
      browser: { open: async () => {} },
      signal: controller.signal,
      secrets: new MemorySecretStore(),
    };
    const code = await execute(['api', 'GET', '/v1/events/stream', '-H', `Last-Event-ID: ${previous}`], runtime);
    expect(stdout).toContain(`id: ${newest}`);
    expect(stdout).not.toContain(`id: ${previous}`);
    expect(code).toBe(130);
  });
});

describe('svc api --paginate and --jq', () => {
  it('--paginate --json prints one array of every item; without --json one document per page', async () => {
    for (let i = 0; i < 5; i++) await h.svc(['api', 'POST', '/v1/chats', '-f', 'language=en', '-f', `subject=page ${i}`]);
    const total = (JSON.parse((await h.svc(['api', 'GET', '/v1/chats', '-F', 'limit=100'])).stdout).data as unknown[]).length;
    expect(total).toBeGreaterThanOrEqual(5);
    const all = await h.svc(['api', 'GET', '/v1/chats', '-F', 'limit=2', '--paginate', '--json']);
    expect(all.exitCode, all.stderr).toBe(0);
    const items = JSON.parse(all.stdout) as Array<{ id: string }>;
    expect(items).toHaveLength(total);
    expect(new Set(items.map((c) => c.id)).size).toBe(total);
    const pages = await h.svc(['api', 'GET', '/v1/chats?limit=2', '--paginate']);
    expect(pages.stdout.match(/"object": "list"/g)).toHaveLength(Math.ceil(total / 2));
    expect((await h.svc(['api', 'POST', '/v1/chats', '--paginate'])).exitCode).toBe(2);
  });

  it('--jq filters with a real jq: raw strings, per page, or over the joined array', async () => {
    const id = await h.svc(['api', 'GET', '/v1/account', '--jq', '.id']);
    expect(id.stdout).toBe(`${h.emulator.seed.org_id}\n`);
    const scopes = await h.svc(['api', 'GET', '/v1/account', '--jq', '.credential.scopes | length']);
    expect(Number(scopes.stdout.trim())).toBeGreaterThan(1);
    const ids = await h.svc(['api', 'GET', '/v1/chats', '-F', 'limit=2', '--paginate', '--json', '--jq', '.[].id']);
    const count = (JSON.parse((await h.svc(['api', 'GET', '/v1/chats', '-F', 'limit=100'])).stdout).data as unknown[]).length;
    expect(ids.stdout.trim().split('\n')).toHaveLength(count);
    const bad = await h.svc(['api', 'GET', '/v1/account', '--jq', '.id |||']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--jq');
  });
});

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
