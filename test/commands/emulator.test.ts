// `svc emulator`: the command that starts the emulator, then its parse rules (apart from running).
import { describe, expect, it } from 'vitest';
import type { BaseContext } from '../../src/context.js';
import { parse, parseEmulatorStart, run, runEmulatorStart } from '../../src/commands/emulator.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCli, parsing } from '../helpers/parse.js';

function fakeContext(controller: AbortController, json = false) {
  const out: string[] = [];
  const err: string[] = [];
  const ctx = {
    env: {},
    io: {
      stdout: { write: (s: string) => void out.push(s), isTTY: false },
      stderr: { write: (s: string) => void err.push(s), isTTY: false },
      stdin: { isTTY: false, readAll: async () => '', lines: async function* () {} },
      color: false,
      canPrompt: () => false,
      progress: () => {},
      spinner: async () => ({ stop() {} }),
    },
    clock: { now: () => Date.now(), sleep: async () => {} },
    random: { bytes: (n: number) => new Uint8Array(n) },
    browser: { open: async () => {} },
    signal: controller.signal,
    globals: { json, debug: false, color: false, yes: false },
  } as BaseContext;
  return { ctx, out, err };
}

async function until(predicate: () => boolean) {
  for (let i = 0; i < 500 && !predicate(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe('svc emulator (start command)', () => {
  it('parses port and host with defaults, and refuses bad ports with a usage error (exit 2)', async () => {
    expect(parseEmulatorStart({})).toEqual({ port: 4010, host: '127.0.0.1', json: false });
    expect(parseEmulatorStart({ port: 0, host: '0.0.0.0', json: true })).toEqual({ port: 0, host: '0.0.0.0', json: true });
    expect(parse([], { port: 65535 })).toMatchObject({ port: 65535 });
    for (const port of ['-1', '65536', '1.5', 'abc', '']) {
      const refused = await parseCli(['emulator', '--port', port]);
      expect(refused.exitCode, port).toBe(2);
      expect(refused.stderr, port).toContain(`--port "${port}" must be a whole number from 0 to 65535`);
    }
    expect(() => parse(['extra'], {})).toThrow(/no arguments/);
  });

  it('--json prints one JSON line with the url, seed and full keys, and stops on abort with 0', async () => {
    const controller = new AbortController();
    const { ctx, out, err } = fakeContext(controller);
    const running = runEmulatorStart({ port: 0, host: '127.0.0.1', json: true }, ctx);
    await until(() => out.length > 0);
    const lines = out.join('').trim().split('\n');
    expect(lines).toHaveLength(1);
    const info = JSON.parse(lines[0]!);
    expect(Object.keys(info)).toEqual(['url', 'dashboard_url', 'org_id', 'org_name', 'admin', 'keys', 'cli_client_id']);
    expect(info.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(info.dashboard_url).toBe(`${info.url}/`);
    expect(info.url).not.toMatch(/:0$/);
    const account = await fetch(`${info.url}/v1/account`, { headers: { authorization: `Bearer ${info.keys.test}` } });
    expect(account.status).toBe(200);
    expect(err.join('')).toBe('');
    controller.abort();
    await expect(running).resolves.toBeUndefined();
    await expect(fetch(`${info.url}/v1/account`)).rejects.toThrow();
  });

  it('human output names the org, admin and keys; a non-loopback host warns on stderr', async () => {
    const controller = new AbortController();
    const { ctx, out, err } = fakeContext(controller);
    const running = run({ port: 0, host: '0.0.0.0', json: false }, ctx);
    await until(() => out.length > 0);
    const text = out.join('');
    expect(text).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(text).toContain('admin@acme.test');
    expect(text).toMatch(/svc_test_\S+/);
    expect(text).toMatch(/svc_live_\S+/);
    expect(err.join('')).toMatch(/control plane .* open to that network/);
    expect(err.join('')).not.toMatch(/svc_(test|live)_/);
    controller.abort();
    await expect(running).resolves.toBeUndefined();
  });

  it('--open opens the dashboard at the root URL, which the banner names', async () => {
    expect(parse([], { open: true })).toMatchObject({ open: true });
    const controller = new AbortController();
    const { ctx, out } = fakeContext(controller);
    const opened: string[] = [];
    ctx.browser = { open: async (url: string) => void opened.push(url) };
    ctx.env = { DISPLAY: ':0' }; // a desktop session: without one, --open says where to go instead (test/core/tables.test.ts)
    const running = run({ port: 0, host: '127.0.0.1', json: false, open: true }, ctx);
    await until(() => opened.length > 0);
    const url = /listening on (\S+)/.exec(out.join(''))![1]!;
    expect(out.join('')).toContain(`dashboard     ${url}/`);
    expect(opened).toEqual([`${url}/`]);
    const page = await fetch(opened[0]!);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<title>Overview · Test · svc emulator<\/title>/);
    controller.abort();
    await expect(running).resolves.toBeUndefined();
  });
});

describe('svc emulator on a port already in use', () => {
  it('is a usage error (exit 2) naming the port and how to pick another', async () => {
    const { createServer } = await import('node:net');
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    try {
      const { ctx } = fakeContext(new AbortController());
      const error = await runEmulatorStart(parseEmulatorStart({ port }), ctx).catch((e: unknown) => e);
      expect(error).toMatchObject({ exitCode: 2, message: expect.stringContaining(`port ${port}`), hint: expect.stringContaining('--port 0') });
    } finally {
      busy.close();
    }
  });
});

describe('svc emulator --state, --export, --import, --allow-host', () => {
  it('parses the flags and refuses combinations that cannot work (exit 2)', () => {
    expect(parseEmulatorStart({ state: 's.jsonl', allowHost: ['dev.box', '[::1]'] })).toMatchObject({ state: 's.jsonl', allowHosts: ['dev.box', '::1'] });
    expect(parseEmulatorStart({ state: 's.jsonl', export: 'out.json' })).toMatchObject({ state: 's.jsonl', exportTo: 'out.json' });
    expect(parseEmulatorStart({ import: 'fixture.json' })).toMatchObject({ importFrom: 'fixture.json' });
    for (const flags of [{ export: 'out.json' }, { state: 's', export: 'o', import: 'i' }, { state: ' ' }, { allowHost: ['evil/path'] }]) {
      expect(() => parseEmulatorStart(flags), JSON.stringify(flags)).toThrow(expect.objectContaining({ exitCode: 2 }));
    }
  });

  it('creates the state file and prints the seed, then on restart says what it loaded and prints no key; --export writes the document', async () => {
    const { mkdtempSync, readFileSync, rmSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'svc-emu-start-'));
    try {
      const state = join(dir, 'state.jsonl');
      const first = new AbortController();
      const one = fakeContext(first);
      const running = run(parseEmulatorStart({ port: 0, state }), one.ctx);
      await until(() => one.out.length > 0);
      expect(one.out.join('')).toMatch(/svc_test_\S+/);
      expect(one.out.join('')).toContain(`state         ${state} (new`);
      first.abort();
      await expect(running).resolves.toBeUndefined();

      const second = new AbortController();
      const two = fakeContext(second);
      const again = run(parseEmulatorStart({ port: 0, state }), two.ctx);
      await until(() => two.out.length > 0);
      const text = two.out.join('');
      expect(text).toContain(`loaded from ${state}: 1 organization(s), 2 key(s)`);
      expect(text).toMatch(/organization {2}Acme \(org_/);
      expect(text).not.toMatch(/svc_(test|live)_/);
      second.abort();
      await expect(again).resolves.toBeUndefined();

      const out = join(dir, 'fixture.json');
      const exported = fakeContext(new AbortController());
      await expect(run(parseEmulatorStart({ state, export: out }), exported.ctx)).resolves.toBeUndefined();
      expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ format: 'svc-emulator-state', orgs: [{ name: 'Acme' }] });
      expect(exported.err.join('')).toContain(`exported ${state} to ${out}`);

      writeFileSync(state, 'garbage\n');
      const broken = fakeContext(new AbortController());
      const error = await run(parseEmulatorStart({ port: 0, state }), broken.ctx).catch((e: unknown) => e);
      expect(error).toMatchObject({ exitCode: 2, message: expect.stringContaining(state) });
      expect(readFileSync(state, 'utf8')).toBe('garbage\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--state naming a folder or a file in a missing folder: exit 2 naming the path, nothing started', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-state-path-'));
    try {
      for (const [state, words] of [
        [dir, 'is a folder'],
        [join(dir, 'missing', 'state.jsonl'), `the folder ${join(dir, 'missing')} does not exist`],
      ] as const) {
        const { ctx } = fakeContext(new AbortController());
        const error = await run(parseEmulatorStart({ port: 0, state }), ctx).catch((e: unknown) => e);
        expect(error, state).toMatchObject({ exitCode: 2, message: expect.stringContaining(`--state ${state}`) });
        expect((error as Error).message).toContain(words);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const { ok, refused } = parsing('emulator');

describe('svc emulator: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('emulator')).toEqual({ port: 4010, host: '127.0.0.1', json: false });
    expect(await ok('emulator', '--port', '0', '--host', '0.0.0.0')).toEqual({ port: 0, host: '0.0.0.0', json: false });
    expect(await refused('emulator', '--port', '65536')).toContain('--port "65536" must be a whole number from 0 to 65535');
    expect(await ok('emulator', '--state', 's.jsonl', '--export', 'out.json', '--allow-host', 'svc.test', '--allow-host', 'b.test')).toMatchObject({
      state: 's.jsonl',
      exportTo: 'out.json',
      allowHosts: ['svc.test', 'b.test'],
    });
  });
});
