// The built binary for what only the bundle can get wrong in the scripting features:
// jq-wasm loaded from dist/lib on demand (its WebAssembly compiled beside the command's
// module loading, a bad filter refused before anything is sent), JSON errors on stderr with
// the exit code, bare `svc` printing help with exit 0.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { controlPlane, startTestEmulator } from '../helpers/emulator.js';
import { recordingServer } from '../helpers/http-servers.js';
import { spawnCollect, standaloneBin, svcBin, svcCommand, svcPath, type Spawned } from '../helpers/spawn.js';

let emulator: RunningEmulator;
let configDir: string;

function svc(args: string[], env: Record<string, string> = {}): Promise<Spawned> {
  return spawnCollect(...svcCommand(args), {
    env: { PATH: svcPath(), HOME: configDir, SVC_CONFIG_DIR: configDir, SVC_CREDENTIAL_STORE: 'file', SVC_BASE_URL: emulator.url, ...env },
  });
}

beforeAll(async () => {
  emulator = await startTestEmulator();
  configDir = mkdtempSync(join(tmpdir(), 'svc-binary-script-'));
});

afterAll(async () => {
  await emulator?.close();
  rmSync(configDir, { recursive: true, force: true });
});

describe('scripting through the bundle', () => {
  it('svc api --jq runs the bundled jq', async () => {
    const ran = await svc(['api', 'v1/account', '--jq', '.credential.scopes | join(",")'], { SVC_API_KEY: emulator.seed.keys.test });
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^calls:read,.*account:read\n$/);
  });

  // (Preloads a recorder into bin/svc.js: skipped for the standalone binary, SVC_BIN.)
  it.skipIf(standaloneBin)('--jq compiles jq once, before the command module loads, with no ESM loader; a plain path compiles none', async () => {
    // A preload records, in order, svc's start-up phases (src/cli/phase.ts) and each WebAssembly
    // compile, and at exit the parts of Node's ESM loader that were loaded.
    const preload = join(configDir, 'record-jq-start.cjs');
    writeFileSync(
      preload,
      [
        'const seen = [];',
        'const before = new Set(process.moduleLoadList);',
        "process.on('svc:phase', (name) => seen.push(name));",
        "for (const name of ['compile', 'compileStreaming', 'instantiate', 'instantiateStreaming']) {",
        '  const original = WebAssembly[name];',
        "  WebAssembly[name] = function (...args) { seen.push('wasm'); return original.apply(this, args); };",
        '}',
        "process.on('exit', () => require('fs').writeFileSync(process.env.SVC_TEST_RECORD, JSON.stringify({ seen, esm: process.moduleLoadList.filter((m) => !before.has(m) && /modules\\/esm/.test(m)) })));",
      ].join('\n'),
    );
    const record = join(configDir, 'record.json');
    const recorded = async (args: string[]) => {
      const ran = await spawnCollect(process.execPath, ['--require', preload, svcBin, ...args], {
        env: {
          PATH: svcPath(),
          HOME: configDir,
          SVC_CONFIG_DIR: configDir,
          SVC_BASE_URL: emulator.url,
          SVC_API_KEY: emulator.seed.keys.test,
          SVC_TEST_RECORD: record,
        },
      });
      return { ran, ...(JSON.parse(readFileSync(record, 'utf8')) as { seen: string[]; esm: string[] }) };
    };
    const filtered = await recorded(['account', '--jq', '.id | tostring']);
    expect(filtered.ran.stderr).toBe('');
    expect(filtered.ran.stdout).toBe(`${emulator.seed.org_id}\n`);
    expect(filtered.seen.filter((mark) => mark === 'wasm')).toHaveLength(1);
    expect(filtered.seen.indexOf('wasm'), filtered.seen.join(' ')).toBeLessThan(filtered.seen.indexOf('module'));
    const plain = await recorded(['account', '--json']);
    expect(plain.ran.code).toBe(0);
    expect(plain.seen).not.toContain('wasm');
    expect(filtered.esm).toEqual(plain.esm);
    // A plain path to a string is answered without jq (src/io/jq-filter.ts): nothing compiled.
    const path = await recorded(['account', '--jq', '.id']);
    expect(path.ran.stderr).toBe('');
    expect(path.ran.stdout).toBe(`${emulator.seed.org_id}\n`);
    expect(path.seen).not.toContain('wasm');
    // Where the answer at the path is not a string, jq answers, as jq prints numbers.
    const number = await recorded(['account', '--jq', '.balance.available']);
    expect(number.ran.stderr).toBe('');
    expect(number.ran.stdout).toMatch(/^\d/);
    expect(number.seen.filter((mark) => mark === 'wasm')).toHaveLength(1);
  });

  it('events tail --jq filters event after event in one process: the bundled jq keeps running (it failed at the 314th run)', async () => {
    // Each event is published once the one before it is printed, so each reaches jq on its own, as in a live session.
    const plane = controlPlane(emulator);
    const count = 400;
    const [command, args] = svcCommand(['events', 'tail', '--max-events', String(count), '--jq', '.id']);
    const tail = spawn(command, args, {
      env: { PATH: svcPath(), HOME: configDir, SVC_CONFIG_DIR: configDir, SVC_BASE_URL: emulator.url, SVC_API_KEY: emulator.seed.keys.test },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    tail.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const ended = new Promise<number | null>((resolve) => tail.on('close', resolve));
    await plane.streamsOpen(1);
    const publish = async () => (await plane.publishEvents({ org_id: emulator.seed.org_id, mode: 'test', type: 'call.started', count: 1 })).first_id;
    const published = [await publish()];
    const printed: string[] = [];
    for await (const line of createInterface({ input: tail.stdout })) {
      printed.push(line);
      if (published.length < count) published.push(await publish());
    }
    expect(stderr).not.toMatch(/--jq|abort|memory/i);
    expect(await ended).toBe(0);
    expect(printed).toEqual(published);
  });

  it("events tail --jq: a filter that fails on an event stops the tail there, with jq's words (it went on printing nothing)", async () => {
    const plane = controlPlane(emulator);
    const tail = svc(['events', 'tail', '--jq', '.type | .x'], { SVC_API_KEY: emulator.seed.keys.test });
    await plane.streamsOpen(1);
    await plane.publishEvents({ org_id: emulator.seed.org_id, mode: 'test', type: 'call.started', count: 1 });
    const ran = await tail;
    // As `jq -r` ends: its exit status and its words on stderr (the tail's summary after them).
    expect(ran.code).toBe(5);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toMatch(/^jq: error \(at <stdin>:1\): Cannot index string with string "x"$/m);
  });

  it('a filter that does not compile is exit 2 through the bundle, with nothing sent to the service', async () => {
    // A server that records what reaches it.
    let close = () => {};
    const counting = await recordingServer(
      (res) => res.end('{}'),
      (closer) => (close = closer),
    );
    try {
      const counted = { SVC_API_KEY: emulator.seed.keys.test, SVC_BASE_URL: counting.origin };
      for (const filter of ['.data |||', 'nosuchfunction']) {
        const ran = await svc(['calls', 'start', '--languages', 'en,es', '--jq', filter], counted);
        expect(ran.code, filter).toBe(2);
        expect(ran.stdout).toBe('');
        expect(JSON.parse(ran.stderr)).toMatchObject({ error: { code: 'usage', exit_code: 2 } });
      }
    } finally {
      close();
    }
    expect(counting.requests).toEqual([]);
  });

  it('--json failures are one JSON object on stderr, stdout empty, the exit code in both', async () => {
    const ran = await svc(['account', '--json']);
    expect(ran.code).toBe(3);
    expect(ran.stdout).toBe('');
    expect(JSON.parse(ran.stderr)).toMatchObject({ error: { code: 'not_authenticated', status: null, exit_code: 3 } });
  });

  it('bare svc prints its help on stdout and exits 0', async () => {
    const ran = await svc([]);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain('Usage: svc');
    expect(ran.stderr).toBe('');
  });
});
