// `npm run bench`: start-up of svc under each tested Node (scripts/nodes.mjs; or each
// `--node PATH` given), as a ratio to `node -e 0` of the same binary measured in the same
// run, with peak memory; `gh` (a native CLI) for comparison when installed; then the emulator
// and events throughput benchmarks, svc mcp (bench/mcp.mjs), the dashboard in Chromium
// (bench/dashboard.mjs), the credential window per store (bench/credential-window.mjs) and the package size.
//   npm run bench [-- --node PATH ...] [--startup-only] [--write-readme]     BENCH_RUNS=30 runs a case
// Some start-up rows alone (those whose name has TEXT, with the rows they are measured against):
//   npm run bench -- --only TEXT [--node PATH ...]      e.g. --only jq: the --jq rows and their --json rows
// The start-up rows alone, with `--help` at a terminal, gh and the package's size:
//   npm run bench:startup [-- --node PATH ...]   (bench/startup.mjs)
// Budgets (docs/design.md "Performance budget"): see `cases`; request commands' over https in
// bench/requests.mjs, which this runs too. The keychain case needs a Secret Service:
// without one in this session, the bench restarts itself under dbus-run-session with an
// unlocked gnome-keyring (as scripts/test-real.sh does), or skips that case with a note.
import { spawnSync } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testedNodes } from '../scripts/nodes.mjs';
import { spawnEmulator } from './spawned-emulator.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const svc = join(root, 'bin/svc.js');
const peakPreload = join(root, 'bench/peak-rss.cjs');
const runs = Number(process.env.BENCH_RUNS ?? 30);

const args = process.argv.slice(2);
/** `--only TEXT`: the start-up rows whose name has TEXT, nothing else. */
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
if (only !== undefined && !only) {
  console.error('bench: --only needs a part of a row name, e.g. --only jq');
  process.exit(2);
}
const givenNodes = args.flatMap((arg, i) => (arg === '--node' && args[i + 1] ? [args[i + 1]] : []));
for (const binary of givenNodes) {
  if (!existsSync(binary)) {
    console.error(`bench: no Node binary at ${binary}`);
    process.exit(2);
  }
}

/** The keychain case needs a Secret Service; start a private one for this run when we can. */
function canStartSecretService() {
  return ['dbus-run-session', 'gnome-keyring-daemon'].every((program) => spawnSync('sh', ['-c', `command -v ${program}`]).status === 0);
}
if (!process.env.SVC_BENCH_SESSION && canStartSecretService()) {
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
    // A keyring of its own (XDG_DATA_HOME/keyrings), created unlocked with this password.
    { stdio: 'inherit', env: { ...process.env, SVC_BENCH_SESSION: '1', XDG_DATA_HOME: keyringHome } },
  );
  rmSync(keyringHome, { recursive: true, force: true });
  process.exit(inSession.status ?? 1);
}

const scratch = mkdtempSync(join(tmpdir(), 'svc-bench-'));

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** One wall-clock run of `program <args>`, in ms; the exit code must be the expected one. */
function timeOnce(c, env) {
  const started = process.hrtime.bigint();
  const result = spawnSync(c.program, c.args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== (c.exitCode ?? 0)) throw new Error(`${c.name} exited ${result.status} (expected ${c.exitCode ?? 0}): ${result.stderr}`);
  return ms;
}

/**
 * Median wall time of each case (after 3 warm-ups) and its peak RSS. The cases take turns,
 * run by run, so a machine that slows down for a while slows every case alike and the
 * ratios to the baseline stay fair.
 */
/**
 * The emulator allows 600 requests a minute per key (docs/contract.md), which a fast run of
 * the request cases would pass: svc would then wait out 429s and the references fail. Its
 * clock moves a minute before each round, outside the timing.
 */
async function nextRateWindow() {
  await control('POST', '/clock', { advance_seconds: 60 });
}

/**
 * A control-plane call, on a connection of its own: the timed runs block this process for
 * longer than the emulator keeps an idle connection, and a reused one it closed meanwhile fails.
 */
function control(method, path, body) {
  return new Promise((resolve, reject) => {
    const headers = body ? { 'content-type': 'application/json' } : {};
    const req = httpRequest(new URL(`/_emulator${path}`, emulator.url), { method, agent: false, headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () =>
        res.statusCode < 300 ? resolve(text ? JSON.parse(text) : undefined) : reject(new Error(`${path} answered ${res.statusCode}: ${text}`)),
      );
    });
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

async function measureAll(cases) {
  // Node's compile cache (22+) in a folder of this run's: the warm-up runs write it, as a
  // user's first run of each command does.
  const envs = cases.map((c) => ({
    ...process.env,
    SVC_CONFIG_DIR: join(scratch, 'config-empty'),
    NODE_COMPILE_CACHE: join(scratch, 'compile-cache'),
    NO_COLOR: '1',
    ...(c.env ?? {}),
  }));
  const times = cases.map(() => []);
  for (let i = 0; i < runs + 3; i++) {
    await nextRateWindow();
    cases.forEach((c, j) => {
      const ms = timeOnce(c, envs[j]);
      if (i >= 3) times[j].push(ms);
    });
  }
  const results = [];
  for (const [j, c] of cases.entries()) {
    if (!c.node) {
      results.push({ ms: median(times[j]), peakMiB: null });
      continue;
    }
    await nextRateWindow();
    // Peak memory from separate runs, so the preload does not colour the timings.
    const rssFile = join(scratch, `rss-${process.hrtime.bigint()}`);
    for (let i = 0; i < 3; i++) {
      // Output to pipes, as in the timed runs (on /dev/null, a terminal-like device, svc prints help the long way).
      spawnSync(c.program, ['--require', peakPreload, ...c.args], { env: { ...envs[j], SVC_BENCH_RSS_FILE: rssFile }, stdio: ['ignore', 'pipe', 'pipe'] });
    }
    const peaks = readFileSync(rssFile, 'utf8').trim().split('\n').map(Number);
    results.push({ ms: median(times[j]), peakMiB: Math.max(...peaks) / 1024 });
  }
  return results;
}

const emulator = await spawnEmulator();
const apiEnv = { SVC_API_KEY: emulator.keys.test, SVC_BASE_URL: emulator.url };

/** A profile whose test key is stored by `svc keys add` (`store`: keychain or file), or why there is none. */
function storedProfile(store) {
  if (store === 'keychain' && !process.env.SVC_BENCH_SESSION)
    return { skip: 'no Secret Service (dbus-run-session and gnome-keyring-daemon are not installed)' };
  const dir = join(scratch, `config-${store}`);
  const added = spawnSync(process.execPath, [svc, 'keys', 'add', '--stdin', '--name', 'bench'], {
    input: emulator.keys.test,
    env: { ...process.env, SVC_CONFIG_DIR: dir, SVC_BASE_URL: emulator.url, SVC_CREDENTIAL_STORE: store, NO_COLOR: '1' },
    encoding: 'utf8',
  });
  if (added.status !== 0) return { skip: `svc keys add refused the key: ${added.stderr.trim().split('\n')[0]}` };
  const floorEnv =
    store === 'keychain'
      ? { SVC_BASE_URL: emulator.url, BENCH_KEYCHAIN_ACCOUNT: 'default:bench' }
      : { SVC_BASE_URL: emulator.url, BENCH_CREDENTIALS_FILE: join(dir, 'credentials.json'), BENCH_CREDENTIALS_ACCOUNT: 'default:bench' };
  return { env: { SVC_CONFIG_DIR: dir }, floorEnv };
}
/** Where the key is: the three ways users keep it, each with the bare script reading it the same way. */
const stores = {
  env: { label: 'SVC_API_KEY', env: apiEnv, floorEnv: apiEnv },
  file: { label: 'key in the file store', ...storedProfile('file') },
  keychain: { label: 'key in the keychain', ...storedProfile('keychain') },
};
/** Events for `events tail` to start from: its time is to its first event (`--max-events 1`). */
const firstEvent = await control('POST', '/events', { org_id: emulator.org_id, mode: 'test', type: 'call.started', count: 2 });
/** The request commands, on each store: `account --json` has the budgets (below), the others are shown. */
const requestCommands = [
  { name: 'account --json', args: ['account', '--json'] },
  { name: 'calls list --json', args: ['calls', 'list', '--json'] },
  { name: 'events tail, to its first event', args: ['events', 'tail', '--json', '--max-events', '1', '--since', firstEvent.first_id] },
];
/** `account --json` with the key in the keychain against the env key (the same command), and in the file. */
export const STORE_RATIO_BUDGETS = { keychain: 1.1, file: 1.05 };
/** `account --json` with the key in the keychain against the bare script reading it from the keychain. */
export const KEYCHAIN_FLOOR_RATIO_BUDGET = 1.35;

/**
 * The measured commands. Budgets (docs/design.md "Performance budget") are ratios to `node -e 0`
 * on every tested Node: the answers the launcher gives from files. The request commands are
 * shown for each store beside the bare-script reference reading the key the same way; their
 * budgets are ratios between rows (STORE_RATIO_BUDGETS, KEYCHAIN_FLOOR_RATIO_BUDGET) and the
 * https one (bench/requests.mjs).
 */
const cases = [
  { name: 'svc --version', args: ['--version'], budget: 1.15 },
  { name: 'svc --help', args: ['--help'], budget: 1.5 },
  { name: 'svc calls --help', args: ['calls', '--help'], budget: 1.5 },
  { name: 'svc completion bash', args: ['completion', 'bash'], budget: 1.15 },
  { name: 'svc nosuchcommand (unknown: exit 2)', args: ['nosuchcommand'], exitCode: 2 },
  { name: 'svc auth status (nothing stored: exit 3)', args: ['auth', 'status'], exitCode: 3 },
  ...Object.entries(stores).flatMap(([store, s]) =>
    requestCommands.map((c) => ({ name: `svc ${c.name} (${s.label})`, args: c.args, env: s.env, skip: s.skip, store, command: c.name })),
  ),
  // --jq (issue 49): the real jq, WebAssembly started in the process, against the same command with --json (Node 22+).
  { name: 'svc api /v1/account --json (SVC_API_KEY)', args: ['api', '/v1/account', '--json'], env: apiEnv },
  {
    name: 'svc api /v1/account --jq .id',
    args: ['api', '/v1/account', '--jq', '.id'],
    env: apiEnv,
    budget: 1.3,
    against: 'svc api /v1/account --json (SVC_API_KEY)',
    fromNode: 22,
  },
  { name: 'svc account --jq .id', args: ['account', '--jq', '.id'], env: apiEnv, budget: 1.3, against: 'svc account --json (SVC_API_KEY)', fromNode: 22 },
  // (A plain path to a string, as above, is answered without starting jq: src/io/jq-filter.ts. This filter needs jq.)
  {
    name: "svc account --jq '.id | ascii_downcase'",
    args: ['account', '--jq', '.id | ascii_downcase'],
    env: apiEnv,
    budget: 1.3,
    against: 'svc account --json (SVC_API_KEY)',
    fromNode: 22,
  },
];
/**
 * What any Node CLI pays for `account --json`: a script of a few lines that makes the same
 * two requests at once with node:http (one keep-alive agent) and prints the answers
 * (bench/bare-requests.cjs), with the key read as svc reads it: from the environment, from
 * credentials.json, or from the keychain with @napi-rs/keyring. (Over https and on a slow
 * link: bench/requests.mjs.)
 */
const bareRequests = [join(root, 'bench/bare-requests.cjs'), '/v1/account', '/v1/balance'];
const floors = Object.entries(stores)
  .filter(([, s]) => !s.skip)
  .map(([store, s]) => ({ name: `bare node:http, the same two GETs (${s.label}; reference)`, args: bareRequests, env: s.floorEnv, store }));
const gh = spawnSync('gh', ['--version']).status === 0;
const peers = gh
  ? [
      { name: 'gh --version', program: 'gh', args: ['--version'] },
      { name: 'gh --help', program: 'gh', args: ['--help'] },
    ]
  : [];

const nodes = givenNodes.length
  ? givenNodes.map((binary) => ({ binary, version: spawnSync(binary, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim() }))
  : testedNodes().filter((node) => node.binary);
const skippedNodes = givenNodes.length
  ? []
  : testedNodes()
      .filter((node) => !node.binary)
      .map((node) => node.version);

/** With --only: the rows named, and those they are measured against. */
const chosen = (c) => only === undefined || c.name.includes(only) || cases.some((other) => other.name.includes(only) && other.against === c.name);
const measuredFloors = only === undefined ? floors : [];
const measuredPeers = only === undefined ? peers : [];
let overBudget = 0;
const perNode = [];
for (const node of nodes) {
  const run = cases.filter((c) => !c.skip && chosen(c));
  const measured = await measureAll([
    { name: 'node -e 0', program: node.binary, node: true, args: ['-e', '0'] },
    ...run.map((c) => ({ ...c, program: node.binary, node: true, args: [svc, ...c.args] })),
    ...measuredFloors.map((f) => ({ ...f, program: node.binary, node: true })),
    ...measuredPeers,
  ]);
  const [baseline, ...rest] = measured;
  const rows = run.map((c, i) => {
    const m = rest[i];
    // A budget `against` another row is a ratio to that row (the same command with --json), from Node `fromNode` on.
    const against = c.against === undefined ? baseline : rest[run.findIndex((other) => other.name === c.against)];
    const ratio = m.ms / against.ms;
    const budget = c.fromNode !== undefined && Number(node.version.split('.')[0]) < c.fromNode ? undefined : c.budget;
    const ok = budget === undefined || ratio <= budget;
    if (!ok) overBudget++;
    return {
      command: c.name,
      ms: m.ms.toFixed(1),
      ratio: `${ratio.toFixed(2)}×${c.against === undefined ? '' : ' of --json'}`,
      budget: budget === undefined ? '-' : `≤ ${budget}×`,
      peakMiB: m.peakMiB.toFixed(1),
      ok: budget === undefined ? '' : ok ? 'yes' : 'NO',
    };
  });
  for (const [i, f] of measuredFloors.entries()) {
    const m = rest[run.length + i];
    rows.push({
      command: f.name,
      ms: m.ms.toFixed(1),
      ratio: `${(m.ms / baseline.ms).toFixed(2)}×`,
      budget: '(reference)',
      peakMiB: m.peakMiB.toFixed(1),
      ok: '',
    });
  }
  for (const [i, p] of measuredPeers.entries()) {
    const m = rest[run.length + measuredFloors.length + i];
    rows.push({ command: p.name, ms: m.ms.toFixed(1), ratio: `${(m.ms / baseline.ms).toFixed(2)}×`, budget: '(native peer)', peakMiB: '-', ok: '' });
  }
  // The stores' budgets: ratios between rows of this run.
  const accountMs = (store) => rest[run.findIndex((c) => c.store === store && c.command === 'account --json')]?.ms;
  const floorMs = (store) => {
    const at = measuredFloors.findIndex((f) => f.store === store);
    return at < 0 ? undefined : rest[run.length + at].ms;
  };
  const storeChecks = [
    ...Object.entries(STORE_RATIO_BUDGETS).map(([store, budget]) => ({
      what: `account --json, ${stores[store].label}, against SVC_API_KEY`,
      ratio: accountMs(store) / accountMs('env'),
      budget,
    })),
    {
      what: 'account --json, key in the keychain, against the bare script reading the keychain',
      ratio: accountMs('keychain') / floorMs('keychain'),
      budget: KEYCHAIN_FLOOR_RATIO_BUDGET,
    },
    { what: 'account --json, SVC_API_KEY, against the bare node:http script', ratio: accountMs('env') / floorMs('env'), budget: 1.35 },
  ].filter((check) => Number.isFinite(check.ratio));
  for (const check of storeChecks) {
    check.ok = check.ratio <= check.budget;
    if (!check.ok) overBudget++;
  }
  perNode.push({ version: node.version, baselineMs: baseline.ms, baselinePeakMiB: baseline.peakMiB, rows, storeChecks });
  console.log(
    `\nnode v${node.version}: ${runs} runs each (cases in turn), median wall time; node -e 0 = ${baseline.ms.toFixed(1)} ms, peak ${baseline.peakMiB.toFixed(1)} MiB`,
  );
  console.table(rows);
  if (storeChecks.length)
    console.table(
      storeChecks.map((check) => ({ ratio: check.what, value: `${check.ratio.toFixed(2)}×`, budget: `≤ ${check.budget}×`, ok: check.ok ? 'yes' : 'NO' })),
    );
}
{
  // A 429 would have made svc wait (and a reference fail): the times would not be start-up.
  const stats = await control('GET', '/stats');
  if (stats.rate_limited > 0) {
    console.log(`warning: the emulator answered ${stats.rate_limited} request(s) with 429 during the start-up cases; those times include waiting`);
    overBudget++;
  }
}
for (const c of cases.filter((c) => c.skip)) console.log(`note: "${c.name}" not measured: ${c.skip}`);
if (!gh) console.log('note: gh is not installed, so there is no native CLI to compare with (Debian: apt-get install gh)');
for (const version of skippedNodes) console.log(`note: node ${version} is not installed (node scripts/nodes.mjs install), not measured`);

const results = { startup: perNode };
if (process.argv.includes('--startup-only') || only !== undefined) {
  emulator.stop();
  rmSync(scratch, { recursive: true, force: true });
  console.log(overBudget ? `${overBudget} result(s) outside the budget` : 'all within budget');
  process.exit(overBudget ? 1 : 0);
}
try {
  const { runEventsBench } = await import('./events.mjs');
  const events = await runEventsBench();
  results.events = events;
  console.log(
    `events tail --json: ${Math.round(events.eventsPerSecond)} events/s, lost ${events.lost}, publish→print p50 ${events.p50Ms?.toFixed?.(1)} ms, p95 ${events.p95Ms?.toFixed?.(1)} ms (target ≥ 100,000/s, none lost)`,
  );
  if (events.eventsPerSecond < 100_000 || events.lost > 0) overBudget++;
} catch (error) {
  console.log(`events benchmark unavailable: ${error.message}`);
  overBudget++;
}
try {
  const { runForwardBench } = await import('./events.mjs');
  const forward = await runForwardBench();
  results.forward = forward;
  console.log(
    `events tail --forward-to: ${Math.round(forward.deliveriesPerSecond)} deliveries/s, signed, one at a time in order to a keep-alive handler in the bench's process, lost ${forward.lost}, out of order ${forward.outOfOrder} (target ≥ 2,000/s, in order)`,
  );
  if (forward.deliveriesPerSecond < 2000 || forward.lost > 0 || forward.outOfOrder > 0) overBudget++;
} catch (error) {
  console.log(`forwarding benchmark unavailable: ${error.message}`);
  overBudget++;
}
try {
  const { runMcpToolsBench, reportMcpToolsBench } = await import('./mcp-tools.mjs');
  const tools = await runMcpToolsBench();
  results.mcpTools = tools;
  overBudget += reportMcpToolsBench(tools, console.log);
} catch (error) {
  console.log(`svc mcp tools/list benchmark unavailable: ${error.message}`);
  overBudget++;
}
// svc mcp's initialize, tool call and memory budgets: its own script, which prints its rows.
{
  const mcp = spawnSync(process.execPath, [join(root, 'bench/mcp.mjs')], { stdio: 'inherit', env: { ...process.env, BENCH_RUNS: '15' } });
  if (mcp.status !== 0) overBudget++;
}
try {
  const { runRequestBench, reportRequestBench } = await import('./requests.mjs');
  const requests = await runRequestBench({ nodes });
  results.requests = requests;
  overBudget += reportRequestBench(requests, console.log);
} catch (error) {
  console.log(`requests benchmark unavailable: ${error.message}`);
  overBudget++;
}
try {
  const { runEmulatorBench, reportEmulatorBench } = await import('./emulator.mjs');
  const emu = await runEmulatorBench({ url: emulator.url, keys: emulator.keys, org_id: emulator.org_id });
  results.emulator = emu;
  overBudget += reportEmulatorBench(emu, console.log);
} catch (error) {
  console.log(`emulator benchmark unavailable: ${error.message}`);
  overBudget++;
}
try {
  const { runDashboardBench, reportDashboardBench } = await import('./dashboard.mjs');
  const dashboard = await runDashboardBench();
  results.dashboard = dashboard;
  overBudget += reportDashboardBench(dashboard, console.log);
} catch (error) {
  console.log(`dashboard benchmark unavailable: ${error.message}`);
  overBudget++;
}
try {
  const { runCredentialWindowBench, reportCredentialWindowBench } = await import('./credential-window.mjs');
  const window = await runCredentialWindowBench();
  results.credentialWindow = window;
  overBudget += reportCredentialWindowBench(window);
} catch (error) {
  console.log(`credential window benchmark unavailable: ${error.message}`);
  overBudget++;
}

// What a user downloads: the packed tarball and the production dependencies it pulls in.
function directoryBytes(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + directoryBytes(join(path, name)), 0);
}
const packed = JSON.parse(spawnSync('npm', ['pack', '--dry-run', '--json'], { cwd: root, encoding: 'utf8' }).stdout)[0];
const productionDeps = Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).dependencies ?? {});
// @napi-rs/keyring installs one prebuilt binary package for this platform next to it.
const depDirs = readdirSync(join(root, 'node_modules/@napi-rs'))
  .filter((name) => name.startsWith('keyring'))
  .map((name) => join(root, 'node_modules/@napi-rs', name));
const depBytes = depDirs.reduce((sum, dir) => sum + directoryBytes(dir), 0);
results.package = {
  tarballKiB: packed.size / 1024,
  unpackedKiB: packed.unpackedSize / 1024,
  files: packed.entryCount,
  productionDeps,
  installedDepKiB: depBytes / 1024,
};
console.log(
  `package: ${(packed.size / 1024).toFixed(0)} KiB packed, ${(packed.unpackedSize / 1024).toFixed(0)} KiB unpacked, ${packed.entryCount} files; production dependencies: ${productionDeps.length} (${productionDeps.join(', ')}, ${(depBytes / 1024 / 1024).toFixed(1)} MiB installed with its platform binary)`,
);

// `npm run bench -- --write-readme` puts these figures into bench/README.md ("The latest figures").
if (process.argv.includes('--write-readme')) {
  const readmePath = join(root, 'bench/README.md');
  const readme = readFileSync(readmePath, 'utf8');
  const { requestBenchMarkdown } = await import('./requests.mjs');
  const { dashboardBenchMarkdown } = await import('./dashboard.mjs');
  const notes = [
    ...cases.filter((c) => c.skip).map((c) => `- \`${c.name}\`: not measured in this run (${c.skip}).`),
    ...skippedNodes.map((version) => `- node ${version}: not installed in this run, not measured.`),
  ];
  const table = [
    `Measured by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}, ${process.platform}/${process.arch}, ${availableParallelism()} CPUs, load average ${loadavg()[0].toFixed(1)} at the end of the run; median of ${runs} runs, the cases taking turns; each ratio is to \`node -e 0\` of the same Node in the same run. The budgets apply on every tested Node (the table above; docs/design.md's round 7 guards where they differ); a request command's budget is the https one below.`,
    ...perNode.flatMap(({ version, baselineMs, rows, storeChecks }) => [
      '',
      `**Node ${version}** (\`node -e 0\` = ${baselineMs.toFixed(1)} ms)`,
      '',
      '| command | time | ratio to `node -e 0` | budget | peak memory |',
      '| --- | --- | --- | --- | --- |',
      ...rows.map((r) => `| \`${r.command}\` | ${r.ms} ms | ${r.ratio} | ${r.budget} | ${r.peakMiB === '-' ? '-' : `${r.peakMiB} MiB`} |`),
      '',
      '| where the key is | ratio | budget |',
      '| --- | --- | --- |',
      ...storeChecks.map((check) => `| ${check.what} | ${check.ratio.toFixed(2)}× | ≤ ${check.budget}× |`),
    ]),
    ...(results.requests ? requestBenchMarkdown(results.requests) : []),
    '',
    ...notes,
    `Throughput, under Node ${process.versions.node}:`,
    '',
    results.events
      ? `- \`svc events tail --json > /dev/null\`: ${Math.round(results.events.eventsPerSecond).toLocaleString('en-US')} events/s, ${results.events.lost} lost${results.events.p50Ms != null ? `, publish→print latency p50 ${results.events.p50Ms.toFixed(1)} ms, p95 ${results.events.p95Ms.toFixed(1)} ms` : ''} (target ≥ 100,000/s).`
      : '- events benchmark: unavailable in this run.',
    results.forward
      ? `- \`svc events tail --forward-to URL\` (signed, keep-alive, one delivery at a time so they arrive in order, to a handler in the bench's process that answers at once): ${Math.round(results.forward.deliveriesPerSecond).toLocaleString('en-US')} deliveries/s, ${results.forward.lost} lost, ${results.forward.outOfOrder} out of order (target ≥ 2,000/s).`
      : '- forwarding benchmark: unavailable in this run.',
    results.emulator
      ? `- emulator: ${Math.round(results.emulator.requestsPerSecond).toLocaleString('en-US')} authenticated requests/s (target ≥ 1,000); ${Math.round(results.emulator.eventsPerSecond).toLocaleString('en-US')} events/s to one stream in a 200,000-event burst, ${results.emulator.lost} lost (target ≥ 200,000/s); other requests during the burst p99 ${results.emulator.burstP99Ms.toFixed(1)} ms (target < 50 ms); RSS after a million events ${results.emulator.rssAfterMillionEventsMiB?.toFixed(0) ?? 'n/a'} MiB (target ≤ 200 MiB).`
      : '- emulator benchmark: unavailable in this run.',
    ...(results.emulator?.dashboardPeakRssMiB != null
      ? [
          `- emulator with the dashboard's live stream open and followed: peak RSS ${results.emulator.dashboardPeakRssMiB.toFixed(0)} MiB while ${results.emulator.dashboardEvents.toLocaleString('en-US')} events were published and ${results.emulator.dashboardRequests.toLocaleString('en-US')} API requests served (target ≤ 200 MiB, V8 heap capped at 96 MiB); the Requests ring held ${results.emulator.dashboardRingSize?.toLocaleString('en-US')} of ${results.emulator.dashboardLogged?.toLocaleString('en-US')} requests (bound 1,000).`,
        ]
      : []),
    `- package: ${(packed.size / 1024).toFixed(0)} KiB packed, ${packed.entryCount} files; ${productionDeps.length} production dependency (${productionDeps.join(', ')}), ${(depBytes / 1024 / 1024).toFixed(1)} MiB installed.`,
    ...(results.dashboard ? dashboardBenchMarkdown(results.dashboard) : []),
  ].join('\n');
  const updated = readme.replace(/<!-- bench:start -->[\s\S]*<!-- bench:end -->/, `<!-- bench:start -->\n${table}\n<!-- bench:end -->`);
  writeFileSync(readmePath, updated);
  console.log('bench/README.md updated');
}

emulator.stop();
rmSync(scratch, { recursive: true, force: true });
console.log(overBudget ? `${overBudget} result(s) outside the budget` : 'all within budget');
process.exitCode = overBudget ? 1 : 0;
