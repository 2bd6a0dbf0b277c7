// The shipped program, spawned as a user runs it: `node bin/svc.js` over the esbuild
// bundle in dist/. The in-process suites run the TypeScript source; this one catches
// what only the bundle can get wrong (module interop, lazy chunks, the process edge:
// exit codes, the stdout/stderr split, signals, a closed pipe).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { controlPlane, startTestEmulator } from '../helpers/emulator.js';
import { spawnCollect, standaloneBin, svcCommand, svcPath, svcShellWords, type Spawned } from '../helpers/spawn.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin/svc.js');

let emulator: RunningEmulator;
let configDir: string;

type Ran = Spawned;

/** Spawns the bundled svc; `stdin` is written then closed (no stdin = /dev/null, like CI). */
function svc(args: string[], opts: { env?: Record<string, string>; stdin?: string } = {}): Promise<Ran> {
  const [command, argv] = svcCommand(args);
  return spawnCollect(command, argv, {
    env: {
      PATH: svcPath(),
      HOME: configDir,
      SVC_CONFIG_DIR: configDir,
      SVC_CREDENTIAL_STORE: 'file',
      SVC_BASE_URL: emulator.url,
      ...opts.env,
    },
    ...(opts.stdin === undefined ? {} : { stdin: opts.stdin }),
  });
}

/** A control-plane call (test/helpers/emulator.ts); `path` is under /_emulator. */
function control(method: string, path: string, body?: unknown): Promise<any> {
  return controlPlane(emulator).request(method, path, body);
}

beforeAll(async () => {
  emulator = await startTestEmulator();
  configDir = mkdtempSync(join(tmpdir(), 'svc-binary-'));
});

afterAll(async () => {
  await emulator?.close();
  rmSync(configDir, { recursive: true, force: true });
});

describe('bin/svc.js over the bundle', () => {
  it('prints the version on stdout and nothing on stderr', async () => {
    const ran = await svc(['--version']);
    expect(ran.code).toBe(0);
    // bin/svc.js answers from package.json without loading the bundle: the same version the bundle has.
    expect(ran.stdout).toBe(`${JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version}\n`);
    expect((await svc(['--debug', '--version'])).stdout).toBe(ran.stdout);
    expect(ran.stderr).toBe('');
  });

  /** Runs bin/svc.js with a preload that lists, on stderr's last line, the bundle files it loaded. */
  async function traced(args: string[], env: Record<string, string> = {}): Promise<Ran & { loaded: string[] }> {
    const preload = join(configDir, 'record-bundle-files.cjs');
    writeFileSync(
      preload,
      "process.on('exit', () => process.stderr.write(`\\nloaded: ${Object.keys(require.cache).filter((f) => f.includes('/dist/')).map((f) => f.split('/dist/').pop()).join(' ')}\\n`));\n",
    );
    const ran = await spawnCollect(process.execPath, ['-r', preload, bin, ...args], {
      env: { PATH: process.env.PATH ?? '', SVC_CONFIG_DIR: configDir, SVC_BASE_URL: emulator.url, ...env },
    });
    const [, stderr = '', loaded = ''] = ran.stderr.match(/^([\s\S]*)\nloaded: (.*)\n$/) ?? [];
    return { ...ran, stderr, loaded: loaded ? loaded.split(' ') : [] };
  }

  // (Looks inside bin/svc.js or dist/: skipped for the standalone binary, SVC_BIN.)
  it.skipIf(standaloneBin)('answers completion from the file the build wrote to dist/completions/, and help from the manifest', async () => {
    for (const shell of ['bash', 'powershell']) {
      const viaLauncher = await traced(['completion', shell]);
      const viaBundle = await traced(['--no-color', 'completion', shell]);
      expect(viaLauncher.code).toBe(0);
      expect(viaLauncher.stdout).toBe(viaBundle.stdout);
      expect(viaLauncher.loaded).toEqual([]);
      expect(viaBundle.loaded).toContain('main.cjs');
    }
    for (const args of [
      [],
      ['--help'],
      ['-h'],
      ['calls', '--help'],
      ['help', 'calls', 'links', 'list'],
      ['calls', 'help', 'links', 'list'],
      ['events', 'tail', '-h'],
    ]) {
      const help = await traced(args);
      expect(help.code, args.join(' ')).toBe(0);
      expect(help.stdout, args.join(' ')).toMatch(/^Usage: svc/);
      expect(help.loaded.sort(), args.join(' ')).toEqual(['lib/commander.cjs', 'main.cjs', 'manifest.json']);
    }
    expect((await traced(['help', 'calls', 'links', 'list'])).stdout).toBe((await traced(['calls', 'links', 'list', '--help'])).stdout);
    // What no command has (an unknown command's help, a shell svc does not know) is a usage error.
    for (const args of [
      ['help', 'nope'],
      ['completion', 'tcsh'],
    ]) {
      const refused = await traced(args);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.loaded, args.join(' ')).toContain('main.cjs');
    }
  });

  // (Looks inside bin/svc.js or dist/: skipped for the standalone binary, SVC_BIN.)
  it.skipIf(standaloneBin)('runs a command from the bundle, the manifest and the parser (commander), nothing else', async () => {
    const key = { SVC_API_KEY: emulator.seed.keys.test };
    const bundleFiles = ['lib/commander.cjs', 'main.cjs', 'manifest.json'];
    const account = await traced(['account', '--json'], key);
    expect(account.code, account.stderr).toBe(0);
    expect(account.loaded.sort()).toEqual(bundleFiles);
    // Global flags first, one with a value: the same command, the same answer.
    const optionsFirst = await traced(['--profile', 'default', '--json', 'account'], key);
    expect(optionsFirst.loaded.sort()).toEqual(bundleFiles);
    expect(JSON.parse(optionsFirst.stdout)).toEqual(JSON.parse(account.stdout));
    const chats = await traced(['chats', 'list', '--json'], key);
    expect(chats.code, chats.stderr).toBe(0);
    expect(chats.loaded.sort()).toEqual(bundleFiles);
    // A usage error and an unknown command: commander's answer.
    for (const args of [['account', '--nope'], ['cals']]) {
      const refused = await traced(args, key);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.loaded.sort(), args.join(' ')).toEqual(bundleFiles);
    }
  });

  // (Looks inside bin/svc.js or dist/: skipped for the standalone binary, SVC_BIN.)
  it.skipIf(standaloneBin)("on Node 22+ keeps the bundle's compiled code in Node's compile cache, and no cache of its own", async () => {
    const cache = mkdtempSync(join(tmpdir(), 'svc-compile-cache-'));
    try {
      const ran = await svc(['account', '--json'], { env: { SVC_API_KEY: emulator.seed.keys.test, NODE_COMPILE_CACHE: cache, XDG_CACHE_HOME: cache } });
      expect(ran.code, ran.stderr).toBe(0);
      const written = readdirSync(cache, { recursive: true }).map(String);
      if (Number(process.versions.node.split('.')[0]) >= 22) expect(written.length).toBeGreaterThan(0);
      else expect(written).toEqual([]);
      expect(readdirSync(configDir).filter((name) => /cache|v8/.test(name))).toEqual([]);
      expect(written.filter((name) => name.startsWith('svc'))).toEqual([]);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it('exits 2 on an unknown command, with the error on stderr only', async () => {
    const ran = await svc(['cals', 'list']);
    expect(ran.code).toBe(2);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toMatch(/cals/);
  });

  it('exits 2 on a malformed key before any request, and never echoes it', async () => {
    // Reading the counter is itself a request: measure what two reads in a row add.
    const first = (await control('GET', '/stats')).requests;
    const before = (await control('GET', '/stats')).requests;
    const ran = await svc(['keys', 'add', '--stdin'], { stdin: 'sk_live_notours_1234567890' });
    expect(ran.code).toBe(2);
    expect(ran.stderr).not.toContain('sk_live_notours_1234567890');
    expect((await control('GET', '/stats')).requests - before).toBe(before - first);
  });

  it('stores a first key on a fresh machine, where the config directory does not exist yet', async () => {
    const fresh = join(configDir, 'not-yet', 'svc');
    const key = emulator.seed.keys.test;
    const ran = await svc(['keys', 'add', '--stdin'], { env: { SVC_CONFIG_DIR: fresh }, stdin: key });
    expect(ran.stderr).not.toContain(key);
    expect(ran.code).toBe(0);
    const file = join(fresh, 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(fresh, 'config.json'), 'utf8')).not.toContain(key);
  });

  // (Looks inside bin/svc.js or dist/: skipped for the standalone binary, SVC_BIN.)
  it.skipIf(standaloneBin)('loads neither fs/promises nor (on Node 20, where it brings the ESM loader) node:module, for --help or a request', async () => {
    // A preload records the built-in modules loaded after it, that is, by svc itself.
    const preload = join(configDir, 'record-modules.cjs');
    writeFileSync(
      preload,
      "const before = new Set(process.moduleLoadList); process.on('exit', () => require('fs').writeFileSync(process.env.SVC_TEST_MODULES, process.moduleLoadList.filter((m) => !before.has(m)).join('\\n')));",
    );
    for (const args of [['--help'], ['account', '--json']]) {
      const listFile = join(configDir, 'modules.txt');
      const ran = await new Promise<number | null>((resolve, reject) => {
        const child = spawn(process.execPath, ['--require', preload, bin, ...args], {
          env: {
            PATH: process.env.PATH ?? '',
            HOME: configDir,
            SVC_CONFIG_DIR: configDir,
            SVC_BASE_URL: emulator.url,
            SVC_API_KEY: emulator.seed.keys.test,
            SVC_TEST_MODULES: listFile,
          },
          stdio: 'ignore',
        });
        child.on('error', reject);
        child.on('close', resolve);
      });
      expect(ran, args.join(' ')).toBe(0);
      const loaded = readFileSync(listFile, 'utf8').split('\n');
      expect(loaded, args.join(' ')).not.toContain('NativeModule fs/promises');
      // (On Node 22+ the launcher loads node:module for Node's compile cache.)
      if (Number(process.versions.node.split('.')[0]) < 22) {
        expect(loaded, args.join(' ')).not.toContain('NativeModule module');
        expect(loaded, args.join(' ')).not.toContain('NativeModule internal/modules/esm/loader');
      }
    }
  });

  it('prints the account as JSON on stdout with SVC_API_KEY, nothing on stderr', async () => {
    const ran = await svc(['account', '--json'], { env: { SVC_API_KEY: emulator.seed.keys.test } });
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    const account = JSON.parse(ran.stdout);
    expect(account.id).toBe(emulator.seed.org_id);
  });

  it('exits 3 for a revoked key and says what to do, without printing the key', async () => {
    const made = await control('POST', `/orgs/${emulator.seed.org_id}/keys`, { mode: 'test' });
    await control('DELETE', `/orgs/${emulator.seed.org_id}/keys/${made.id}`);
    const ran = await svc(['calls', 'list'], { env: { SVC_API_KEY: made.key } });
    expect(ran.code).toBe(3);
    expect(ran.stdout).toBe('');
    // The next step for an env credential is to fix the variable (for a stored one, svc login / keys add).
    expect(ran.stderr).toMatch(/revoked/);
    expect(ran.stderr).toMatch(/SVC_API_KEY/);
    expect(ran.stderr).not.toContain(made.key);
  });

  it('exits 4 when the key lacks the scope, naming it', async () => {
    const made = await control('POST', `/orgs/${emulator.seed.org_id}/keys`, { mode: 'test', scopes: ['account:read'] });
    const ran = await svc(['calls', 'list'], { env: { SVC_API_KEY: made.key } });
    expect(ran.code).toBe(4);
    expect(ran.stderr).toContain('calls:read');
  });

  it('exits 5 for an unknown call and 6 for ending an ended one', async () => {
    const env = { SVC_API_KEY: emulator.seed.keys.test };
    expect((await svc(['calls', 'get', 'call_doesnotexist0000'], { env })).code).toBe(5);
    const started = await svc(['calls', 'start', '--languages', 'en,es', '--json'], { env });
    expect(started.code).toBe(0);
    const call = JSON.parse(started.stdout);
    expect((await svc(['calls', 'end', call.id], { env })).code).toBe(0);
    const again = await svc(['calls', 'end', call.id], { env });
    expect(again.code).toBe(6);
    expect(again.stdout).toBe('');
  });

  it('exits 8 when the live balance is empty and suggests --test', async () => {
    const org = await control('POST', '/orgs', { name: 'Broke', balance: 0 });
    const made = await control('POST', `/orgs/${org.id ?? org.org_id}/keys`, { mode: 'live' });
    const ran = await svc(['calls', 'start', '--languages', 'en,es', '--yes'], { env: { SVC_API_KEY: made.key } });
    expect(ran.code).toBe(8);
    expect(ran.stderr).toContain('--test');
  });

  it('retries a 502 on a read and exits 9 when it persists', async () => {
    const env = { SVC_API_KEY: emulator.seed.keys.test };
    await control('POST', '/faults', { path_prefix: '/v1/balance', status: 502, count: 1 });
    expect((await svc(['account', 'balance', '--json'], { env })).code).toBe(0);
    await control('POST', '/faults', { path_prefix: '/v1/balance', status: 502, count: 50 });
    const ran = await svc(['account', 'balance', '--json'], { env });
    expect(ran.code).toBe(9);
    await control('POST', '/reset');
  });

  it('keeps every secret out of --debug output', async () => {
    const key = emulator.seed.keys.test;
    const ran = await svc(['account', '--debug', '--json'], { env: { SVC_API_KEY: key } });
    expect(ran.code).toBe(0);
    expect(ran.stderr).toMatch(/GET .*\/v1\/account/);
    expect(ran.stderr).not.toContain(key);
    expect(ran.stderr).toContain(`…${key.slice(-4)}`);
  });

  it('translates stdin lines in input order through the bundle', async () => {
    const ran = await svc(['translate', '--lines', '--to', 'de'], {
      env: { SVC_API_KEY: emulator.seed.keys.test },
      stdin: 'one\ntwo\nthree\n',
    });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe('[de] one\n[de] two\n[de] three\n');
  });

  it('ends `events tail --json` quietly with exit 0 when the reader closes the pipe', async () => {
    const key = emulator.seed.keys.test;
    await control('POST', '/events', { org_id: emulator.seed.org_id, mode: 'test', type: 'call.started', count: 1 });
    const newest = await fetch(`${emulator.url}/v1/events?limit=1`, { headers: { authorization: `Bearer ${key}` } });
    const mark = ((await newest.json()) as { data: Array<{ id: string }> }).data[0]!.id;
    await control('POST', '/events', { org_id: emulator.seed.org_id, mode: 'test', type: 'call.started', count: 2000 });
    // `head` reads 3 lines and exits; svc's next write meets a closed pipe. (Async spawn:
    // the emulator serves from this process's event loop.)
    const ran = await new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn('bash', ['-c', `${svcShellWords()} events tail --json --since ${mark} | head -n 3; echo "svc-exit=\${PIPESTATUS[0]}" >&2`], {
        env: { PATH: svcPath(), SVC_CONFIG_DIR: configDir, SVC_BASE_URL: emulator.url, SVC_API_KEY: key },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', () => resolve({ stdout, stderr }));
    });
    const lines = ran.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines.map((line) => JSON.parse(line).type)).toEqual(['call.started', 'call.started', 'call.started']);
    expect(ran.stderr).toContain('svc-exit=0');
    expect(ran.stderr).not.toMatch(/EPIPE|Error:/);
  });

  it('exits 130 on Ctrl-C during `events tail`, with a summary on stderr', async () => {
    const child = spawn(...svcCommand(['events', 'tail']), {
      env: { PATH: svcPath(), SVC_CONFIG_DIR: configDir, SVC_BASE_URL: emulator.url, SVC_API_KEY: emulator.seed.keys.test },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise<void>((resolve) => child.stderr.once('data', () => resolve()));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(code).toBe(130);
    expect(stderr.length).toBeGreaterThan(0);
  });
});
