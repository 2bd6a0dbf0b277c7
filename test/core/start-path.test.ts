// What the real start path loads: dist/main.cjs as scripts/bundle.mjs builds it, run for
// `--help` (and `--version`) in a process of its own, with a preload that records every
// module required. Node built-ins svc loads lazily (crypto, http, https, child_process,
// readline…) and the on-demand libraries (dist/lib/*) must not be among them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundle } from '../../scripts/bundle.mjs';

const root = join(import.meta.dirname, '..', '..');
const out = join(root, '.tmp', `start-path-${process.pid}`);
const launcher = join(out, 'svc.cjs');
const preload = join(out, 'record.cjs');

beforeAll(async () => {
  mkdirSync(out, { recursive: true });
  await bundle(out);
  writeFileSync(launcher, "require('./main.cjs').main();\n");
  // Records each module id required (built-ins as named, files as resolved) and writes them at exit.
  writeFileSync(
    preload,
    `const Module = require('node:module');
const seen = new Set();
const load = Module._load;
Module._load = function (request, parent, isMain) {
  seen.add(Module.isBuiltin(request) ? request.replace(/^node:/, '') : Module._resolveFilename(request, parent, isMain));
  return load.apply(this, arguments);
};
process.on('exit', () => require('node:fs').writeFileSync(process.env.RECORD_TO, JSON.stringify([...seen])));
`,
  );
}, 60_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

function loadedBy(args: string[], env: Record<string, string> = {}, status = 0): { builtins: string[]; files: string[]; stdout: string } {
  const record = join(out, `record-${args.join('-').replace(/[^\w-]/g, '_')}.json`);
  const r = spawnSync(process.execPath, ['-r', preload, launcher, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', RECORD_TO: record, SVC_CONFIG_DIR: join(out, 'config'), ...env },
  });
  expect(r.status, r.stderr).toBe(status);
  const seen = JSON.parse(readFileSync(record, 'utf8')) as string[];
  return { builtins: seen.filter((m) => !m.includes('/')), files: seen.filter((m) => m.includes('/')), stdout: r.stdout };
}

/** Built-ins that only a command's work needs: none may load to print help. */
const LAZY_BUILTINS = [
  'crypto',
  'http',
  'https',
  'net',
  'tls',
  'child_process',
  'readline',
  'zlib',
  'dgram',
  'worker_threads',
  'timers/promises',
  'fs/promises',
];

describe('the real start path (dist/main.cjs)', () => {
  it('--help loads none of the lazy built-ins, no on-demand library and not the keychain addon', () => {
    const { builtins, files, stdout } = loadedBy(['--help']);
    expect(stdout).toMatch(/Usage: svc/);
    expect(builtins.filter((b) => LAZY_BUILTINS.includes(b))).toEqual([]);
    expect(files.filter((f) => f.includes(`${join(out, 'lib')}`) || f.includes('@napi-rs') || f.endsWith('emulator.js'))).toEqual([]);
  });

  it('calls --help likewise', () => {
    const { builtins, files } = loadedBy(['calls', '--help']);
    expect(builtins.filter((b) => LAZY_BUILTINS.includes(b))).toEqual([]);
    expect(files.filter((f) => f.includes(join(out, 'lib')))).toEqual([]);
  });

  it('--version loads nothing but the bundle itself', () => {
    const { builtins, files } = loadedBy(['--version']);
    expect(files.filter((f) => f !== launcher && f !== join(out, 'main.cjs'))).toEqual([]);
    expect(builtins.filter((b) => LAZY_BUILTINS.includes(b))).toEqual([]);
  });

  it('sees a lazy built-in when a command loads one (the check can fail): a plain-http request loads node:http, not https', () => {
    // Nothing listens on port 9: the request fails (exit 9), but only after node:http loaded.
    const { builtins } = loadedBy(['account', '--json', '--base-url', 'http://127.0.0.1:9'], { SVC_API_KEY: 'svc_test_startpath' }, 9);
    expect(builtins).toContain('http');
    expect(builtins).not.toContain('https');
    expect(builtins).not.toContain('perf_hooks');
  });

  it('a run whose work is still pending when the event loop runs dry says so and exits 1, not 0 with nothing', () => {
    const script = `require(${JSON.stringify(join(out, 'main.cjs'))}).whileAwaited(new Promise(() => {}), () => { process.stderr.write('stranded'); process.exitCode = 1; })`;
    const stranded = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect({ status: stranded.status, stderr: stranded.stderr }).toEqual({ status: 1, stderr: 'stranded' });
    const settled = spawnSync(process.execPath, ['-e', script.replace('new Promise(() => {})', 'Promise.resolve()')], { encoding: 'utf8' });
    expect({ status: settled.status, stderr: settled.stderr }).toEqual({ status: 0, stderr: '' });
  });
});
