// Where svc's start-up spends the time the bare script does not (the README's "Missed"
// paragraph under the bench): `svc account --json` with the key in SVC_API_KEY and in the
// keychain, and `svc --help`, each beside its reference (the bare node:https script reading
// the key the same way, bench/bare-requests.cjs; `node -e 0`), against `svc emulator --https`,
// with a preload that marks each phase from inside the process (bench/phase-marks.cjs, which
// adds a little time of its own to every row; svc says its own phases, src/cli/phase.ts).
// Each phase is the time from the mark before it to its own, marks in the order they came,
// from the process's start.
// Medians of BENCH_RUNS (default 15) runs, the cases taking turns. The keychain rows need a
// Secret Service: the script restarts itself under dbus-run-session with an unlocked
// gnome-keyring of its own (as bench/run.mjs does), or leaves them out with a note.
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
const svc = join(root, 'bin/svc.js');
const runs = Number(process.env.BENCH_RUNS ?? 15);
const args = process.argv.slice(2);
const given = args.flatMap((arg, i) => (arg === '--node' && args[i + 1] ? [args[i + 1]] : []));
const nodes = given.length ? given : [process.execPath];

if (!process.env.SVC_BENCH_SESSION && ['dbus-run-session', 'gnome-keyring-daemon'].every((p) => spawnSync('sh', ['-c', `command -v ${p}`]).status === 0)) {
  const keyringHome = mkdtempSync(join(tmpdir(), 'svc-bench-keyring-'));
  const inSession = spawnSync(
    'dbus-run-session',
    [
      '--',
      'sh',
      '-c',
      // The tests' start of the keyring (scripts/keyring-up.sh): unlocked, and waited for.
      `bash '${join(root, 'scripts/keyring-up.sh')}' "$XDG_DATA_HOME"; exec "$0" "$@"`,
      process.execPath,
      ...process.argv.slice(1),
    ],
    { stdio: 'inherit', env: { ...process.env, SVC_BENCH_SESSION: '1', XDG_DATA_HOME: keyringHome } },
  );
  rmSync(keyringHome, { recursive: true, force: true });
  process.exit(inSession.status ?? 1);
}

/** Each mark (bench/phase-marks.cjs), named as the phase that ends at it. */
const PHASES = {
  script: "Node's own start, to the main script",
  commanderAsked: 'the bundle (dist/main.cjs), to its require of commander',
  commander: 'loading commander (dist/lib/commander.cjs)',
  core: 'the rest of the bundle',
  manifest: 'reading the manifest',
  parsed: 'building the tree, parsing the line',
  module: "the command's module",
  context: 'making the context',
  http: 'to node:http(s) (bare: its start)',
  socket: 'to the first socket (the key read, the connection)',
  answered: 'to the last answer',
  exit: 'to exit',
};

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

/** Each phase's time in one run: from the mark before it to its own, in the order the marks came. */
function phasesOf(marks) {
  const order = Object.keys(PHASES)
    .filter((name) => typeof marks[name] === 'number')
    .sort((a, b) => marks[a] - marks[b]);
  const times = {};
  let previous = 0; // the process's start (performance.now()'s origin)
  for (const name of order) {
    times[name] = marks[name] - previous;
    previous = marks[name];
  }
  times.total = marks.exit;
  return times;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const scratch = mkdtempSync(join(tmpdir(), 'svc-bench-phases-'));
const emulator = await spawnEmulator({ args: ['--https'], env: { ...process.env, SVC_CONFIG_DIR: join(scratch, 'emulator') } });
try {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: scratch,
    NO_COLOR: '1',
    SVC_CONFIG_DIR: join(scratch, 'config'),
    NODE_EXTRA_CA_CERTS: emulator.ca_file,
    NODE_COMPILE_CACHE: join(scratch, 'compile-cache'),
    SVC_BASE_URL: emulator.url,
    ...(process.env.DBUS_SESSION_BUS_ADDRESS ? { DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS } : {}),
  };
  const bare = [join(root, 'bench/bare-requests.cjs'), '/v1/account', '/v1/balance'];
  const cases = {
    'svc account --json (SVC_API_KEY)': { script: [svc, 'account', '--json'], env: { SVC_API_KEY: emulator.keys.test } },
    'bare node:https (SVC_API_KEY)': { script: bare, env: { SVC_API_KEY: emulator.keys.test } },
    'svc --help': { script: [svc, '--help'], env: {} },
    'node -e 0': { script: ['-e', '0'], env: {} },
  };
  if (process.env.SVC_BENCH_SESSION) {
    const keychainDir = join(scratch, 'config-keychain');
    const added = spawnSync(process.execPath, [svc, 'keys', 'add', '--stdin', '--name', 'bench'], {
      input: emulator.keys.test,
      env: { ...env, SVC_CONFIG_DIR: keychainDir, SVC_CREDENTIAL_STORE: 'keychain' },
      encoding: 'utf8',
    });
    if (added.status !== 0) throw new Error(`svc keys add (keychain): ${added.stderr}`);
    cases['svc account --json (key in the keychain)'] = { script: [svc, 'account', '--json'], env: { SVC_CONFIG_DIR: keychainDir } };
    cases['bare node:https (key in the keychain)'] = { script: bare, env: { BENCH_KEYCHAIN_ACCOUNT: 'default:bench' } };
  } else console.log('note: no Secret Service here (dbus-run-session, gnome-keyring-daemon): the keychain rows are left out');
  for (const node of nodes) {
    const seen = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
    for (let i = 0; i < runs + 2; i++) {
      // The emulator allows 600 requests a minute per key: its clock moves a minute every 10 rounds.
      if (i % 10 === 0) await advanceClock();
      for (const [name, c] of Object.entries(cases)) {
        const ran = spawnSync(node, ['--require', preload, ...c.script], { env: { ...env, ...c.env }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
        if (ran.status !== 0) throw new Error(`${name} exited ${ran.status}: ${ran.stderr}`);
        if (i >= 2) seen[name].push(phasesOf(JSON.parse(ran.stderr.match(/^PHASES (.*)$/m)[1])));
      }
    }
    const version = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
    console.log(`\nnode ${version}: median ms of each phase over ${runs} runs (a phase a case does not pass through: -), start to exit in the last row`);
    const table = {};
    for (const [phase, label] of [...Object.entries(PHASES), ['total', 'start to exit']]) {
      table[label] = Object.fromEntries(
        Object.entries(seen).map(([name, runsSeen]) => {
          const values = runsSeen.map((times) => times[phase]).filter((value) => value !== undefined);
          return [name, values.length ? median(values).toFixed(1) : '-'];
        }),
      );
    }
    console.table(table);
  }
} finally {
  emulator.stop();
  rmSync(scratch, { recursive: true, force: true });
}
