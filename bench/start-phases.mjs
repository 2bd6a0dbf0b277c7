// Where `svc account --json` spends the time the bare node:https script does not (the README's
// "Missed" paragraph under the bench): both run against `svc emulator --https` with a
// preload that marks each phase from inside the process (bench/phase-marks.cjs, which adds a
// little time of its own to both). Medians of BENCH_RUNS (default 25) runs, taking turns.
//   node bench/start-phases.mjs [--node PATH ...]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnEmulator } from './spawned-emulator.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const preload = join(root, 'bench/phase-marks.cjs');
const runs = Number(process.env.BENCH_RUNS ?? 25);
const args = process.argv.slice(2);
const given = args.flatMap((arg, i) => (arg === '--node' && args[i + 1] ? [args[i + 1]] : []));
const nodes = given.length ? given : [process.execPath];

/** Moves the emulator's clock a minute (a connection of its own, trusting its CA for this call only). */
function advanceClock() {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ advance_seconds: 60 });
    const request = httpsRequest(
      new URL('/_emulator/clock', emulator.url),
      { method: 'POST', ca: readFileSync(emulator.ca_file), agent: false, headers: { 'content-type': 'application/json' } },
      (response) => {
        response.resume();
        response.on('end', () => (response.statusCode < 300 ? resolve() : reject(new Error(`advancing the clock: ${response.statusCode}`))));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const scratch = mkdtempSync(join(tmpdir(), 'svc-bench-phases-'));
const emulator = await spawnEmulator({ args: ['--https'], env: { ...process.env, SVC_CONFIG_DIR: join(scratch, 'emulator') } });
try {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: scratch,
    NO_COLOR: '1',
    SVC_CREDENTIAL_STORE: 'file',
    SVC_CONFIG_DIR: join(scratch, 'config'),
    NODE_EXTRA_CA_CERTS: emulator.ca_file,
    SVC_BASE_URL: emulator.url,
    SVC_API_KEY: emulator.keys.test,
  };
  const cases = {
    svc: [join(root, 'bin/svc.js'), 'account', '--json'],
    bare: [join(root, 'bench/bare-requests.cjs'), '/v1/account', '/v1/balance'],
  };
  for (const node of nodes) {
    const seen = { svc: [], bare: [] };
    for (let i = 0; i < runs + 2; i++) {
      // The emulator allows 600 requests a minute per key: its clock moves a minute every 10 rounds.
      if (i % 10 === 0) await advanceClock();
      for (const [name, script] of Object.entries(cases)) {
        const ran = spawnSync(node, ['--require', preload, ...script], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
        if (ran.status !== 0) throw new Error(`${name} exited ${ran.status}: ${ran.stderr}`);
        if (i >= 2) seen[name].push(JSON.parse(ran.stderr.match(/^PHASES (.*)$/m)[1]));
      }
    }
    const ms = (name, phase) => median(seen[name].map(phase)).toFixed(1);
    const version = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    console.log(
      `\nnode ${version}: main script to exit, svc account --json ${ms('svc', (m) => m.exit - m.script)} ms, bare script ${ms('bare', (m) => m.exit - m.script)} ms`,
    );
    console.table({
      svc: {
        'loading the core': ms('svc', (m) => m.core - m.script),
        'to commander': ms('svc', (m) => m.commanderAsked - m.core),
        'loading commander': ms('svc', (m) => m.commander - m.commanderAsked),
        'parsing the line': ms('svc', (m) => m.parsed - m.commander),
        'the command, to node:http(s)': ms('svc', (m) => m.http - m.parsed),
        'to the first socket': ms('svc', (m) => m.socket - m.http),
        'to the last answer': ms('svc', (m) => m.answered - m.socket),
        'to exit': ms('svc', (m) => m.exit - m.answered),
        'GCs (ms)': `${ms('svc', (m) => m.collections)} (${ms('svc', (m) => m.collectionMs)})`,
      },
      bare: {
        'loading the core': '-',
        'to commander': '-',
        'loading commander': '-',
        'parsing the line': '-',
        'the command, to node:http(s)': ms('bare', (m) => m.http - m.script),
        'to the first socket': ms('bare', (m) => m.socket - m.http),
        'to the last answer': ms('bare', (m) => m.answered - m.socket),
        'to exit': ms('bare', (m) => m.exit - m.answered),
        'GCs (ms)': `${ms('bare', (m) => m.collections)} (${ms('bare', (m) => m.collectionMs)})`,
      },
    });
  }
} finally {
  emulator.stop();
  rmSync(scratch, { recursive: true, force: true });
}
